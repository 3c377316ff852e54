"""Push on PostgreSQL: the store announces each new head of a game, whatever wrote it (a move from
its one statement, any other write once committed), and a waiter finds a committed write even
when its notice was lost (#13, #23 item 2)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, event, text
from sqlalchemy.engine import Connection

from scat_core.domain.bots import heuristic_move
from scat_core.domain.commands import Draw, Resign
from scat_core.domain.events import PlayerSeat
from scat_core.records.errors import ConcurrencyConflict
from scat_core.service.games import GameService
from scat_core.store.memory import MemoryStore
from scat_core.store.sql import notify
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.notify import Listener, wait_for_head
from tests.support.databases import migrated
from tests.support.store import a_turn

HUMAN_AND_BOT = [PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)]
BOTS = [PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True)]


@pytest.fixture
def pg_engine(postgres_url: str) -> Iterator[Engine]:
    """A PostgreSQL engine on a freshly migrated schema."""
    from scat_core.store.sql.database import make_engine

    engine = make_engine(migrated(postgres_url))
    yield engine
    engine.dispose()


@pytest.fixture
def listener(pg_engine: Engine) -> Iterator[Listener]:
    """A connection LISTENing on the store's channel."""
    listening = Listener(pg_engine)
    yield listening
    listening.close()


def heard(listener: Listener, *game_ids: str, seconds: float = 1.0) -> list[tuple[str, int]]:
    """The notices about `game_ids` that arrive within `seconds` (the channel is the whole
    database's: other tests' schemas announce their games on it too)."""
    return [notice for notice in listener.notices(seconds) if notice[0] in game_ids]


def head(engine: Engine, game_id: str) -> int:
    """The game's head as another connection sees it (committed only)."""
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT head_seq FROM games WHERE game_id = :g"), {"g": game_id}).scalar_one())


@pytest.mark.postgres
def test_every_write_path_announces_the_new_head_once_committed(pg_engine: Engine, listener: Listener) -> None:
    games = GameService(EventStore(pg_engine))
    created = games.playing.create_game(HUMAN_AND_BOT, seed=3)  # a new game (a transaction), then the bots (a command)
    notices = heard(listener, created.game_id)
    assert notices[-1] == (created.game_id, head(pg_engine, created.game_id))
    assert [seq for _, seq in notices] == sorted({seq for _, seq in notices})  # each head once, in order

    games.playing.act(created.game_id, Draw("you", "stock"))  # the player's move and the bots' answer: one statement
    assert heard(listener, created.game_id)[-1] == (created.game_id, head(pg_engine, created.game_id))
    games.playing.act(created.game_id, Resign("you"))
    assert heard(listener, created.game_id) == [(created.game_id, head(pg_engine, created.game_id))]

    elsewhere = GameService(MemoryStore(games.store.keys))
    finished = elsewhere.playing.create_game(BOTS, seed=5)  # bots only: over at once
    assert games.import_records(elsewhere.export(finished.game_id).records).ok  # the bulk path (append_many)
    assert heard(listener, finished.game_id) == [(finished.game_id, head(pg_engine, finished.game_id))]

    other = elsewhere.playing.create_game(BOTS, seed=6)
    with games.store.transaction() as tx:
        records = elsewhere.export(other.game_id).records
        tx.append_raw(records)  # exported records verbatim
    assert heard(listener, other.game_id) == [(other.game_id, int(records[-1]["seq"]))]


@pytest.mark.postgres
def test_nothing_is_announced_for_a_write_rolled_back_or_refused(pg_engine: Engine, listener: Listener) -> None:
    games = GameService(EventStore(pg_engine))
    created = games.playing.create_game(HUMAN_AND_BOT, seed=3)
    heard(listener, created.game_id, seconds=0.5)
    version = games.head_seq(created.game_id)
    with pytest.raises(RuntimeError, match="changed my mind"), games.store.transaction() as tx:
        tx.append(created.game_id, version, a_turn("you"))
        raise RuntimeError("changed my mind")
    with pytest.raises(ConcurrencyConflict), games.store.transaction() as tx:
        tx.append(created.game_id, version - 1, a_turn("you"))
    assert heard(listener, created.game_id, seconds=0.5) == []
    assert head(pg_engine, created.game_id) == version


