"""Shared fixtures: a database URL per backend, each test on a database of its own.

PostgreSQL comes from $SCAT_TEST_POSTGRES_URL. With CI=true those tests must run: a
missing or unreachable server fails them loudly; elsewhere they are skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError

from scat_core.records import credentials
from scat_core.service import playing
from scat_core.store.sql.database import make_engine
from scat_core.store.sql.event_store import EventStore
from tests.support.databases import TEMPLATES, PostgresDatabases, migrated

IN_CI = os.environ.get("CI", "").lower() == "true"
PG_ENV = "SCAT_TEST_POSTGRES_URL"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers a core. Most of a test's time is spent waiting (for a subprocess,
    a server, PostgreSQL, a disk), so one worker a core leaves a core idle a quarter of the time."""
    return 2 * (os.cpu_count() or 1)


@pytest.fixture(autouse=True)
def _no_user_database(tmp_path: Path) -> Iterator[None]:
    """Never touch the real user's database or key: the default locations point into tmp_path.

    Its own MonkeyPatch, so that a test's `monkeypatch.undo()` cannot undo this isolation.
    """
    patch = pytest.MonkeyPatch()
    patch.delenv("SCAT_DB_URL", raising=False)
    patch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    patch.setenv("HOME", str(tmp_path / "home"))
    # ... nor the real installation signing key: each test gets its own, created on first use.
    patch.delenv("SCAT_KEY_FILE", raising=False)
    patch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    yield
    patch.undo()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A fresh SQLite database file (not yet created)."""
    return f"sqlite:///{tmp_path / 'scat.db'}"


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The configured PostgreSQL URL, checked to be reachable (fail in CI, skip elsewhere)."""
    url = os.environ.get(PG_ENV)
    if not url:
        if IN_CI:
            pytest.fail(f"CI=true but {PG_ENV} is not set: the PostgreSQL tests must run in CI")
        pytest.skip(f"{PG_ENV} is not set")
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:
        if IN_CI:
            pytest.fail(f"PostgreSQL at {PG_ENV} is unreachable in CI: {exc}")
        pytest.skip(f"PostgreSQL at {PG_ENV} is unreachable: {exc}")
    finally:
        engine.dispose()
    return url


@pytest.fixture(scope="session")
def postgres_databases(postgres_server_url: str) -> Iterator[PostgresDatabases]:
    """This session's databases on the PostgreSQL server: a migrated template, one database per test."""
    try:
        databases = PostgresDatabases(postgres_server_url)
    except DBAPIError as exc:
        pytest.fail(f"the tests make a database each on the server at {PG_ENV} (CREATE DATABASE): {exc.orig}")
    TEMPLATES.postgres = databases
    yield databases
    TEMPLATES.postgres = None
    databases.close()


@pytest.fixture
def postgres_url(postgres_databases: PostgresDatabases) -> Iterator[str]:
    """A brand-new, empty database of its own (`migrated(url)` makes it a copy of a migrated one),
    dropped after the test."""
    url = postgres_databases.create()
    yield url
    postgres_databases.drop(url)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest) -> str:
    """The same test on SQLite and on PostgreSQL (each on an empty database)."""
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on a database migrated to head by the real Alembic scripts (a copy of one they migrated)."""
    engine = make_engine(migrated(db_url))
    yield engine
    engine.dispose()


@pytest.fixture
def store(engine: Engine) -> EventStore:
    """An event store on the migrated database."""
    return EventStore(engine)


@pytest.fixture
def scrypt_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """The games made here (a server in a thread of this process too) store their tokens as scat did
    before SHA-256: a salted scrypt, which a wrong token costs."""
    monkeypatch.setattr(playing, "hash_token", credentials.scrypt_stored)
