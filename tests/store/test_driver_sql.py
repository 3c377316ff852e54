"""The hot path's statements on the driver's own cursor (driver_sql.py: a replay's read, a command's
load and lean append) behave as they did through SQLAlchemy: same rows, inside the unit of work's
transaction, seen by its listeners, failures as SQLAlchemy's errors (so scat's error mapping
holds: a lost race a ConcurrencyConflict, a read-only file DatabaseReadOnly), a lost
connection never handed out again. Every test runs twice: on the driver's kept cursor (the speed
trick) and through SQLAlchemy's public `exec_driver_sql` (its fallback)."""

from __future__ import annotations

import re
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, event, func, select, text
from sqlalchemy.exc import DBAPIError

from scat_cli.wiring import open_database
from scat_core.domain.bots import heuristic_move
from scat_core.domain.errors import NotFound
from scat_core.domain.events import Knocked, PlayerSeat
from scat_core.records.errors import ConcurrencyConflict, CorruptHistory, DatabaseReadOnly, StoreUnavailable
from scat_core.records.stored_log import RECORD_KEYS, StoredEvent
from scat_core.service import GameService
from scat_core.store.sql import driver_sql
from scat_core.store.sql import tables as t
from scat_core.store.sql.driver_sql import execute, fetch_all, placeholder
from scat_core.store.sql.event_store import EventStore
from tests.support.databases import migrated
from tests.support.store import SUMMARY, a_turn, new_game, tamper

BOTS = [PlayerSeat(name=n, is_bot=True) for n in ("ann", "bob", "cy")]


