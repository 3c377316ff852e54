"""The ratings kept (store/sql/ratings_table.py, revision 0021) on SQLite and PostgreSQL: a read
folds only the settled games won since the last one, and the figures kept are those of one fold
over every won game, to the last digit: after games won later, after a game won earlier that came
in late (folded anew), after the statistics' rebuild; games won in the last minute are in the
answer, not kept; a read-only database's are folded in memory, nothing written; the ratings of
some players (a lobby page's, `--player`) read only their rows and those the answer's fold needs;
a read learns how many games are won from the total the statistics keep (revision 0022), not by
counting them."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, select

import scat_core.store.sql.ratings_table as ratings_table
from scat_cli.wiring import open_database
from scat_core.domain.commands import Resign
from scat_core.domain.events import PlayerSeat
from scat_core.domain.stats import GameLine
from scat_core.records.stats import RatingsFold, fold_ratings, rating_rows, won
from scat_core.service import GameService
from scat_core.store.sql import tables as t
from scat_core.store.sql.database import HEAD_REVISION, upgrade
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.projections import STATS, won_games, won_rows
from scat_core.store.sql.ratings_table import read_fold
from tests.support.databases import migrated
from tests.support.old_schema import engine_at

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A clock the test sets."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(engine: Engine, clock: Clock) -> GameService[EventStore]:
    return GameService(EventStore(engine), clock)


def bot_games(service: GameService[EventStore], clock: Clock, seeds: range,
              names: tuple[str, ...] = ("ann", "bob", "cy"),
              ) -> None:
    """Bot games played out at once (R: bots play by themselves), a second apart from the clock's time."""
    for seed in seeds:
        clock.now += timedelta(seconds=1)
        finished = service.playing.create_game([PlayerSeat(name=n, is_bot=True) for n in names], seed=seed)
        assert finished.state.status == "finished"


def won_lines(engine: Engine) -> list[GameLine]:
    with engine.connect() as conn:
        ids: list[str] = list(conn.execute(select(t.stats_games.c.game_id)).scalars())
        return [line for line in STATS.load(conn, ids).values() if won(line)]


def one_fold(engine: Engine) -> RatingsFold:
    """Every won game of the statistics' rows folded at once (as every read did before 0021)."""
    return fold_ratings(RatingsFold(), won_lines(engine))


def kept(engine: Engine) -> RatingsFold:
    with engine.connect() as conn:
        return read_fold(conn)


