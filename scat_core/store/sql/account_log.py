"""The account log on SQLAlchemy: `account_events` (append-only, triggers refuse UPDATE/DELETE),
`request_nonces` (the nonces of signed requests, one row each while they are fresh) and the
name index `account_names` (each account's name under this scat's version of the name look,
a projection of the events: folded in up to the log's head before a look-up by look, in the
transaction of each registration when it is caught up, from the first event for a version
never folded here; `account_name_index` records how far).

The SQL adapter of `scat_core.service.ports.AccountLog`. A nonce is a row with a
primary key, so two server processes on one database agree on a replay: the second INSERT
of the same (key_id, nonce) fails, whichever process tries it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, func, or_, select, text
from sqlalchemy.exc import IntegrityError

from scat_core.domain.names import SKELETON_VERSION, looks_of
from scat_core.records.errors import ConcurrencyConflict
from scat_core.service.ports import AccountLog, AccountRecord
from scat_core.store.sql import tables as t
from scat_core.store.sql.database import WRITE_OPTION, as_scat_errors, one_writer
from scat_core.store.sql.driver_sql import autocommit, execute, named

#: One request in this many also deletes the expired nonces (a cheap indexed DELETE).
PRUNE_ONE_IN = 64


class SqlAccountLog:
    """The account log in the database of `engine` (migrated to head)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: The version of the name look this log indexes, and the looks of a name.
        self.version, self.looks_of = SKELETON_VERSION, looks_of

    @contextmanager
    def _writing(self, durable: bool = True) -> Iterator[Connection]:
        """A write transaction: on SQLite BEGIN IMMEDIATE, so concurrent writers queue on the busy
        timeout instead of failing when a read turns into a write (a deferred BEGIN's upgrade).

        Not `durable` (a nonce: one lost in a crash only reopens its 300 s window), its commit
        waits for no disk flush: PostgreSQL's synchronous_commit off, SQLite's synchronous NORMAL
        (WAL: flushed at the next checkpoint), the connection's FULL restored after it.
        """
        with one_writer(self.engine), self.engine.connect() as conn:  # on SQLite, writers take turns (database.py)
            conn = conn.execution_options(**{WRITE_OPTION: True})
            lazy = not durable and conn.dialect.name == "sqlite"
            if lazy:
                conn.connection.driver_connection.execute("PRAGMA synchronous = NORMAL")  # type: ignore[union-attr]
            try:
                with conn.begin():
                    if not durable and conn.dialect.name == "postgresql":
                        conn.execute(text("SET LOCAL synchronous_commit = off"))
                    yield conn
            finally:
                if lazy:
                    conn.connection.driver_connection.execute("PRAGMA synchronous = FULL")  # type: ignore[union-attr]

    def matching(self, skeleton: str | None, key_id: str | None,
                 looks: Sequence[str] = ()) -> tuple[int, list[AccountRecord]]:
        """The log's last seq and every record of the accounts named alike (or looking alike: the
        name index, caught up first) or holding `key_id` ever."""
        e, n = t.account_events, t.account_names
        wanted = select(e.c.skeleton).where(or_(e.c.skeleton == skeleton, e.c.key_id == key_id))
        with as_scat_errors(self.engine):
            if looks:
                self._catch_up()
            with self.engine.connect() as conn:
                head: int = conn.execute(select(func.coalesce(func.max(e.c.seq), 0))).scalar_one()
                named = select(n.c.account).where(n.c.version == self.version, n.c.skeleton.in_(list(looks)))
                rows = conn.execute(select(e).where(or_(e.c.skeleton.in_(wanted), e.c.account.in_(named)))
                                    .order_by(e.c.seq)).all()
        return int(head), [AccountRecord(seq=row.seq, account=row.account, skeleton=row.skeleton, key_id=row.key_id,
                                         type=row.type, schema_version=row.schema_version,
                                         data=json.loads(row.data), recorded_at=row.recorded_at) for row in rows]

    def _catch_up(self) -> None:
        """Fold the registrations the name index of this version has not seen into it (none: from the first)."""
        e, x = t.account_events, t.account_name_index
        with self.engine.connect() as conn:
            head = int(conn.execute(select(func.coalesce(func.max(e.c.seq), 0))).scalar_one())
            done = conn.execute(select(x.c.last_seq).where(x.c.version == self.version)).scalar()
        if done is not None and int(done) >= head:
            return
        with self._writing() as conn:
            done = conn.execute(select(x.c.last_seq).where(x.c.version == self.version)).scalar() or 0
            rows = conn.execute(select(e.c.seq, e.c.account).where(e.c.seq > done, e.c.type == "AccountRegistered")
                                .order_by(e.c.seq)).all()
            head = int(conn.execute(select(func.coalesce(func.max(e.c.seq), 0))).scalar_one())
            self._index(conn, [(row.seq, row.account) for row in rows], head)

    def _index(self, conn: Connection, names: Sequence[tuple[int, str]], head: int) -> None:
        """Add `names` ((seq, account) of registrations) to the index, which then holds every one up to `head`."""
        if conn.dialect.name == "postgresql":  # the dialect's insert with ON CONFLICT, loaded when needed
            # start-up time: a dialect's module loads only on its database
            from sqlalchemy.dialects import postgresql as dialect
        else:
            from sqlalchemy.dialects import sqlite as dialect  # type: ignore[no-redef]
        n, x = t.account_names, t.account_name_index
        if names:
            conn.execute(dialect.insert(n).on_conflict_do_nothing(), [
                {"version": self.version, "account": account, "skeleton": look, "seq": seq}
                for seq, account in names for look in self.looks_of(account)])
        upsert = dialect.insert(x).values(version=self.version, last_seq=head)
        conn.execute(upsert.on_conflict_do_update(index_elements=[x.c.version], set_={"last_seq": head},
                                                  where=x.c.last_seq < head))

    def append(self, expected_head: int, records: Sequence[AccountRecord]) -> None:
        """Append the records in one transaction; ConcurrencyConflict when the log moved past `expected_head`."""
        e = t.account_events
        rows = [{"seq": r.seq, "account": r.account, "skeleton": r.skeleton, "key_id": r.key_id, "type": r.type,
                 "schema_version": r.schema_version, "data": json.dumps(r.data, sort_keys=True, separators=(",", ":")),
                 "recorded_at": r.recorded_at} for r in records]
        with as_scat_errors(self.engine):
            try:
                with self._writing() as conn:
                    head: int = conn.execute(select(func.coalesce(func.max(e.c.seq), 0))).scalar_one()
                    if int(head) != expected_head:
                        raise ConcurrencyConflict("the accounts changed meanwhile: try again")
                    conn.execute(e.insert(), rows)
                    x = t.account_name_index
                    done = conn.execute(select(x.c.last_seq).where(x.c.version == self.version)).scalar()
                    if done == expected_head:  # the index is caught up: it stays so, in this transaction
                        self._index(conn, [(r.seq, r.account) for r in records if r.type == "AccountRegistered"],
                                    expected_head + len(records))
            except IntegrityError as exc:  # a concurrent append took the same seq
                raise ConcurrencyConflict("the accounts changed meanwhile: try again") from exc

    def use_nonce(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """Insert the nonce; False when the row exists already (a replayed request)."""
        if self.engine.dialect.name == "postgresql":
            return self._use_nonce_in_one_statement(key_id, nonce, expires_at, now)
        with as_scat_errors(self.engine), self._writing(durable=False) as conn:
            return spend_nonce(conn, key_id, nonce, expires_at, now)


    def _use_nonce_in_one_statement(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """`use_nonce` on PostgreSQL in one round trip: one statement in autocommit, its own
        transaction, whose commit waits for no disk flush (set_config local to it: a nonce lost in
        a crash only reopens its 300 s window)."""
        with as_scat_errors(self.engine), self.engine.connect() as conn, autocommit(conn):
            return spend_nonce(conn, key_id, nonce, expires_at, now)


def spend_nonce(conn: Connection, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
    """Insert the nonce on `conn`, in its transaction (if any); False when the row exists already.

    In a transaction the INSERT gives way on the key (ON CONFLICT DO NOTHING: the transaction
    goes on, the command it belongs to is refused by its caller); in autocommit (PostgreSQL)
    it is LAZY_NONCE, its own transaction. One call in PRUNE_ONE_IN also deletes the expired nonces.
    """
    if random.randrange(PRUNE_ONE_IN) == 0:
        execute(conn, named(conn, PRUNE_NONCES_PG if conn.dialect.name == "postgresql" else PRUNE_NONCES), {"now": now})
    values = {"key_id": key_id, "nonce": nonce, "expires_at": expires_at}
    if conn.dialect.name == "postgresql" and conn.connection.driver_connection.autocommit:  # type: ignore[union-attr]
        try:
            execute(conn, named(conn, LAZY_NONCE), values)
        except IntegrityError:
            return False
        return True
    return execute(conn, named(conn, NEW_NONCE), values) == 1


#: A nonce's row, committed without waiting for the flush (PostgreSQL; the statement is its transaction).
LAZY_NONCE = ("INSERT INTO request_nonces (key_id, nonce, expires_at) SELECT %(key_id)s, %(nonce)s, %(expires_at)s "
              "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS lazy_commit")
#: A nonce's row in a transaction, nothing inserted when it is there already (a replay).
NEW_NONCE = ("INSERT INTO request_nonces (key_id, nonce, expires_at) VALUES (%(key_id)s, %(nonce)s, %(expires_at)s) "
             "ON CONFLICT (key_id, nonce) DO NOTHING")
PRUNE_NONCES = "DELETE FROM request_nonces WHERE expires_at < %(now)s"
#: On PostgreSQL, the expired nonces no other transaction is deleting: a signed move prunes in its
#: command's transaction, which a server shares with the moves committed together (commit_groups.py);
#: a second prune skips the rows the first holds rather than wait for its COMMIT. (SQLite has one
#: writer at a time: nobody else holds them.)
PRUNE_NONCES_PG = ("DELETE FROM request_nonces WHERE (key_id, nonce) IN (SELECT key_id, nonce FROM request_nonces "
                   "WHERE expires_at < %(now)s LIMIT 1000 FOR UPDATE SKIP LOCKED)")

_: type[AccountLog] = SqlAccountLog
