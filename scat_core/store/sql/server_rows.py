"""A server's own rows: the key it signs with, as its database records it (table `server_key`,
migration 0015), and its invite codes when registration is by invitation (`scat serve
--registration invite`): made by its operator (`scat account invite`), kept as their SHA-256
only (table `invites`), each used by one registration."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import Engine, select, update
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

def code_hash(code: str) -> str:
    """How a code is kept: the SHA-256 of its text (trimmed), in hex."""
    return hashlib.sha256(code.strip().encode("utf-8")).hexdigest()


class SqlInvites:
    """The invite codes in the database of `engine` (migrated to head)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def make(self, count: int, at: str) -> list[str]:
        """`count` new codes (told here only: the database keeps their hashes)."""
        codes = [secrets.token_urlsafe(12) for _ in range(count)]
        with as_scat_errors(self.engine), self.engine.begin() as conn:
            conn.execute(t.invites.insert(), [{"code_hash": code_hash(code), "made_at": at} for code in codes])
        return codes

    def use(self, code: str, account: str, at: str) -> bool:
        """Spend `code` for the registration of `account`; False when it is no code here, or was used."""
        i = t.invites
        with as_scat_errors(self.engine), self.engine.begin() as conn:
            done = conn.execute(update(i).where(i.c.code_hash == code_hash(code), i.c.used_by.is_(None))
                                .values(used_by=account, used_at=at))
        return done.rowcount == 1

    def give_back(self, code: str, account: str) -> None:
        """Make `code` usable again: the registration of `account` that spent it was refused."""
        i = t.invites
        with as_scat_errors(self.engine), self.engine.begin() as conn:
            conn.execute(update(i).where(i.c.code_hash == code_hash(code), i.c.used_by == account)
                         .values(used_by=None, used_at=None))
