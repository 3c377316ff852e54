"""Several processes writing the same games at once, on SQLite and on PostgreSQL.

Workers are separate interpreters (multiprocessing 'spawn'), each with its own engine,
released together by a barrier. Afterwards nothing may be lost or duplicated: every game's
seqs run 1..N, its hash chain holds, it audits, its read model agrees with its log, and the
commands the workers saw succeed are exactly the commands the log records.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from sqlalchemy import text

from scat_cli.wiring import open_database
from scat_core.domain.events import Knocked, PlayerSeat
from scat_core.records.errors import ConcurrencyConflict
from scat_core.store.sql.database import make_engine
from scat_core.store.sql.event_store import EventStore, StoreTransaction
from tests.support import workers
from tests.support.checks import audit_problems, commands_in_log, structural_problems
from tests.support.databases import migrated
from tests.support.workers import Tally

SPAWN = multiprocessing.get_context("spawn")
HUMANS = tuple(PlayerSeat(name=name) for name in ("ann", "bob", "cy"))
PLAY_SECONDS = 12.0  # a safety bound: the games normally end well before
JOIN_TIMEOUT_S = 90.0


def run_processes(target: Callable[..., None], arguments: Sequence[tuple[Any, ...]]) -> list[Any]:
    """Start one spawned process per argument tuple (each gets the results queue last)."""
    results = SPAWN.Queue()
    processes = [SPAWN.Process(target=target, args=(*args, results)) for args in arguments]
    for process in processes:
        process.start()
    try:
        collected = [results.get(timeout=JOIN_TIMEOUT_S) for _ in processes]
    finally:
        for process in processes:
            process.join(JOIN_TIMEOUT_S)
            if process.is_alive():
                process.kill()
    assert [p.exitcode for p in processes] == [0] * len(processes)
    return collected


def hammer(db_url: str, games: int, processes: int) -> None:
    """`processes` workers play `games` games of three humans at once, then check everything."""
    service = open_database(migrated(db_url))
    created = {}
    for number in range(games):
        outcome = service.playing.create_game(HUMANS, seed=1000 + number)
        created[outcome.game_id] = outcome.events[-1].seq
    barrier = SPAWN.Barrier(processes)
    tallies: list[Tally] = run_processes(
        workers.hammer,
        [(db_url, list(created), worker, barrier, PLAY_SECONDS) for worker in range(processes)],
    )

    assert structural_problems(service.store.engine) == []
    assert audit_problems(service, created) == []
    for tally in tallies:
        assert tally.attempts == len(tally.wins) + tally.conflicts + tally.stale
    for game_id, created_up_to in created.items():
        wins = sorted((first, last) for g, first, last in
                      (win for tally in tallies for win in tally.wins) if g == game_id)
        # Every event after the creation was appended by exactly one successful command.
        next_seq = created_up_to + 1
        for first, last in wins:
            assert first == next_seq, f"game {game_id}: a win starts at {first}, not {next_seq}"
            next_seq = last + 1
        history = service.reading.history(game_id)
        assert next_seq == len(history) + 1
        assert [e.seq for e in history] == list(range(1, len(history) + 1))
        assert len(wins) == commands_in_log(service, game_id)
        row = next(g for g in service.reading.list_games() if g.game_id == game_id)
        assert (row.head_seq, row.head_hash) == (history[-1].seq, history[-1].hash)
    lost_races = sum(t.conflicts + t.stale for t in tallies)
    assert lost_races > 0, "the workers never raced: the test proved nothing"
    print(f"\n{service.store.engine.dialect.name}: {games} game(s), {processes} processes: "
          f"{sum(len(t.wins) for t in tallies)} commands won, "
          f"{sum(t.conflicts for t in tallies)} ConcurrencyConflict, "
          f"{sum(t.stale for t in tallies)} rejected as no longer legal")
    service.store.engine.dispose()


@pytest.mark.slow
def test_several_processes_hammering_one_game_lose_and_duplicate_nothing(db_url: str) -> None:
    hammer(db_url, games=1, processes=4)


@pytest.mark.slow
def test_several_processes_hammering_several_games_at_once_lose_and_duplicate_nothing(
    db_url: str,
) -> None:
    hammer(db_url, games=3, processes=4)


@pytest.mark.slow
def test_racing_transactions_with_the_same_expected_seq_one_wins_the_others_write_nothing(
    db_url: str,
) -> None:
    racers, rounds = 4, 8
    service = open_database(migrated(db_url))
    barrier = SPAWN.Barrier(racers)
    names = [f"racer{i}" for i in range(racers)]
    results: list[tuple[str, list[str]]] = run_processes(
        workers.race_appends, [(db_url, "race", rounds, name, barrier) for name in names]
    )

    by_name = dict(results)
    winners = []
    for index in range(rounds):
        won = [name for name in names if by_name[name][index] == "won"]
        assert len(won) == 1, f"round {index + 1}: {won} won"
        assert all(by_name[name][index] == "conflict" for name in names if name not in won)
        winners.append(won[0])
    history = service.reading.history("race")
    # Only the winners' events are in the log, one per round, chained; the losers left nothing.
    assert [(e.seq, e.data["player"]) for e in history] == list(enumerate(winners, start=1))
    assert structural_problems(service.store.engine, seeds=False) == []
    service.store.engine.dispose()


@pytest.mark.parametrize("first_ends_with", ["commit", "rollback"])
def test_on_postgresql_a_writer_waiting_on_the_same_seq_loses_only_if_the_first_commits(
    postgres_url: str, first_ends_with: str
) -> None:
    engine = make_engine(postgres_url)
    service = open_database(migrated(postgres_url))
    store = EventStore(engine)
    with store.transaction() as tx:
        tx.append("g", 0, [Knocked(player="setup")])
    second_pid: list[int] = []
    second_result: list[str] = []

    def second_writer() -> None:
        with engine.connect() as conn:
            second_pid.append(int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one()))
            conn.commit()
            try:
                with conn.begin():
                    StoreTransaction(conn).append("g", 1, [Knocked(player="second")])
                second_result.append("won")
            except ConcurrencyConflict:
                second_result.append("conflict")

    with engine.connect() as first_conn:
        first_tx = first_conn.begin()
        (first_event,) = StoreTransaction(first_conn).append("g", 1, [Knocked(player="first")])
        thread = threading.Thread(target=second_writer)
        thread.start()
        wait_until_blocked_on_a_lock(engine, second_pid)
        getattr(first_tx, first_ends_with)()
    thread.join(30)

    history = service.reading.history("g")
    row = next(g for g in service.reading.list_games() if g.game_id == "g")
    if first_ends_with == "commit":
        assert second_result == ["conflict"]
        assert [e.data["player"] for e in history] == ["setup", "first"]
        assert row.head_hash == first_event.hash
    else:
        assert second_result == ["won"]
        assert [e.data["player"] for e in history] == ["setup", "second"]
    assert structural_problems(engine, seeds=False) == []
    engine.dispose()
    service.store.engine.dispose()


def wait_until_blocked_on_a_lock(engine: Any, pid_holder: list[int], timeout: float = 20) -> None:
    """Poll pg_stat_activity until the backend in `pid_holder` waits on a lock."""
    deadline = time.monotonic() + timeout
    with engine.connect() as watcher:
        while time.monotonic() < deadline:
            if pid_holder:
                waiting = watcher.execute(
                    text("SELECT wait_event_type FROM pg_stat_activity WHERE pid = :pid"),
                    {"pid": pid_holder[0]},
                ).scalar_one_or_none()
                watcher.rollback()
                if waiting == "Lock":
                    return
            time.sleep(0.005)
    raise AssertionError("the second writer never waited for the first")
