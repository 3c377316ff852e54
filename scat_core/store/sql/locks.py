"""PostgreSQL advisory locks, the one way scat's sessions take turns (schema upgrades, projectors).

SQLite needs none: its writers take turns on the database file (BEGIN IMMEDIATE).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import text
from sqlalchemy.engine import Connection

#: Sessions upgrading the schema at once take turns on this key (any 64-bit constant; every
#: scat version uses this one, so an older and a newer scat upgrading together take turns too).
MIGRATION_LOCK = 3_141_592_653


def lock_key(name: str) -> int:
    """A 63-bit advisory lock key for `name` (a projection's)."""
    return 0x5CA7_0000_0000 + zlib.crc32(name.encode("utf-8"))


@contextmanager
def advisory_lock(conn: Connection, key: int, *, session: bool = False) -> Iterator[None]:
    """Hold PostgreSQL's advisory lock `key` over the block, waiting for it first; nothing on SQLite.

    By default the lock belongs to the caller's transaction (`pg_advisory_xact_lock`) and lasts
    until it ends. With `session`, it is taken and committed before the block and released
    after it, so a transaction begun inside the block starts (and takes its snapshot) with the
    lock already held.
    """
    if conn.dialect.name != "postgresql":
        yield
        return
    if not session:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})
        yield
        return
    conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
    conn.commit()
    try:
        yield
    finally:
        conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
        conn.commit()
