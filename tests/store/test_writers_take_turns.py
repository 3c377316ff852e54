"""An SQLite database's writers in one process take turns on a lock of the process's own
(database.one_writer), so that none of them waits in SQLite's busy handler, which sleeps up to
100 ms between tries: a server's concurrent moves were served in bursts, the last a second late."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from scat_cli.wiring import open_database
from scat_core.domain.bots import heuristic_move
from scat_core.domain.events import PlayerSeat
from scat_core.records.errors import DatabaseBusy
from scat_core.store.sql import database
from scat_core.store.sql.account_log import SqlAccountLog
from scat_core.store.sql.database import BUSY_ENV_VAR, one_writer
from tests.support.databases import migrated

THREADS, NONCE_THREADS, MOVES = 6, 2, 12


def test_concurrent_writers_of_one_process_never_meet_sqlites_lock(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """With no busy wait at all (0 s), a writer that met another's lock would fail at once
    (DatabaseBusy); taking turns, every move of every thread lands, and so does every signed
    request's nonce and the stats projection's catch-up written between them."""
    monkeypatch.setenv(BUSY_ENV_VAR, "0")
    service = open_database(migrated(f"sqlite:///{tmp_path / 'scat.db'}"))
    games = [service.playing.create_game([PlayerSeat(name=f"p{i}"), PlayerSeat(name=f"q{i}")], seed=i).game_id
             for i in range(THREADS)]
    start, failures = threading.Barrier(THREADS + NONCE_THREADS), list[BaseException]()

    def play(game_id: str) -> None:
        start.wait()
        try:
            for _ in range(MOVES):
                state = service.playing.look(game_id, record=False)
                assert state.turn is not None
                command = heuristic_move(state, state.turn)
                assert command is not None
                service.playing.act(game_id, command)
        except BaseException as error:  # noqa: BLE001 - reported below, with the thread's game
            failures.append(error)

    log = SqlAccountLog(service.store.engine)

    def use_nonces(index: int) -> None:  # a server's signed requests, between the moves
        start.wait()
        try:
            for count in range(MOVES):
                assert log.use_nonce(f"key{index}", f"nonce{count}", expires_at=2_000_000_000, now=1_700_000_000)
            service.store.catch_up_stats()  # the stats projection writes too
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = [threading.Thread(target=play, args=(game_id,)) for game_id in games]
    threads += [threading.Thread(target=use_nonces, args=(index,)) for index in range(NONCE_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert all(service.reading.history(game_id)[-1].seq >= MOVES for game_id in games)
    service.store.engine.dispose()


def test_the_lock_is_reentrant_makes_another_threads_write_wait_and_holds_no_read(tmp_path: Path) -> None:
    service = open_database(migrated(f"sqlite:///{tmp_path / 'scat.db'}"))
    engine = service.store.engine
    read, wrote = threading.Event(), threading.Event()

    def read_once() -> None:
        with one_writer(engine, write=False):
            read.set()

    def write_once() -> None:
        with one_writer(engine):
            wrote.set()

    with one_writer(engine), one_writer(engine):  # re-entrant on one thread
        reader, writer = threading.Thread(target=read_once), threading.Thread(target=write_once)
        reader.start()
        writer.start()
        reader.join()
        assert read.is_set()  # a read takes no turn
        assert not wrote.wait(0.2)  # another thread's write waits for its turn
    writer.join()
    assert wrote.is_set()
    engine.dispose()


def test_a_writer_that_waits_longer_than_its_patience_for_its_turn_is_told_the_database_is_busy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn held too long (a stats rebuild, say) is DatabaseBusy for the next writer, as SQLite's own
    busy wait was, not a wait without end."""
    monkeypatch.setenv(BUSY_ENV_VAR, "0")
    monkeypatch.setattr(database, "TURN_PATIENCE", 0.05)
    service = open_database(migrated(f"sqlite:///{tmp_path / 'scat.db'}"))
    refused: list[BaseException] = []

    def write() -> None:
        try:
            with one_writer(service.store.engine):
                pass
        except DatabaseBusy as error:
            refused.append(error)

    with one_writer(service.store.engine):
        other = threading.Thread(target=write)
        other.start()
        other.join()
    assert len(refused) == 1 and "other writers held it" in str(refused[0])
    service.store.engine.dispose()
