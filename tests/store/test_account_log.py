"""The account log: both adapters register, refuse and remember nonces alike; the SQL one is
append-only (triggers refuse UPDATE, DELETE and their sideways routes) and its migration goes
up and down, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator

import pytest
from alembic import command
from sqlalchemy import Engine, inspect, text
from sqlalchemy.exc import DBAPIError

from scat_core.domain import accounts as acc
from scat_core.records.errors import ConcurrencyConflict
from scat_core.service.accounts import AccountService
from scat_core.service.ports import AccountLog, AccountRecord
from scat_core.store.memory import MemoryAccountLog
from scat_core.store.sql import account_log
from scat_core.store.sql.account_log import SqlAccountLog
from scat_core.store.sql.database import alembic_config, make_engine
from tests.support.databases import migrated


def key(n: int) -> str:
    return base64.b64encode(hashlib.sha256(bytes([n])).digest()).decode("ascii")


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def log(request: pytest.FixtureRequest) -> Iterator[AccountLog]:
    """Each adapter: in memory, and SQL on SQLite and on PostgreSQL."""
    if request.param == "memory":
        yield MemoryAccountLog()
        return
    engine = make_engine(migrated(str(request.getfixturevalue(f"{request.param}_url"))))
    yield SqlAccountLog(engine)
    engine.dispose()


def test_an_account_registered_is_found_by_its_key_and_a_taken_name_refused(log: AccountLog) -> None:
    accounts = AccountService(log)
    ann = accounts.register("ann", key(1))
    assert (ann.name, ann.key_id, ann.public_key, ann.keys) == ("ann", acc.key_id_of(key(1)), key(1), 1)
    assert accounts.holding(ann.key_id) == ann
    assert accounts.holding(acc.key_id_of(key(9))) is None
    with pytest.raises(acc.AccountNameTaken):
        accounts.register("Ann", key(2))
    with pytest.raises(acc.KeyAlreadyRegistered):
        accounts.register("bea", key(1))
    assert accounts.register("bea", key(2)).name == "bea"
    head, records = log.matching(None, None)
    assert head == 2 and records == []


def test_a_rekeyed_account_acts_with_its_new_key_only(log: AccountLog) -> None:
    accounts = AccountService(log)
    accounts.register("ann", key(1))
    rekeyed = accounts.rekey("ann", key(2))
    assert (rekeyed.key_id, rekeyed.keys) == (acc.key_id_of(key(2)), 2)
    assert accounts.holding(acc.key_id_of(key(1))) is None
    assert accounts.holding(acc.key_id_of(key(2))) == rekeyed
    head, records = log.matching("ann", None)
    assert head == 2 and [r.type for r in records] == ["AccountRegistered", "AccountRekeyed"]


def test_an_append_behind_the_log_is_a_conflict(log: AccountLog) -> None:
    AccountService(log).register("ann", key(1))
    _, records = log.matching("ann", None)
    with pytest.raises(ConcurrencyConflict):
        log.append(0, [records[0]])


@pytest.mark.parametrize("db", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_prune_deletes_the_expired_nonces_only(db: str, request: pytest.FixtureRequest,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    engine = make_engine(migrated(str(request.getfixturevalue(f"{db}_url"))))
    log = SqlAccountLog(engine)
    for index in range(3):
        assert log.use_nonce("k1", f"old{index}", expires_at=1300, now=1000)
    assert log.use_nonce("k1", "fresh", expires_at=2300, now=2000)
    monkeypatch.setattr(account_log, "PRUNE_ONE_IN", 1)  # this request prunes
    assert log.use_nonce("k2", "n1", expires_at=2300, now=2000)
    with engine.connect() as conn:
        left = conn.execute(text("SELECT nonce FROM request_nonces ORDER BY nonce")).scalars().all()
    engine.dispose()
    assert left == ["fresh", "n1"]


@pytest.mark.postgres
def test_on_postgresql_a_prune_does_not_wait_for_the_nonces_another_transaction_prunes(
        postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A signed move prunes in its command's transaction, held open while the moves committed with
    it run: another transaction's prune skips those rows (its lock_timeout is never reached)."""
    engine = make_engine(migrated(postgres_url))
    log = SqlAccountLog(engine)
    for index in range(3):
        assert log.use_nonce("k1", f"old{index}", expires_at=1300, now=1000)
    monkeypatch.setattr(account_log, "PRUNE_ONE_IN", 1)
    with engine.connect() as first, engine.connect() as second:
        with first.begin():
            assert account_log.spend_nonce(first, "k2", "a", expires_at=2300, now=2000)  # pruned, not committed
            with second.begin():
                second.exec_driver_sql("SET LOCAL lock_timeout = '5s'")
                assert account_log.spend_nonce(second, "k3", "b", expires_at=2300, now=2000)
        left = second.execute(text("SELECT nonce FROM request_nonces ORDER BY nonce")).scalars().all()
    engine.dispose()
    assert left == ["a", "b"]


