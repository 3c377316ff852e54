"""The key a server signs with, as its database records it (table `server_key`, migration 0015)."""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError

from scat_core.store.sql import tables as t
from scat_core.store.sql.database import as_scat_errors


def recorded_server_key(engine: Engine, key_id: str, public_key: str, at: str) -> tuple[str, str]:
    """The (key id, public key) this database is served with: the one recorded, else (`key_id`,
    `public_key`), recorded now. Two processes starting at once record one of them, and both read it."""
    table = t.server_key
    with as_scat_errors(engine):
        with engine.begin() as conn:
            row = conn.execute(select(table.c.key_id, table.c.public_key)).first()
        if row is None:
            try:
                with engine.begin() as conn:
                    conn.execute(table.insert().values(slot=1, key_id=key_id, public_key=public_key, recorded_at=at))
            except IntegrityError:  # another process recorded its key first
                pass
            with engine.begin() as conn:
                row = conn.execute(select(table.c.key_id, table.c.public_key)).first()
    assert row is not None
    return str(row.key_id), str(row.public_key)
