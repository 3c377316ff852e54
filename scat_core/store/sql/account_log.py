"""The account log on SQLAlchemy: `account_events` (append-only, triggers refuse UPDATE/DELETE)
and `request_nonces` (the nonces of signed requests, one row each while they are fresh).

The SQL adapter of `scat_core.service.account_ports.AccountLog`. A nonce is a row with a
primary key, so two server processes on one database agree on a replay: the second INSERT
of the same (key_id, nonce) fails, whichever process tries it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from sqlalchemy import Engine, delete, func, or_, select, text
from sqlalchemy.exc import IntegrityError

from scat_core.records.errors import ConcurrencyConflict
from scat_core.service.account_ports import AccountLog, AccountRecord
from scat_core.store.sql import tables as t
from scat_core.store.sql.db_failures import as_scat_errors

#: One request in this many also deletes the expired nonces (a cheap indexed DELETE).
PRUNE_ONE_IN = 64


class SqlAccountLog:
    """The account log in the database of `engine` (migrated to head)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def matching(self, skeleton: str | None, key_id: str | None) -> tuple[int, list[AccountRecord]]:
        """The log's last seq and every record of the accounts named alike or holding `key_id` ever."""
        e = t.account_events
        wanted = select(e.c.skeleton).where(or_(e.c.skeleton == skeleton, e.c.key_id == key_id))
        with as_scat_errors(self.engine), self.engine.connect() as conn:
            head: int = conn.execute(select(func.coalesce(func.max(e.c.seq), 0))).scalar_one()
            rows = conn.execute(select(e).where(e.c.skeleton.in_(wanted)).order_by(e.c.seq)).all()
        return int(head), [AccountRecord(seq=row.seq, account=row.account, skeleton=row.skeleton, key_id=row.key_id,
                                         type=row.type, schema_version=row.schema_version,
                                         data=json.loads(row.data), recorded_at=row.recorded_at) for row in rows]

    def append(self, expected_head: int, records: Sequence[AccountRecord]) -> None:
        """Append the records in one transaction; ConcurrencyConflict when the log moved past `expected_head`."""
        e = t.account_events
        rows = [{"seq": r.seq, "account": r.account, "skeleton": r.skeleton, "key_id": r.key_id, "type": r.type,
                 "schema_version": r.schema_version, "data": json.dumps(r.data, sort_keys=True, separators=(",", ":")),
                 "recorded_at": r.recorded_at} for r in records]
        with as_scat_errors(self.engine):
            try:
                with self.engine.begin() as conn:
                    head: int = conn.execute(select(func.coalesce(func.max(e.c.seq), 0))).scalar_one()
                    if int(head) != expected_head:
                        raise ConcurrencyConflict("the accounts changed meanwhile: try again")
                    conn.execute(e.insert(), rows)
            except IntegrityError as exc:  # a concurrent append took the same seq
                raise ConcurrencyConflict("the accounts changed meanwhile: try again") from exc

    def use_nonce(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """Insert the nonce; False when the row exists already (a replayed request)."""
        n = t.request_nonces
        with as_scat_errors(self.engine):
            try:
                with self.engine.begin() as conn:
                    if conn.dialect.name == "postgresql":  # a nonce lost in a crash only reopens a 300 s window
                        conn.execute(text("SET LOCAL synchronous_commit = off"))
                    if random.randrange(PRUNE_ONE_IN) == 0:
                        conn.execute(delete(n).where(n.c.expires_at < now))
                    conn.execute(n.insert().values(key_id=key_id, nonce=nonce, expires_at=expires_at))
            except IntegrityError:
                return False
        return True


_: type[AccountLog] = SqlAccountLog
