"""The stats projection under concurrent writers: every event folded exactly once.

Writers play games in threads while projectors catch up in others; afterwards the events
folded add up to exactly the log's, and the rows equal a rebuild from the events.
"""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select, text

from scat_core.domain.bots import heuristic_move
from scat_core.domain.errors import RuleViolation
from scat_core.domain.events import PlayerSeat
from scat_core.domain.stats import HANDLED_TYPES
from scat_core.records.errors import ConcurrencyConflict
from scat_core.service import GameService
from scat_core.store.sql import tables as t
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.projections import STATS, catch_up
from tests.support.databases import migrated
from tests.support.store import projection_rows

WRITERS = 3
PROJECTORS = 2
SECONDS = 4.0


def writer(service: GameService, worker: int, stop: threading.Event, errors: list[BaseException]) -> None:
    """Create games of two humans and a bot and play them move by move until told to stop."""
    rng = random.Random(worker)
    try:
        while not stop.is_set():
            lineup = [PlayerSeat(name=f"p{worker}"), PlayerSeat(name=rng.choice(["Ann", "ANN", "bob"])),
                      PlayerSeat(name="bot", is_bot=True)]
            game_id = service.playing.create_game(lineup, seed=rng.randrange(10**6)).game_id
            for _ in range(40):
                if stop.is_set():
                    return
                state = service.playing.look(game_id)
                if state.status == "finished" or state.turn is None:
                    break
                command = heuristic_move(state, state.turn)
                assert command is not None
                try:
                    service.playing.act(game_id, command)
                except (ConcurrencyConflict, RuleViolation):
                    pass
    except BaseException as exc:  # reported by the test
        errors.append(exc)


def projector(service: GameService, folded: list[int], stop: threading.Event, errors: list[BaseException]) -> None:
    """Catch the stats up again and again, adding up the events each catch-up folded."""
    try:
        while not stop.is_set():
            try:
                folded.append(catch_up(service.store.engine, STATS).events)
            except ConcurrencyConflict:
                continue
            time.sleep(0.01)
    except BaseException as exc:
        errors.append(exc)


@pytest.mark.slow
def test_racing_writers_and_projectors_fold_every_event_exactly_once(store: EventStore) -> None:
    service = GameService(store)
    stop = threading.Event()
    folded: list[int] = []
    errors: list[BaseException] = []
    threads = [threading.Thread(target=writer, args=(service, w, stop, errors)) for w in range(WRITERS)]
    threads += [threading.Thread(target=projector, args=(service, folded, stop, errors)) for _ in range(PROJECTORS)]
    for thread in threads:
        thread.start()
    time.sleep(SECONDS)
    stop.set()
    for thread in threads:
        thread.join(60)
    assert errors == []
    folded.append(catch_up(store.engine, STATS).events)
    with store.engine.connect() as conn:
        relevant = conn.execute(
            select(func.count()).select_from(t.events).where(t.events.c.type.in_(sorted(HANDLED_TYPES)))
        ).scalar_one()
        games = conn.execute(select(func.count()).select_from(t.games)).scalar_one()
    assert games >= WRITERS and sum(folded) == relevant
    assert len([n for n in folded if n]) > 1  # the projection caught up while games were played
    current = projection_rows(store.engine)
    catch_up(store.engine, STATS, rebuild=True)
    assert projection_rows(store.engine) == current
    assert len(current[0]) == games


@pytest.mark.postgres
def test_a_writer_still_running_with_earlier_positions_is_read_later_not_skipped(postgres_url: str) -> None:
    """PostgreSQL: positions come from a sequence before commit, so a later position can commit
    first; a checkpoint moved past it would skip the earlier one for ever."""
    from scat_core.store.sql.database import make_engine

    engine = make_engine(migrated(postgres_url))
    service = GameService(EventStore(engine))
    first = service.playing.create_game([PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True)],
                                        seed=1)
    records = service.archive.export_records(first.game_id)
    catch_up(engine, STATS)
    with service.store.transaction() as held:  # a writer that has inserted but not committed yet
        held.append_raw([{**record, "game_id": "held"} for record in records])
        later = service.playing.create_game([PlayerSeat(name="cy", is_bot=True), PlayerSeat(name="dan", is_bot=True)],
                                            seed=2)
        with engine.connect() as conn:
            positions = dict(conn.execute(
                select(t.events.c.game_id, func.max(t.events.c.position)).group_by(t.events.c.game_id)
            ).all())
        assert positions[later.game_id] > positions[first.game_id]  # committed after the held rows' positions
        catch_up(engine, STATS)
        games, _ = projection_rows(engine)
        assert sorted(g[0] for g in games) == sorted([first.game_id, later.game_id])  # read your writes
    catch_up(engine, STATS)
    games, players = projection_rows(engine)
    assert sorted(g[0] for g in games) == sorted([first.game_id, later.game_id, "held"])
    catch_up(engine, STATS, rebuild=True)
    assert projection_rows(engine) == (games, players)
    engine.dispose()


@pytest.mark.postgres
def test_a_long_transaction_elsewhere_does_not_hold_back_a_finished_game(postgres_url: str) -> None:
    """An unrelated transaction that began before a game was written does not hide that game."""
    from scat_core.store.sql.database import make_engine

    engine = make_engine(migrated(postgres_url))
    service = GameService(EventStore(engine))
    with engine.connect() as idle, idle.begin():
        idle.execute(text("SELECT pg_current_xact_id()"))  # holds an old transaction id open
        service.playing.create_game([PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True)], seed=1)
        assert service.stats().overall.games_played == 1
    engine.dispose()


@pytest.mark.postgres
def test_writers_never_wait_for_a_catch_up_in_progress(postgres_url: str) -> None:
    """PostgreSQL: a projector holds its lock and snapshot while games are written and read."""
    from scat_core.store.sql.database import make_engine
    from scat_core.store.sql.projections import projector

    engine = make_engine(migrated(postgres_url))
    service = GameService(EventStore(engine))
    def write() -> None:
        outcome = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], seed=3)
        state = outcome.state
        command = heuristic_move(state, state.turn) if state.turn is not None else None
        assert command is not None
        service.playing.act(outcome.game_id, command)

    pool = ThreadPoolExecutor(1)
    with projector(engine, STATS.name) as conn:
        conn.execute(select(func.count()).select_from(t.events)).scalar_one()  # its snapshot is taken
        # the projector keeps its lock until this block ends: a writer waiting for it would wait
        # here for ever, so the writes done while it is held did not wait (120 s: a hang guard)
        pool.submit(write).result(timeout=120)
    pool.shutdown(wait=False)
    assert service.stats(player="you").players[0].games_in_progress == 1
    engine.dispose()