def test_a_nonce_is_accepted_once_until_it_expires(log: AccountLog) -> None:
    assert log.use_nonce("k1", "n1", expires_at=1300, now=1000)
    assert not log.use_nonce("k1", "n1", expires_at=1300, now=1100)
    assert log.use_nonce("k2", "n1", expires_at=1300, now=1100)  # nonces are per key


def test_two_server_processes_on_one_database_agree_on_a_replay(engine: Engine) -> None:
    other = make_engine(engine.url.render_as_string(hide_password=False))
    try:
        assert SqlAccountLog(engine).use_nonce("k1", "n1", expires_at=1300, now=1000)
        assert not SqlAccountLog(other).use_nonce("k1", "n1", expires_at=1300, now=1000)
    finally:
        other.dispose()


def test_the_account_log_refuses_update_and_delete(engine: Engine) -> None:
    AccountService(SqlAccountLog(engine)).register("ann", key(1))
    columns = "seq, account, skeleton, key_id, type, schema_version, data, recorded_at"
    statements = ["UPDATE account_events SET account = 'mallory'", "DELETE FROM account_events"]
    if engine.dialect.name == "sqlite":
        statements += [f"INSERT OR REPLACE INTO account_events ({columns}) SELECT {columns} FROM account_events",
                       f"REPLACE INTO account_events (position, {columns}) SELECT position, {columns} "
                       "FROM account_events"]
    else:
        statements += ["TRUNCATE account_events",
                       f"INSERT INTO account_events ({columns}) SELECT {columns} FROM account_events "
                       "ON CONFLICT (seq) DO UPDATE SET account = 'mallory'"]
    for statement in statements:
        with pytest.raises(DBAPIError, match="account events are immutable"), engine.begin() as conn:
            conn.execute(text(statement))
    with engine.connect() as conn:
        assert conn.execute(text("SELECT account FROM account_events")).scalars().all() == ["ann"]


