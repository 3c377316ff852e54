"""Scat event store: SQLAlchemy Core over SQLite and PostgreSQL, schema owned by Alembic."""

from __future__ import annotations

from scat_core.store.database import (
    HEAD_REVISION,
    ensure_schema,
    make_engine,
    open_engine,
    resolve_url,
    upgrade,
)
from scat_core.store.event_store import (
    EventStore,
    GameRow,
    GameSecret,
    GameSummary,
    StoredEvent,
    StoreTransaction,
)

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
