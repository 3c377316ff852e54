"""A game's log read on the driver's own cursor (driver_reads.py) behaves as a read through
SQLAlchemy did: same rows, inside the unit of work's transaction, failures as SQLAlchemy's
errors (so scat's error mapping holds), a lost connection never handed out again."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, create_engine, select, text
from sqlalchemy.exc import DBAPIError

from scat_core.domain.errors import NotFound
from scat_core.domain.events import Knocked, PlayerSeat
from scat_core.service import GameService
from scat_core.store import tables as t
from scat_core.store.driver_reads import fetch_all, placeholder
from scat_core.store.errors import CorruptHistory, StoreUnavailable
from scat_core.store.event_store import EventStore
from scat_core.store.records import RECORD_KEYS, StoredEvent
from tests.support.store import tamper

BOTS = [PlayerSeat(name=n, is_bot=True) for n in ("ann", "bob", "cy")]


def test_a_load_is_the_rows_sqlalchemy_reads_in_seq_order_up_to_a_seq(store: EventStore) -> None:
    game_id = GameService(store).create_game(BOTS, seed=4).game_id
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


def test_a_driver_error_is_sqlalchemys_and_the_connection_stays_usable(engine: Engine) -> None:
    with engine.connect() as conn:
        statement = f"SELECT seq FROM no_such_table WHERE game_id = {placeholder(conn)}"
        with pytest.raises(DBAPIError) as raised:
            fetch_all(conn, statement, ("g",))
        assert isinstance(raised.value.orig, conn.dialect.loaded_dbapi.Error)
        assert not raised.value.connection_invalidated
        conn.rollback()
        assert conn.execute(text("SELECT 1")).scalar_one() == 1


def test_an_unreadable_row_is_corrupt_history_not_a_driver_error(sqlite_url: str) -> None:
    """#14 item 8: a row SQLite cannot decode (not UTF-8) is named damaged, through the driver's cursor too."""
    service = GameService.open(sqlite_url)
    game_id = service.create_game(BOTS, seed=2).game_id
    tamper(sqlite_url, "UPDATE events SET data = CAST(x'7bff7d' AS TEXT) WHERE game_id = :g AND seq = 2", g=game_id)
    with pytest.raises(CorruptHistory, match="cannot be read back"):
        service.history(game_id)
    service.store.engine.dispose()


@pytest.mark.postgres
def test_a_connection_lost_under_a_load_is_unavailable_and_never_handed_out_again(postgres_url: str) -> None:
    service = GameService.open(postgres_url)
    store = service.store
    game_id = service.create_game(BOTS, seed=1).game_id
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
