"""Shared fixtures: a database URL per backend, each test on a freshly migrated schema.

PostgreSQL comes from $SCAT_TEST_POSTGRES_URL. With CI=true those tests must run: a
missing or unreachable server fails them loudly; elsewhere they are skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from scat_core.records import credentials
from scat_core.service import playing
from scat_core.store.sql.database import ensure_schema, make_engine
from scat_core.store.sql.event_store import EventStore

IN_CI = os.environ.get("CI", "").lower() == "true"
PG_ENV = "SCAT_TEST_POSTGRES_URL"


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


@pytest.fixture
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A URL whose search_path is a brand-new schema, dropped after the test."""
    schema = f"scat_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(postgres_server_url).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest) -> str:
    """The same test on SQLite and on PostgreSQL (each on an empty database)."""
    return str(request.getfixturevalue(f"{request.param}_url"))


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on a database migrated to head by the real Alembic scripts."""
    engine = make_engine(db_url)
    ensure_schema(engine)
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