@pytest.mark.postgres
def test_a_move_and_the_bots_reply_send_one_notice_from_their_one_statement_without_a_round_trip_after(
    pg_engine: Engine, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notice is inside the move's own write: no statement, no transaction of its own."""
    games = GameService(EventStore(pg_engine))
    created = games.playing.create_game(HUMAN_AND_BOT, seed=3)
    state = games.playing.act(created.game_id, Draw("you", "stock")).state
    discard = heuristic_move(state, 0)  # then the bot answers
    assert discard is not None
    heard(listener, created.game_id, seconds=0.5)
    statements: list[str] = []
    sent: list[dict[str, int]] = []
    monkeypatch.setattr(notify, "send", lambda driver, heads: sent.append(heads))
    def before(conn: Connection, cursor: object, statement: str, *args: object) -> None:
        statements.append(statement)

    event.listen(pg_engine, "before_cursor_execute", before)
    try:
        outcome = games.playing.act(created.game_id, discard)
    finally:
        event.remove(pg_engine, "before_cursor_execute", before)
    final = head(pg_engine, created.game_id)
    assert any(e.data.get("player") == "ann" for e in outcome.events)  # the bot did answer
    writes = [s for s in statements if s.lstrip().upper().startswith(("INSERT", "UPDATE", "WITH"))]
    assert len(statements) == 2 and len(writes) == 1 and "pg_notify" in writes[0]  # the load, the write
    assert sent == []  # no announcement after it
    assert heard(listener, created.game_id) == [(created.game_id, final)]


@pytest.mark.postgres
def test_any_other_write_announces_after_its_commit_not_inside_it(
    pg_engine: Engine, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that is not a move (here exported records appended verbatim) NOTIFYs once committed."""
    games = GameService(EventStore(pg_engine))
    elsewhere = GameService(MemoryStore(games.store.keys))
    records = elsewhere.export(elsewhere.playing.create_game(BOTS, seed=6).game_id).records
    game_id = str(records[0]["game_id"])
    seen: list[tuple[str, int]] = []

    def before(conn: Connection, cursor: object, statement: str, *args: object) -> None:
        assert "pg_notify" not in statement  # the write does not notify (nor a trigger: see the schema tests)
        if statement.lstrip().upper().startswith(("INSERT", "UPDATE", "WITH")):
            seen.append(("write", 0))

    def send(driver: Any, heads: dict[str, int]) -> None:
        assert driver.info.transaction_status == psycopg.pq.TransactionStatus.IDLE  # no transaction open
        seen.append(("notify", head(pg_engine, game_id)))  # committed already, as others see it
        real_send(driver, heads)

    real_send = notify.send
    monkeypatch.setattr(notify, "send", send)
    event.listen(pg_engine, "before_cursor_execute", before)
    try:
        with games.store.transaction() as tx:
            tx.append_raw(records)
    finally:
        event.remove(pg_engine, "before_cursor_execute", before)
    final = int(records[-1]["seq"])
    assert [kind for kind, _ in seen if kind == "notify"] == ["notify"] and seen[-1] == ("notify", final)
    assert heard(listener, game_id) == [(game_id, final)]


@pytest.mark.postgres
def test_a_notice_wakes_a_waiter_at_once(pg_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    # the waiter looks at the head only every hour: only the notice can wake it within its 30 s
    monkeypatch.setattr("scat_core.store.sql.notify.PUSHED_POLL_SECONDS", 3600.0)
    games = GameService(EventStore(pg_engine))
    created = games.playing.create_game(HUMAN_AND_BOT, seed=3)
    before = games.head_seq(created.game_id)
    with ThreadPoolExecutor(1) as pool:
        waiter = pool.submit(games.wait_for_event, created.game_id, before, 30.0)
        time.sleep(0.5)  # the waiter is listening
        assert not waiter.done()
        games.playing.act(created.game_id, Draw("you", "stock"))
        assert waiter.result(timeout=120.0) is True  # woken before its own 30 s were up (120 s: a hang guard)


@pytest.mark.postgres
def test_a_committed_write_whose_notice_was_lost_still_reaches_the_waiter(
    pg_engine: Engine, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash between a write's commit and its notice: the waiter finds it by looking at the head."""
    monkeypatch.setattr("scat_core.store.sql.notify.PUSHED_POLL_SECONDS", 0.5)
    games = GameService(EventStore(pg_engine))
    created = games.playing.create_game(HUMAN_AND_BOT, seed=3)
    before = games.head_seq(created.game_id)
    heard(listener, created.game_id, seconds=0.5)
    monkeypatch.setattr("scat_core.store.sql.event_store.announce", lambda conn, heads: None)  # every notice lost
    with ThreadPoolExecutor(1) as pool:
        waiter = pool.submit(games.wait_for_event, created.game_id, before, 30.0)
        time.sleep(0.3)
        with games.store.transaction() as tx:  # a write announced after its commit (a move's is in its statement)
            tx.append(created.game_id, before, a_turn("you"))
        assert heard(listener, created.game_id, seconds=0.2) == []  # no notice went out
        # found by looking at the head, before the waiter's own 30 s were up (120 s: a hang guard)
        assert waiter.result(timeout=120.0) is True


@pytest.mark.postgres
def test_a_notice_that_cannot_be_sent_leaves_the_write_standing(
    pg_engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    games = GameService(EventStore(pg_engine))
    monkeypatch.setattr("scat_core.store.sql.notify.ANNOUNCE_ONE", "SELECT pg_notify(%s, no_such_column)")
    created = games.playing.create_game(HUMAN_AND_BOT, seed=3)  # a new game: announced after its commit
    assert head(pg_engine, created.game_id) == created.state.version
    assert "could not announce new events of " + created.game_id in caplog.text


def test_a_waiter_wakes_when_the_head_moves_and_times_out_otherwise(engine: Engine) -> None:
    games = GameService(EventStore(engine))
    created = games.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], seed=3)
    head_seq = games.head_seq(created.game_id)
    began = time.monotonic()
    assert not games.wait_for_event(created.game_id, head_seq, timeout=0.3)
    assert time.monotonic() - began >= 0.3  # it waited its timeout out (a lower bound: no load breaks it)
    games.playing.act(created.game_id, Draw("you", "stock"))
    # the head has moved: found on the first look, with no time at all to wait
    assert wait_for_head(engine, lambda: games.head_seq(created.game_id), head_seq, created.game_id, 0)



def notify_objects(engine: Engine) -> list[str]:
    """The definitions of 0006's trigger and function in the test's schema (none: empty)."""
    with engine.connect() as conn:
        return [str(row[0]) for row in conn.execute(text(
            "SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE t.tgname = 'games_notify_head' AND n.nspname = current_schema() "
            "UNION ALL SELECT pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE p.proname = 'scat_notify_head' AND n.nspname = current_schema()"
        ))]


@pytest.mark.postgres
def test_migration_0007_drops_the_trigger_and_a_downgrade_restores_it_exactly(postgres_url: str) -> None:
    from alembic import command

    from scat_core.store.sql.database import alembic_config, make_engine

    engine = make_engine(postgres_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0006")
    made_by_0006 = notify_objects(engine)
    assert len(made_by_0006) == 2
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0007")
    assert notify_objects(engine) == []
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0006")
    assert notify_objects(engine) == made_by_0006
    engine.dispose()


@pytest.mark.postgres
def test_a_connection_lost_before_the_notice_leaves_the_write_standing_and_the_pool_sound(
    pg_engine: Engine, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    games = GameService(EventStore(pg_engine))
    real_send = notify.send

    def lost(driver: Any, heads: dict[str, int]) -> None:
        with pg_engine.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": driver.info.backend_pid})
        real_send(driver, heads)

    monkeypatch.setattr(notify, "send", lost)
    created = games.playing.create_game(HUMAN_AND_BOT, seed=3)  # a new game: announced after its commit
    assert head(pg_engine, created.game_id) == created.state.version
    assert "could not announce new events of " + created.game_id in caplog.text
    monkeypatch.setattr(notify, "send", real_send)
    after = games.playing.act(created.game_id, heuristic_move(created.state, 0))  # type: ignore[arg-type]
    assert after.state.version > created.state.version  # the lost connection was not handed out again
