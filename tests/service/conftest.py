"""Service fixtures: the service on the in-memory store, where the database is not the subject.

The store's own behaviour is held to the same contract on every adapter by
tests/store/test_store_contract.py; tests about the databases themselves (damage done with
SQL, lost connections, locks, snapshots in their table) stay on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from scat_cli.wiring import open_database
from scat_core.service import GameService
from scat_core.store.memory import MemoryStore
from tests.support.databases import migrated


@pytest.fixture
def service() -> GameService:
    """The service on a fresh in-memory store."""
    return GameService(MemoryStore())


@pytest.fixture
def new_service() -> Callable[[], GameService]:
    """Another service on another fresh in-memory store (where an export is imported)."""
    return lambda: GameService(MemoryStore())


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_service(request: pytest.FixtureRequest) -> Iterator[GameService]:
    """The service on each adapter: the in-memory store, SQLite and PostgreSQL."""
    if request.param == "memory":
        yield GameService(MemoryStore())
        return
    service = open_database(migrated(str(request.getfixturevalue(f"{request.param}_url"))))
    yield service
    service.store.engine.dispose()  # the SQLAlchemy adapter
