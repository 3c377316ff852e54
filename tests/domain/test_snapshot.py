"""Snapshots (#13): a cache of the fold that can never differ from it.

Property: for random games (2-9 players, random options, moves and seeds), the snapshot of
the state after any prefix of the events, decoded and folded with the rest of the events,
is exactly the fold of all the events; and every state a game passes through encodes and
decodes to itself (every field, with its exact type).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scat_core.domain import snapshot
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.events import PlayerSeat
from scat_core.domain.evolve import fold
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from tests.support.random_games import Setup, play_states, setups


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups(), st.data())
def test_a_snapshot_and_the_events_after_it_fold_to_exactly_the_full_fold(setup: Setup, data: st.DataObject) -> None:
    events, states = play_states(setup)
    full = fold(events)
    assert full == states[-1]
    for cut in {0, len(events), *data.draw(st.lists(st.integers(0, len(events)), min_size=1, max_size=8))}:
        restored = snapshot.decode(snapshot.encode(states[cut]))
        assert restored == states[cut]
        assert fold(events[cut:], restored) == full
        assert restored == states[cut]  # fold starts from a copy: the state given is untouched
    for state in states:  # every field of every state, exactly, types included
        back = snapshot.decode(snapshot.encode(state))
        assert back == state and all(type(back.__dict__[k]) is type(v) for k, v in state.__dict__.items())


def test_names_that_look_like_the_encodings_tags_stay_names() -> None:
    players = tuple(PlayerSeat(name=name) for name in ("t", "d", "g"))
    state = decide_and_evolve(GameState(), CreateGame("game", players), SeededChance("1", "s"))[1]
    assert snapshot.decode(snapshot.encode(state)) == state


@pytest.mark.parametrize("text", ["", "[]", '{"g": []}', '{"t": [1]}', '{"g": [["game_id", "x"]]}', '{"q": 1}',
                                  '{"g": 1, "t": 2}'])
def test_anything_but_a_snapshot_of_a_game_is_refused(text: str) -> None:
    with pytest.raises((ValueError, TypeError)):
        snapshot.decode(text)


def test_a_value_of_an_unknown_type_is_refused_not_guessed() -> None:
    state = GameState().evolved({"stock": ["AS"]})  # a list where the state holds tuples
    with pytest.raises(TypeError, match="list"):
        snapshot.encode(state)


def test_the_tag_names_this_code_so_another_versions_snapshot_is_never_used() -> None:
    version, rules = snapshot.SNAPSHOT_TAG
    assert version == snapshot.STATE_SCHEMA_VERSION and len(rules) == 64
    json.loads(snapshot.encode(GameState()))  # plain JSON


def test_a_change_to_the_state_format_or_to_how_events_fold_changes_the_tag(tmp_path: Path) -> None:
    # #13: the tag's digest covers every domain module, so a snapshot written before a change to
    # the state's fields (state.py), to evolve or to how decide makes events (speed_tricks.py) is never used.
    domain = Path(snapshot.__file__).parent
    copy = tmp_path / "domain"
    shutil.copytree(domain, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert snapshot.rules_version_of(copy) == snapshot.RULES_VERSION
    for module in ("state.py", "evolve.py", "speed_tricks.py", "events.py"):
        source = (copy / module).read_text(encoding="utf-8")
        (copy / module).write_text(source + "\n# changed\n", encoding="utf-8")
        assert snapshot.rules_version_of(copy) != snapshot.RULES_VERSION
        (copy / module).write_text(source, encoding="utf-8")
    assert snapshot.rules_version_of(copy) == snapshot.RULES_VERSION
    state = (copy / "state.py").read_text(encoding="utf-8")
    (copy / "state.py").write_text(state.replace("    kitty: int = 0\n", "    kitty: int = 0\n    pot: int = 0\n"),
                                   encoding="utf-8")
    assert snapshot.rules_version_of(copy) != snapshot.RULES_VERSION