@pytest.fixture(autouse=True, params=["kept cursor", "public API"])
def statements_run_on(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test on the driver's kept cursor, then through SQLAlchemy's exec_driver_sql."""
    monkeypatch.setattr(driver_sql, "KEPT_CURSOR", request.param == "kept cursor")
    return str(request.param)


def test_the_kept_cursor_holds_on_the_sqlalchemy_release_it_was_written_for() -> None:
    """If this fails after an upgrade, statements run through exec_driver_sql: re-measure with
    tests/benchmarks/bench_store.py and adapt the trick to the new release or remove it."""
    import sqlalchemy

    assert int(sqlalchemy.__version__.split(".")[0]) in driver_sql.SQLALCHEMY_TESTED
    assert driver_sql.kept_cursor_holds()


def test_a_load_is_the_rows_sqlalchemy_reads_in_seq_order_up_to_a_seq(store: EventStore) -> None:
    game_id = GameService(store).playing.create_game(BOTS, seed=4).game_id
    with store.read() as tx:
        rows = tx.connection.execute(
            select(*(t.events.c[k] for k in RECORD_KEYS)).where(t.events.c.game_id == game_id).order_by(t.events.c.seq)
        ).all()
        loaded, part = tx.load(game_id), tx.load(game_id, up_to=5)
        unchecked = tx.load_unchecked(game_id)
    assert len(rows) > 20
    assert loaded == unchecked == StoredEvent.from_rows(rows)
    assert part == loaded[:5]
    assert [type(s.seq) for s in loaded] == [int] * len(loaded)
    with store.read() as tx, pytest.raises(NotFound):
        tx.load("nosuchgame")


def test_the_reads_of_one_unit_of_work_see_one_snapshot(store: EventStore) -> None:
    """A read unit of work on SQLite is one transaction: a game appended meanwhile by another
    unit of work is not seen by its later reads (on PostgreSQL each statement sees its own)."""
    with store.transaction() as tx:
        tx.append("g", 0, [Knocked(player="ann")])
    with store.read() as tx:
        assert len(tx.load("g")) == 1
        with store.transaction() as other:
            other.append("g", 1, [Knocked(player="bob")])
        seen = len(tx.load("g"))
    assert seen == (2 if store.engine.dialect.name == "postgresql" else 1)
    with store.read() as tx:
        assert len(tx.load("g")) == 2


@pytest.mark.parametrize("kind", ["read", "write"])
def test_a_driver_error_is_sqlalchemys_and_the_connection_stays_usable(engine: Engine, kind: str) -> None:
    with engine.connect() as conn:
        mark = placeholder(conn)
        with pytest.raises(DBAPIError) as raised:
            if kind == "read":
                fetch_all(conn, f"SELECT seq FROM no_such_table WHERE game_id = {mark}", ("g",))
            else:
                execute(conn, f"UPDATE no_such_table SET seq = 1 WHERE game_id = {mark}", ("g",))
        assert isinstance(raised.value.orig, conn.dialect.loaded_dbapi.Error)
        assert not raised.value.connection_invalidated
        conn.rollback()
        assert conn.execute(text("SELECT 1")).scalar_one() == 1
        assert fetch_all(conn, f"SELECT {mark}", (2,))[0][0] == 2  # and so does the driver's cursor


def test_a_connection_keeps_one_cursor_for_these_statements_until_it_goes(
    engine: Engine, statements_run_on: str
) -> None:
    """driver_sql reuses one cursor per connection (making one costs a quarter of a short statement):
    statement after statement, and unit of work after unit of work on that connection; a
    connection invalidated takes its cursor with it."""
    if statements_run_on != "kept cursor":
        pytest.skip("through exec_driver_sql SQLAlchemy makes a cursor per statement")
    seen: list[Any] = []

    def listener(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.startswith("SELECT "):  # not SQLite's BEGIN, on SQLAlchemy's own cursor
            seen.append(cursor)

    event.listen(engine, "before_cursor_execute", listener)
    with engine.connect() as conn:
        mark = placeholder(conn)
        assert fetch_all(conn, f"SELECT {mark}", (1,)) == [(1,)]
        assert fetch_all(conn, f"SELECT {mark}", (2,)) == [(2,)]
        conn.invalidate()
    with engine.connect() as conn:
        assert fetch_all(conn, f"SELECT {mark}", (3,)) == [(3,)]
    event.remove(engine, "before_cursor_execute", listener)
    assert seen[0] is seen[1] and seen[2] is not seen[0]


def test_an_unreadable_row_is_corrupt_history_not_a_driver_error(sqlite_url: str) -> None:
    """A row SQLite cannot decode (not UTF-8) is named damaged, through the driver's cursor too."""
    service = open_database(migrated(sqlite_url))
    game_id = service.playing.create_game(BOTS, seed=2).game_id
    tamper(sqlite_url, "UPDATE events SET data = CAST(x'7bff7d' AS TEXT) WHERE game_id = :g AND seq = 2", g=game_id)
    with pytest.raises(CorruptHistory, match="cannot be read back"):
        service.reading.history(game_id)
    service.store.engine.dispose()


@pytest.mark.postgres
def test_a_connection_lost_under_a_load_is_unavailable_and_never_handed_out_again(postgres_url: str) -> None:
    service = open_database(migrated(postgres_url))
    store = service.store
    game_id = service.playing.create_game(BOTS, seed=1).game_id
    with store.read() as tx:
        pid = tx.connection.connection.driver_connection.info.backend_pid  # type: ignore[union-attr]
    admin = create_engine(postgres_url)  # not the store's pool: that holds the connection to kill
    with admin.connect() as other:
        other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    admin.dispose()
    with pytest.raises(StoreUnavailable), store.read() as tx:
        tx.load(game_id)
    with store.read() as tx:  # a new connection: the lost one was invalidated
        assert tx.load(game_id)[0].seq == 1
    store.engine.dispose()


HUMANS = [PlayerSeat(name="ann"), PlayerSeat(name="bob")]


def _rows(engine: Engine, game_id: str) -> tuple[int, int, int | None, str | None]:
    """How many events and snapshots the game has, and the head its games row and snapshot record."""
    with engine.connect() as conn:
        events = conn.execute(select(func.count()).where(t.events.c.game_id == game_id)).scalar_one()
        snapshots = conn.execute(select(func.count()).where(t.game_snapshots.c.game_id == game_id)).scalar_one()
        head = conn.execute(select(t.games.c.head_seq).where(t.games.c.game_id == game_id)).scalar_one_or_none()
        kept = conn.execute(select(t.game_snapshots.c.hash).where(t.game_snapshots.c.game_id == game_id)).scalar()
    return events, snapshots, head, kept


def test_the_command_statements_are_seen_by_sqlalchemys_listeners(store: EventStore) -> None:
    """The load and the lean append run on the driver's cursor, yet a `before_cursor_execute`
    listener (a test counting round trips, a tracer) still sees each of them."""
    new_game(store)
    with store.transaction() as tx:
        tx.put_secret("g1", "seed", "salt")
    seen: list[str] = []

    def listener(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(" ".join(statement.split()))

    event.listen(store.engine, "before_cursor_execute", listener)
    with store.command() as tx:
        load = tx.load_for_command("g1")
        tx.append("g1", 1, a_turn(), SUMMARY, '{"a": 1}', load.head_hash)
    event.remove(store.engine, "before_cursor_execute", listener)
    # on PostgreSQL they name the game's partitions (partition_routing.py)
    assert any(re.search(r"FROM games(_p\d\d)? g LEFT JOIN game_snapshots", s) for s in seen), seen
    assert any(re.match(r"(UPDATE games SET head_seq|WITH moved AS \(UPDATE games(_p\d\d)? )", s) for s in seen), seen


def test_a_lean_append_onto_an_event_put_in_the_log_outside_scat_is_a_conflict_and_writes_nothing(
        store: EventStore) -> None:
    """UNIQUE (game_id, seq) decides on the driver's cursor as it did through SQLAlchemy: the
    driver's IntegrityError is still the domain's ConcurrencyConflict, and nothing is written."""
    new_game(store)
    with store.transaction() as tx:
        tx.put_secret("g1", "seed", "salt")
    with store.read() as tx:
        head = tx.head("g1")
    assert head is not None
    with store.engine.begin() as conn:  # event 2 put there outside scat; the games row still at event 1
        conn.execute(t.events.insert().values(game_id="g1", seq=2, type="Knocked", schema_version=1,
                                              data='{"player":"bob"}', recorded_at="2026-01-01T00:00:00Z",
                                              prev_hash=head[1], hash="e" * 64))
    before = _rows(store.engine, "g1")
    with pytest.raises(ConcurrencyConflict, match="event 2 already exists"), store.command() as tx:
        tx.append("g1", 1, a_turn(), SUMMARY, '{"a": 1}', head[1])
    assert _rows(store.engine, "g1") == before == (2, 0, 1, None)


def test_a_command_on_a_read_only_sqlite_file_is_database_read_only(sqlite_url: str) -> None:
    """#14 item 8 as before: the lean append's write refused by SQLite (on the driver's cursor) is
    DatabaseReadOnly, and the file is left as it was."""
    service = open_database(migrated(sqlite_url))
    game = service.playing.create_game(HUMANS, seed=5)
    service.store.engine.dispose()
    path = sqlite_url.removeprefix("sqlite:///")
    read_only = open_database(migrated(f"sqlite:///file:{path}?mode=ro&uri=true"))
    state = read_only.playing.look(game.game_id)
    assert state.turn is not None
    command = heuristic_move(state, state.turn)
    assert command is not None
    with pytest.raises(DatabaseReadOnly, match="read-only"):
        read_only.playing.act(game.game_id, command)
    assert read_only.playing.look(game.game_id).version == state.version
    read_only.store.engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("lost_before", ["load", "append"])
def test_a_connection_lost_in_a_command_is_unavailable_writes_nothing_and_is_never_handed_out_again(
        postgres_url: str, lost_before: str) -> None:
    service = open_database(migrated(postgres_url))
    store = service.store
    game = service.playing.create_game(HUMANS, seed=1)
    before = _rows(store.engine, game.game_id)
    admin = create_engine(postgres_url)  # not the store's pool: that holds the connection to kill

    def kill(tx: Any) -> None:
        pid = tx.connection.connection.driver_connection.info.backend_pid
        with admin.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})

    with pytest.raises(StoreUnavailable), store.command() as tx:
        if lost_before == "load":
            kill(tx)
        load = tx.load_for_command(game.game_id)
        kill(tx)
        tx.append(game.game_id, game.state.version, [Knocked(player="ann")], SUMMARY, None, load.head_hash)
    admin.dispose()
    assert _rows(store.engine, game.game_id) == before
    state = service.playing.look(game.game_id)  # a new connection: the lost one was invalidated
    assert state.turn is not None
    command = heuristic_move(state, state.turn)
    assert command is not None
    assert service.playing.act(game.game_id, command).events
    assert service.audit(game.game_id).ok
    store.engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("ending", ["clean", "conflict", "lost"])
