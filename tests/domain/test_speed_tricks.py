"""The speed tricks of scat_core/domain/speed_tricks.py: each holds on the library versions it was
written for, and its public-API fallback builds exactly what it builds."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pydantic
import pytest

from scat_core.domain import speed_tricks
from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.events import PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.snapshot import decode, encode
from scat_core.domain.state import GameState
from scat_core.domain.stats import changed

ROOT = Path(__file__).resolve().parents[2]

#: Plays bot games and prints one digest of every state and event on the way (run per setting).
GAMES_DIGEST = """
import hashlib, sys
sys.path.insert(0, {root!r})
from tests.domain.test_speed_tricks import games_digest
from scat_core.domain import speed_tricks
print(games_digest(), speed_tricks.SLOT_WRITES, speed_tricks.DICT_WRITES)
"""


def games_digest(games: int = 12) -> str:
    """A digest of every event and state of `games` bot-only games, options varied."""
    digest = hashlib.sha256()
    for game in range(games):
        options = GameOptions(lives=1 + game % 3, throw_down=game % 2 == 0, three_of_a_kind=game % 3 == 0)
        seats = tuple(PlayerSeat(name=f"bot{n}", is_bot=True) for n in range(2 + game % 5))
        chance = SeededChance(f"tricks-{game}", "test")
        state, command = GameState(), CreateGame(game_id=f"g{game}", players=seats, options=options)
        while True:
            events, state = decide_and_evolve(state, command, chance)  # type: ignore[arg-type]
            for event in events:
                digest.update(event.model_dump_json().encode())
                digest.update(repr(sorted(event.model_fields_set)).encode())
            digest.update(encode(state).encode())
            if state.status == "finished":
                break
            command = next_bot_command(state)  # type: ignore[assignment]
    return digest.hexdigest()


def test_both_tricks_hold_on_the_pydantic_and_python_releases_they_were_written_for() -> None:
    """If this fails after an upgrade, the trick is off (the public API runs): re-measure with
    tests/benchmarks/bench_domain.py and either adapt the trick to the new release or remove it."""
    assert int(pydantic.VERSION.split(".")[0]) in speed_tricks.PYDANTIC_TESTED, pydantic.VERSION
    assert speed_tricks.pydantic_slots_hold()
    assert speed_tricks.dict_writes_hold()
    if not os.environ.get("SCAT_PUBLIC_API_ONLY"):
        assert speed_tricks.SLOT_WRITES and speed_tricks.DICT_WRITES


def test_the_public_dataclass_api_folds_the_same_states_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    tricks = games_digest(6)
    monkeypatch.setattr(speed_tricks, "DICT_WRITES", False)
    assert games_digest(6) == tricks


@pytest.mark.parametrize("turned_off", ["slots", "dict", "1"])
def test_every_setting_of_scat_public_api_only_plays_the_same_games(turned_off: str) -> None:
    script = GAMES_DIGEST.format(root=str(ROOT))
    runs = {
        setting: subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                                env={**os.environ, "SCAT_PUBLIC_API_ONLY": setting}, cwd=ROOT).stdout.split()
        for setting in ("", turned_off)
    }
    assert runs[""][1:] == ["True", "True"]
    assert runs[turned_off][1:] == [str(turned_off not in ("slots", "1")), str(turned_off not in ("dict", "1"))]
    assert runs[turned_off][0] == runs[""][0]


def test_the_fallbacks_keep_states_frozen_and_copies_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    for fast in (True, False):
        monkeypatch.setattr(speed_tricks, "DICT_WRITES", fast)
        state = GameState(game_id="g", kitty=3)
        copy = speed_tricks.fresh_copy(state)
        fields = speed_tricks.writable_fields(copy)
        fields["kitty"] += 2
        fields.update(winner="ann")
        assert (copy.kitty, copy.winner, state.kitty, state.winner) == (5, "ann", 3, None)
        assert speed_tricks.replaced(state, {"kitty": 9}) == dataclasses.replace(state, kitty=9)
        assert decode(encode(copy)) == copy
        with pytest.raises(dataclasses.FrozenInstanceError):
            copy.kitty = 1  # type: ignore[misc]
        with pytest.raises(KeyError):
            fields["no such field"]
        line = changed(state, kitty=1)
        assert line.kitty == 1 and state.kitty == 3