def test_the_accounts_migration_goes_up_and_down(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0008")
        assert "account_events" not in inspect(engine).get_table_names()
        with engine.begin() as conn:
            command.upgrade(alembic_config(conn), "0009")
        assert {"account_events", "request_nonces"} <= set(inspect(engine).get_table_names())
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0008")
        assert not {"account_events", "request_nonces"} & set(inspect(engine).get_table_names())
        with engine.connect() as conn:
            names = conn.execute(text(
                "SELECT name FROM sqlite_master WHERE type = 'trigger'" if engine.dialect.name == "sqlite" else
                "SELECT proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = current_schema()")).scalars().all()
        assert not [name for name in names if "account" in name]
    finally:
        engine.dispose()


def test_strangers_registering_at_the_same_moment_are_all_registered(log: AccountLog) -> None:
    """One head for the whole log: concurrent registrations take turns (SQLite: BEGIN IMMEDIATE,
    no failed read-to-write upgrade), none is refused for another's."""
    from concurrent.futures import ThreadPoolExecutor

    accounts = AccountService(log)
    names = [f"player{n}" for n in range(8)]
    with ThreadPoolExecutor(len(names)) as pool:
        registered = list(pool.map(lambda n: accounts.register(names[n], key(n)).name, range(len(names))))
    assert sorted(registered) == sorted(names)
    assert all(accounts.named(name) is not None for name in names)
    # And each of them makes requests at once: every nonce is taken, none refused as busy.
    with ThreadPoolExecutor(8) as pool:
        taken = list(pool.map(lambda n: log.use_nonce(acc.key_id_of(key(n)), f"nonce{n}", 10**10, 0), range(8)))
    assert taken == [True] * 8


ISSUE_LOOK_ALIKES = [("ann", "ɑnn"), ("ann", "aոո"), ("ann", "ᴀnn"), ("ann", "Ꭺnn"), ("eve", "eᴠe"), ("eve", "evє"),
                     ("cid", "cɩd"), ("cid", "ciɗ")]


@pytest.mark.parametrize(("taken", "alike"), ISSUE_LOOK_ALIKES)
def test_a_look_alike_of_a_taken_name_is_refused_naming_the_account_it_meets(log: AccountLog, taken: str,
                                                                               alike: str) -> None:
    accounts = AccountService(log)
    accounts.register(taken, key(1))
    with pytest.raises(acc.AccountNameTaken, match=f"looks like the account '{taken}'"):
        accounts.register(alike, key(2))
    found = accounts.named(alike)
    assert found is not None and found.name == taken


def test_the_name_index_is_folded_again_from_the_account_events_when_it_is_gone(log: AccountLog) -> None:
    accounts = AccountService(log)
    for number, name in enumerate(("ann", "eve", "cid"), 1):
        accounts.register(name, key(number))
    if isinstance(log, SqlAccountLog):  # a database whose index a newer scat would build (a new version): none here
        with log.engine.begin() as conn:
            assert conn.execute(text("SELECT count(*) FROM account_names")).scalar() == 3
            conn.execute(text("DELETE FROM account_names"))
            conn.execute(text("DELETE FROM account_name_index"))
    for alike in ("ᴀnn", "evє", "ciɗ"):
        with pytest.raises(acc.AccountNameTaken):
            accounts.register(alike, key(9))
    assert [accounts.named(name) is not None for name in ("ann", "eve", "cid")] == [True] * 3
    if isinstance(log, SqlAccountLog):
        with log.engine.begin() as conn:
            rows = conn.execute(text("SELECT version, account, skeleton FROM account_names ORDER BY seq")).all()
        assert [tuple(row) for row in rows] == [(2, "ann", "ann"), (2, "eve", "eve"), (2, "cid", "cid")]


def test_two_accounts_registered_before_looks_were_compared_are_each_found_by_their_own_name(log: AccountLog) -> None:
    from scat_core.domain.names import skeleton

    # An older scat let ann and ɑnn both in (their records written to the log as they were then);
    # this one finds each by its name, and refuses a third.
    for seq, (name, n) in enumerate((("ann", 1), ("ɑnn", 2)), 1):
        event = acc.AccountRegistered(name=name, public_key=key(n), key_id=acc.key_id_of(key(n)), at="2026-12-01")
        log.append(seq - 1, [AccountRecord(seq=seq, account=name, skeleton=skeleton(name), key_id=event.key_id,
                                           type=event.type, schema_version=event.schema_version,
                                           data=event.model_dump(mode="json"), recorded_at=event.at)])
    accounts = AccountService(log)
    assert [found.name for found in (accounts.named("ann"), accounts.named("ɑnn")) if found] == ["ann", "ɑnn"]
    with pytest.raises(acc.AccountNameTaken):
        accounts.register("ᴀnn", key(3))
