"""A test session killed midway cannot drop its PostgreSQL databases; the next session on the same
host finds them by their template's comment (this host, a process that is gone) and drops them,
and leaves alone those of a session still running or of another host (tests/support/databases.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.pool import NullPool

from tests.support.databases import OWNER, left_behind


@pytest.fixture
def admin(postgres_server_url: str) -> Iterator[Engine]:
    engine = create_engine(postgres_server_url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    yield engine
    engine.dispose()


def a_session(admin: Engine, host: str, pid: int, others: int = 0) -> list[str]:
    """The databases a session of process `pid` on `host` leaves: its template and `others`."""
    prefix = f"scat_test_{uuid.uuid4().hex[:10]}"
    names = [f"{prefix}_migrated", *(f"{prefix}_{number}" for number in range(1, others + 1))]
    with admin.connect() as conn:
        for name in names:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE template0'))
        conn.execute(text(f"""COMMENT ON DATABASE "{names[0]}" IS '{OWNER.format(host=host, pid=pid)}'"""))
    return names


def test_the_databases_of_a_killed_session_on_this_host_are_found_and_no_others(admin: Engine) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    here = socket.gethostname()
    killed = a_session(admin, here, int(gone.stdout), others=2)
    running = a_session(admin, here, 1)  # init: a process that is running
    elsewhere = a_session(admin, f"not-{here}", int(gone.stdout))
    try:
        found = left_behind(admin)
        assert set(killed) <= set(found)
        assert not set(found) & {*running, *elsewhere}
    finally:
        with admin.connect() as conn:
            for name in (*killed, *running, *elsewhere):
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
