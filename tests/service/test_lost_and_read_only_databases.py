"""A connection lost during a move or after a new game, and a database on a read-only file."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain.commands import Discard, Draw
from scat_core.records.errors import DatabaseReadOnly, StoreUnavailable
from scat_core.service import playing
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


def test_a_move_whose_connection_is_lost_writes_nothing_not_even_half_and_can_be_made_again(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move and the bots' replies are one transaction: a lost connection loses both, never the replies alone."""
    service = open_database(db_url)
    game = service.playing.create_game(YOU_AND_BOB, seed=5, dealer="bob").game_id
    drawn = service.playing.act(game, Draw("you", "stock")).state
    lose_the_connection_on(service, monkeypatch, call=1)  # the move's one transaction
    with pytest.raises(StoreUnavailable, match="connection"):
        service.playing.act(game, Discard("you", drawn.hands[0][0]))
    monkeypatch.undo()
    assert service.reading.history(game)[-1].seq == drawn.version  # nothing written
    done = service.playing.act(game, Discard("you", drawn.hands[0][0]))
    assert done.bots_interrupted is None
    assert done.state.version > drawn.version + 1 and done.state.turn == 0  # the discard and bob's reply


def test_a_new_game_and_its_bots_opening_moves_are_one_unit_a_lost_connection_loses_both(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = open_database(db_url)
    lose_the_connection_on(service, monkeypatch, call=1)  # the new game's one transaction
    with pytest.raises(StoreUnavailable, match="connection"):
        service.playing.create_game(YOU_AND_BOB, seed=5, dealer="you")  # bob plays first (R11)
    monkeypatch.undo()
    assert service.reading.list_games() == []  # no game, not half a one
    created = service.playing.create_game(YOU_AND_BOB, seed=5, dealer="you")
    assert created.bots_interrupted is None and created.state.turn == 0  # bob's move came with it


def test_the_bots_later_units_lost_with_the_connection_leave_the_game_standing_and_resume(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bots play in units of work (each committed): the outcome says why the next unit was not
    saved, and the next command plays on from the last one written."""
    service = open_database(db_url)
    monkeypatch.setattr(playing, "BOT_MOVES_PER_UNIT", 2)
    lose_the_connection_on(service, monkeypatch, call=2)  # 1: the new game with 2 bot moves, 2: the next 2
    bots = [ev.PlayerSeat(name=name, is_bot=True) for name in ("ann", "bob")]
    created = service.playing.create_game(bots, seed=5)
    assert created.bots_interrupted is not None and "connection" in created.bots_interrupted
    assert service.reading.history(created.game_id)[-1].seq == created.state.version
    assert created.state.status == "active"
    monkeypatch.undo()
    resumed = open_database(db_url).playing.look(created.game_id)  # the next look lets them play on
    assert resumed.version > created.state.version


def test_stats_on_a_read_only_file_fold_in_memory_what_the_projection_has_not_seen(tmp_path: Path) -> None:
    """`scat stats` caught the projection up by writing, so a read-only database refused it;
    now it shows the figures a writable copy shows, folding the events not yet counted in memory."""
    path, copy = tmp_path / "scat.db", tmp_path / "copy.db"
    stats_behind_their_events(path)
    shutil.copyfile(path, copy)
    before = path.read_bytes()
    read_only = open_database(f"sqlite:///file:{path}?mode=ro&uri=true")  # SQLite refuses every write
    with pytest.raises(DatabaseReadOnly):
        read_only.statistics.catch_up_stats()
    writable = open_database(f"sqlite:///{copy}")
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
    assert writable.statistics.catch_up_stats() == 0  # the writable copy keeps what it caught up