@pytest.fixture
def folded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many won games each fold of the ratings kept took."""
    taken: list[int] = []
    fold = ratings_table.fold_ratings

    def counted(kept_fold: RatingsFold, lines: list[GameLine]) -> RatingsFold:
        taken.append(len(lines))
        return fold(kept_fold, lines)

    monkeypatch.setattr(ratings_table, "fold_ratings", counted)
    return taken


def test_a_read_folds_only_the_games_won_since_the_last_and_keeps_what_one_fold_of_all_gives(
        service: GameService[EventStore], clock: Clock, folded: list[int]) -> None:
    engine = service.store.engine
    bot_games(service, clock, range(3))
    clock.now += timedelta(minutes=2)
    first = service.ratings()
    assert sum(folded) == 3 and kept(engine).taken == 3
    assert kept(engine).rows == one_fold(engine).rows  # mu and sigma to the last digit
    folded.clear()
    assert service.ratings() == first and sum(folded) == 0  # nothing new: nothing folded
    bot_games(service, clock, range(3, 5))
    clock.now += timedelta(minutes=2)
    later = service.ratings()
    assert sum(folded) == 2  # the two games won since, not five
    assert kept(engine).rows == one_fold(engine).rows and kept(engine).taken == 5
    assert [row.model_dump() for row in later.players] == [vars(row) for row in rating_rows(one_fold(engine))]
    assert sum(row.games for row in later.players) == 5 * 3


def test_games_won_in_the_last_minute_are_rated_in_the_answer_but_not_kept_yet(
        service: GameService[EventStore], clock: Clock) -> None:
    engine = service.store.engine
    bot_games(service, clock, range(2))
    clock.now += timedelta(minutes=2)
    service.ratings()
    bot_games(service, clock, range(2, 3))  # won a second ago
    answer = service.ratings()
    assert sum(row.games for row in answer.players) == 3 * 3  # rated in the answer
    assert kept(engine).taken == 2  # kept once settled
    assert [vars(row) for row in rating_rows(one_fold(engine))] == [row.model_dump() for row in answer.players]
    clock.now += timedelta(minutes=2)
    assert service.ratings() == answer and kept(engine).taken == 3


def test_a_game_won_before_the_last_one_kept_that_comes_in_late_has_the_ratings_folded_anew(
        service: GameService[EventStore], clock: Clock, folded: list[int]) -> None:
    engine = service.store.engine
    bot_games(service, clock, range(3))
    clock.now += timedelta(minutes=2)
    service.ratings()
    clock.now = T0 - timedelta(days=1)  # a game won the day before (as an import of an old game brings)
    bot_games(service, clock, range(3, 4), names=("ann", "dee"))
    clock.now = T0 + timedelta(minutes=5)
    folded.clear()
    answer = service.ratings()
    assert sum(folded) == 4  # every won game, in the order they were won: the late one first
    assert kept(engine).rows == one_fold(engine).rows and kept(engine).taken == 4
    assert [row.model_dump() for row in answer.players] == [vars(row) for row in rating_rows(one_fold(engine))]


def test_the_statistics_rebuild_empties_the_ratings_kept_and_the_next_read_gives_the_same(
        service: GameService[EventStore], clock: Clock) -> None:
    engine = service.store.engine
    bot_games(service, clock, range(3))
    clock.now += timedelta(minutes=2)
    before = service.ratings()
    service.statistics.catch_up_stats(rebuild=True)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(t.ratings)).scalar_one() == 0
        assert conn.execute(select(func.count()).select_from(t.ratings_folded)).scalar_one() == 0
    assert service.ratings() == before == service.ratings(rebuild=True)
    assert kept(engine).rows == one_fold(engine).rows


def test_no_won_game_keeps_nothing_and_rates_nobody(service: GameService[EventStore]) -> None:
    assert service.ratings().players == []
    assert kept(service.store.engine) == RatingsFold()


def test_ratings_of_a_read_only_file_are_folded_in_memory_and_nothing_is_written(tmp_path: Path) -> None:
    path, copy = tmp_path / "scat.db", tmp_path / "copy.db"
    clock = Clock()
    writer = open_database(migrated(f"sqlite:///{path}"), clock=clock)
    bot_games(writer, clock, range(2))
    clock.now += timedelta(minutes=2)
    writer.ratings()  # kept: two games
    bot_games(writer, clock, range(2, 4))
    clock.now += timedelta(minutes=2)
    writer.stats()  # the statistics see four games, the ratings kept two
    writer.store.engine.dispose()
    shutil.copyfile(path, copy)
    before = path.read_bytes()
    read_only = open_database(f"sqlite:///file:{path}?mode=ro&uri=true", clock=clock)
    writable = open_database(migrated(f"sqlite:///{copy}"), clock=clock)
    shown = read_only.ratings()
    assert sum(row.games for row in shown.players) == 4 * 3  # the four games, two of them folded in memory
    assert shown == writable.ratings()  # which keeps all four, as before
    assert read_only.ratings(rebuild=True) == writable.ratings(rebuild=True) == shown
    read_only.store.engine.dispose()
    writable.store.engine.dispose()
    assert path.read_bytes() == before


def test_the_ratings_of_some_players_read_only_their_rows_and_those_of_the_games_folded_for_the_answer(
        service: GameService[EventStore], clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = service.store.engine
    bot_games(service, clock, range(3))
    bot_games(service, clock, range(3, 5), names=("dee", "eve"))
    clock.now += timedelta(minutes=2)
    every = service.ratings().players
    read: list[set[str]] = []
    with_rows = ratings_table.with_rows

    def counted(conn: Any, step: Any, only: set[str] | None) -> RatingsFold:
        fold = with_rows(conn, step, only)
        read.append(set(fold.rows))
        return fold

    monkeypatch.setattr(ratings_table, "with_rows", counted)
    assert service.statistics.ratings_of(["ANN", "Eve"]).players == [r for r in every if r.name in ("ann", "eve")]
    assert read == [{"bot:ann", "bot:eve"}]  # not bob's, cy's or dee's
    read.clear()
    bot_games(service, clock, range(5, 6), names=("ann", "bob"))  # won a second ago: folded for the answer
    answer = service.statistics.ratings_of(["ann"]).players
    assert read == [{"bot:ann", "bot:bob"}]  # and bob's, whom that game rates
    assert [row.model_dump() for row in answer] == [vars(row) for row in rating_rows(one_fold(engine))
                                                    if row.name == "ann"]
    assert service.ratings("ANN").players == answer


def test_the_lobby_shows_the_kept_rating_of_each_player_seated_in_an_open_game(
        service: GameService[EventStore], clock: Clock) -> None:
    played = service.playing.create_game([PlayerSeat(name="Ann"), PlayerSeat(name="bob", is_bot=True)], seed=1)
    service.playing.act(played.game_id, Resign("Ann"))  # R27: bob wins, both are rated
    bot_games(service, clock, range(2), names=("ann", "cy"))  # a bot named ann: never the human's row
    clock.now += timedelta(minutes=2)
    service.new_game_of_accounts([PlayerSeat(name="ann")], viewer="ann", open_seats=1)
    [open_game] = service.games_page(status="open").games
    [human] = [row for row in service.ratings("ann").players if not row.is_bot]
    assert open_game.ratings == {"ann": human.rating}


def won_total(engine: Engine) -> tuple[int, int]:
    """The total of won games the statistics keep, and the won games their rows hold, counted."""
    with engine.connect() as conn:
        counted = conn.execute(select(func.count()).select_from(t.stats_games).where(won_rows())).scalar_one()
        return won_games(conn), counted


def test_the_statistics_keep_how_many_games_are_won_and_a_read_of_the_ratings_counts_none(
        service: GameService[EventStore], clock: Clock) -> None:
    engine = service.store.engine
    bot_games(service, clock, range(3))
    running = service.playing.create_game([PlayerSeat(name="Ann"), PlayerSeat(name="bob", is_bot=True)], seed=1)
    clock.now += timedelta(minutes=2)
    service.ratings()
    assert won_total(engine) == (3, 3)  # the running game's row is there, not won
    service.playing.act(running.game_id, Resign("Ann"))  # R27: its row is written again, won by bob
    bot_games(service, clock, range(3, 5))
    clock.now += timedelta(minutes=2)
    statements: list[str] = []
    listen = lambda *args: statements.append(args[2])  # noqa: E731 (before_cursor_execute's statement)
    event.listen(engine, "before_cursor_execute", listen)
    try:
        later = service.ratings()
        statements.clear()
        assert service.ratings() == later  # nothing new
    finally:
        event.remove(engine, "before_cursor_execute", listen)
    assert sum(row.games for row in later.players) == 5 * 3 + 2
    assert won_total(engine) == (6, 6)
    assert statements and not [s for s in statements if "count(" in s.lower()], statements
    service.statistics.catch_up_stats(rebuild=True)
    assert won_total(engine) == (6, 6)
    assert service.ratings() == later


def test_the_upgrade_to_0022_counts_the_won_games_already_there(db_url: str) -> None:
    engine = engine_at(db_url, "0021")
    try:
        with engine.begin() as conn:
            conn.execute(t.stats_games.insert(), [
                {"game_id": f"g{i}", "last_seq": 9, "finished": finished, "winner_key": winner, "hands": 1,
                 "knocker_key": None, "cancelled": cancelled, "ended_at": "2026-12-01T00:00:00Z"}
                for i, (finished, winner, cancelled) in enumerate([
                    (True, "ann", False), (True, "bob", False), (True, None, False),  # abandoned: no winner
                    (False, None, False), (True, "ann", True), (True, "cy", False)])
            ])
        assert upgrade(engine) == HEAD_REVISION
        assert won_total(engine) == (3, 3)
    finally:
        engine.dispose()