def test_a_command_hands_its_connection_back_in_transactions_or_not_at_all(postgres_url: str, ending: str) -> None:
    """A command runs in autocommit on PostgreSQL (driver_sql.autocommit): however it ends, the
    pool never hands that connection out again in autocommit, where the writes of a
    transaction() would each commit alone."""
    service = open_database(migrated(postgres_url))
    store = service.store
    game = service.playing.create_game(HUMANS, seed=3)
    admin = create_engine(postgres_url)
    expected: AbstractContextManager[Any] = nullcontext()
    if ending != "clean":
        expected = pytest.raises(ConcurrencyConflict if ending == "conflict" else StoreUnavailable)
    with expected, store.command() as tx:
        driver: Any = tx.connection.connection.driver_connection
        assert driver.autocommit
        load = tx.load_for_command(game.game_id)
        if ending == "lost":
            with admin.connect() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": driver.info.backend_pid})
        seen = "0" * 64 if ending == "conflict" else load.head_hash
        tx.append(game.game_id, game.state.version, [Knocked(player="ann")], SUMMARY, None, seen)
    admin.dispose()
    with store.read() as tx:  # a read too runs in autocommit, and hands its connection back as it found it
        assert tx.connection.connection.driver_connection.autocommit  # type: ignore[union-attr]
    with store.engine.connect() as conn:  # as transaction() takes one
        again: Any = conn.connection.driver_connection
        assert not again.autocommit
        assert again is not driver if ending == "lost" else again is driver
    assert len(service.reading.history(game.game_id)) == game.state.version + (ending == "clean")
    store.engine.dispose()
