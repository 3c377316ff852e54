"""The store's adapters: `sql` (SQLAlchemy over SQLite and PostgreSQL) and `memory` (plain dicts).

The types and checks they share are in `scat_core.records`. The names below are the SQL
adapter's, loaded on first use, so that importing `scat_core.store.memory` loads no SQLAlchemy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scat_core.records.games import GameRow, GameSummary
    from scat_core.records.stored_log import GameSecret, StoredEvent
    from scat_core.store.sql.database import (
        HEAD_REVISION,
        ensure_schema,
        make_engine,
        open_engine,
        resolve_url,
        upgrade,
    )
    from scat_core.store.sql.event_store import EventStore, StoreTransaction

#: Each name this package offers, and the module it comes from.
_HOMES = {
    "HEAD_REVISION": "scat_core.store.sql.database",
    "ensure_schema": "scat_core.store.sql.database",
    "make_engine": "scat_core.store.sql.database",
    "open_engine": "scat_core.store.sql.database",
    "resolve_url": "scat_core.store.sql.database",
    "upgrade": "scat_core.store.sql.database",
    "EventStore": "scat_core.store.sql.event_store",
    "StoreTransaction": "scat_core.store.sql.event_store",
    "GameRow": "scat_core.records.games",
    "GameSummary": "scat_core.records.games",
    "GameSecret": "scat_core.records.stored_log",
    "StoredEvent": "scat_core.records.stored_log",
}

__all__ = [
    "HEAD_REVISION",
    "EventStore",
    "GameRow",
    "GameSecret",
    "GameSummary",
    "StoreTransaction",
    "StoredEvent",
    "ensure_schema",
    "make_engine",
    "open_engine",
    "resolve_url",
    "upgrade",
]


def __getattr__(name: str) -> Any:
    """A name of `_HOMES`, imported from its module when first asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)
