"""Server tests: a real uvicorn serving the app on a loopback port, over SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.support.databases import migrated
from tests.support.live_server import server_in_thread


@pytest.fixture
def server_db(db_url: str) -> str:
    """A migrated database for the server (SQLite and PostgreSQL)."""
    return migrated(db_url)


@pytest.fixture
def server_url(server_db: str) -> Iterator[str]:
    """The base URL of a live server (started with --testing) over `server_db`."""
    with server_in_thread(server_db) as url:
        yield url


@pytest.fixture
def api(server_url: str) -> Iterator[httpx.Client]:
    """An HTTP client of the live server."""
    with httpx.Client(base_url=server_url, timeout=30) as client:
        yield client
