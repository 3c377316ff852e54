"""Games in progress written by older releases, upgraded with `scat db upgrade` as a user upgrading
would, play on to their end under this scat with their own rules, and audit clean.

The databases in tests/data/old_releases were made once by the release before rules version 2
(030d692) and the one before rules version 3 (28a330c), with every mix of options, stopped at
varied points (see make_games_in_progress.py there). Among them is the referee's game: rules
version 1, throw down and min-knock; h0 knocks, h1 draws and discards, and the answer of that
discard once valued h1's new hand, which he had not seen, and crashed after the commit
(tests/cli/test_old_games_through_the_cli.py makes those moves with the real CLI).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from scat_cli.wiring import open_database
from scat_core.domain.bots import heuristic_move
from scat_core.domain.evolve import fold
from scat_core.records.signing import KeyRing
from scat_core.service.games import GameService
from scat_core.store.sql.database import HEAD_REVISION, make_engine, upgrade

DATA = Path(__file__).resolve().parents[1] / "data" / "old_releases"
RELEASES: dict[str, Any] = json.loads((DATA / "games_in_progress.json").read_text())
#: Within the move time (2 days) of the games that have one: nobody runs out of time here.
NOW = datetime(2026, 12, 5, 12, 0, tzinfo=UTC)
CASES = [(release, index) for release, made in RELEASES.items() for index in range(len(made["games"]))]


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Each release's database, copied and upgraded to this scat's schema (`scat db upgrade`)."""
    urls = {}
    for release, made in RELEASES.items():
        copy = tmp_path_factory.mktemp(release) / made["file"]
        shutil.copyfile(DATA / made["file"], copy)
        engine = make_engine(f"sqlite:///{copy}")
        assert upgrade(engine) == HEAD_REVISION
        engine.dispose()
        urls[release] = f"sqlite:///{copy}"
    yield urls


def play_to_the_end(service: GameService[Any], game_id: str, humans: list[str]) -> None:
    """The humans make the heuristic bot's moves through the service's answers (what the CLI
    prints), looking at their hands first where that is a move of its own (R23)."""
    for _ in range(5_000):
        state = service.playing.look(game_id)
        if state.status == "finished":
            return
        assert state.turn is not None and state.players[state.turn].name in humans, state
        name = state.players[state.turn].name
        seen = service.show(game_id, name)  # a look (R23), and the answer a player reads
        assert seen.state.turn == state.turn
        state = service.playing.look(game_id, name)
        move = heuristic_move(state, state.turn)  # type: ignore[arg-type]
        assert move is not None
        played = service.move(game_id, move)
        assert played.state.version > state.version
    raise AssertionError(f"game {game_id} did not end")


@pytest.mark.parametrize(("release", "index"), CASES)
def test_an_old_game_in_progress_plays_on_to_its_end_under_its_own_rules_and_audits(
    upgraded: dict[str, str], release: str, index: int,
) -> None:
    made = RELEASES[release]["games"][index]
    signer = RELEASES[release]["heads_signed_by"]
    if signer is not None:  # the key of the installation that made the file (`scat key trust`)
        KeyRing.default().trust(signer)
    service = GameService(open_database(upgraded[release]).store, lambda: NOW)
    game_id = made["game_id"]
    version = fold(stored.event for stored in service.reading.history(game_id)).rules_version
    assert version == (1 if release == "rules_v1" else 2)
    play_to_the_end(service, game_id, made["humans"])
    report = service.audit(game_id)
    assert (report.ok, report.problems, report.seed_verified) == (True, [], True)
    assert fold(stored.event for stored in service.reading.history(game_id)).rules_version == version
    service.store.engine.dispose()
