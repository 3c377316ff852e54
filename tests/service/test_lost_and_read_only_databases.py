"""A connection lost between a move and the bots' replies, and a database on a read-only file."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from scat_core.domain.commands import Discard, Draw
from scat_core.records.errors import DatabaseReadOnly
from scat_core.service.games import GameService
from tests.support.read_only import YOU_AND_BOB, stats_behind_their_events


def lose_the_connection_on(service: GameService, monkeypatch: pytest.MonkeyPatch, call: int) -> list[int]:
    """Make the `call`-th connection the service opens fail as a dropped server connection does."""
    real = service.store.engine.connect
    calls: list[int] = []

    def connect() -> Any:
        calls.append(1)
        if len(calls) == call:
            raise OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))
        return real()

    monkeypatch.setattr(service.store.engine, "connect", connect)
    return calls


def test_a_move_recorded_before_the_connection_was_lost_stands_and_the_bots_resume(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 2 though the move stood; now the outcome says so and the next command resumes."""
    service = GameService.open(db_url)
    game = service.create_game(YOU_AND_BOB, seed=5, dealer="bob").game_id
    drawn = service.act(game, Draw("you", "stock")).state
    lose_the_connection_on(service, monkeypatch, call=2)  # 1: the move's transaction, 2: the bots'
    done = service.act(game, Discard("you", drawn.hands[0][0]))
    assert done.bots_interrupted is not None and "connection" in done.bots_interrupted
    assert done.state.version == drawn.version + 1  # the discard is recorded, no bot move yet
    monkeypatch.undo()
    assert service.history(game)[-1].seq == drawn.version + 1
    resumed = GameService.open(db_url).look(game)  # the next command plays the bots' replies
    assert resumed.version > drawn.version + 1 and resumed.turn == 0


def test_stats_on_a_read_only_file_fold_in_memory_what_the_projection_has_not_seen(tmp_path: Path) -> None:
    """`scat stats` caught the projection up by writing, so a read-only database refused it;
    now it shows the figures a writable copy shows, folding the events not yet counted in memory."""
    path, copy = tmp_path / "scat.db", tmp_path / "copy.db"
    stats_behind_their_events(path)
    shutil.copyfile(path, copy)
    before = path.read_bytes()
    read_only = GameService.open(f"sqlite:///file:{path}?mode=ro&uri=true")  # SQLite refuses every write
    with pytest.raises(DatabaseReadOnly):
        read_only.catch_up_stats()
    writable = GameService.open(f"sqlite:///{copy}")
    for player in (None, "BOB", "ann"):
        shown = read_only.stats(player)
        assert shown == writable.stats(player), player  # which catches the copy up, as before
    stored = read_only.store.read_stats().overall  # the rows as written: one game in progress
    assert (stored.games_played, stored.games_in_progress, stored.knocks) == (0, 1, 0)
    shown = read_only.stats()
    assert (shown.overall.games_played, shown.overall.games_in_progress, shown.overall.knocks) == (1, 1, 7)
    assert [(f.name, f.games_played, f.games_in_progress) for f in read_only.stats("bob").players] == [("Bob", 1, 1)]
    assert read_only.stats(rebuild=True) == writable.stats(rebuild=True) == shown
    read_only.store.engine.dispose()
    assert path.read_bytes() == before  # nothing written
    assert writable.catch_up_stats() == 0  # the writable copy keeps what it caught up
