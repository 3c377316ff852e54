"""The tests' databases: each test its own, and a migrated one a copy of a template migrated once.

Running the Alembic scripts costs 0.5 s on SQLite and 1–2 s of DDL on PostgreSQL, for each of
hundreds of tests; a copy of a database those same scripts migrated costs a few milliseconds (a
file copy) or about 0.1 s (PostgreSQL's `CREATE DATABASE ... TEMPLATE`, a copy of its files).
So a SQLite template is migrated once per process, and each test of PostgreSQL gets a database
of its own (not a schema: a schema cannot be copied), created empty or, through `migrated`, as a
copy of the session's migrated template. A test's database is dropped after it by threads of
their own, since a DROP DATABASE waits for a checkpoint. A test that wants the migrations
themselves (an old schema upgraded, a revision's DDL) starts from an empty database and runs them.
A run killed midway cannot drop its databases; its template's comment names the host and the
process, so the next session on that host drops them once that process is gone.
"""

from __future__ import annotations

import atexit
import itertools
import os
import queue
import re
import shutil
import socket
import tempfile
import threading
import time
import uuid
from pathlib import Path

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from scat_core.store.sql.database import ensure_schema, make_engine

#: Threads dropping a session's databases.
DROPPERS = 4
#: A session's databases are named PREFIX_migrated (its template) and PREFIX_N.
PREFIX_PATTERN = re.compile(r"(scat_test_[0-9a-f]{10})_(?:migrated|\d+)")
#: The comment on a session's template: which process on which host made it.
OWNER = "scat tests: host {host}, process {pid}"
OWNER_PATTERN = re.compile(r"scat tests: host (.*), process (\d+)")


def left_behind(admin: Engine) -> list[str]:
    """The databases of the test sessions killed on this host: those named after a template whose
    comment names this host and a process that is gone."""
    with admin.connect() as conn:
        rows = conn.execute(text("SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database "
                                 "WHERE datname LIKE 'scat\\_test\\_%'")).all()
    host, dead = socket.gethostname(), set()
    for name, comment in rows:
        owner = OWNER_PATTERN.fullmatch(comment or "")
        if name.endswith("_migrated") and owner and owner[1] == host and not _is_running(int(owner[2])):
            dead.add(name.removesuffix("_migrated"))
    return [name for name, _ in rows if (match := PREFIX_PATTERN.fullmatch(name)) and match[1] in dead]


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


class PostgresDatabases:
    """One session's databases on a PostgreSQL server: a migrated template, a database per test."""

    def __init__(self, server_url: str) -> None:
        self.server = make_url(server_url)
        self.admin = create_engine(server_url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
        self.prefix = f"scat_test_{uuid.uuid4().hex[:10]}"
        self.template = f"{self.prefix}_migrated"
        self.numbers = itertools.count(1)
        self.spares: list[str] = []
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self.doomed: queue.Queue[str | None] = queue.Queue()
        #: Several: a DROP DATABASE waits for a checkpoint, and drops waiting together share the next one.
        self.droppers = [threading.Thread(target=self._drop_each, name="drop test databases", daemon=True)
                         for _ in range(DROPPERS)]
        self._create(self.template, "template0")
        owner = OWNER.format(host=socket.gethostname(), pid=os.getpid()).replace("'", "''")
        with self.admin.connect() as conn:
            conn.execute(text(f"COMMENT ON DATABASE \"{self.template}\" IS '{owner}'"))
        engine = make_engine(self.url(self.template))
        ensure_schema(engine)
        with engine.connect() as conn:  # its pages written for good, hints and all: a copy is 4x faster
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("VACUUM FREEZE"))
        engine.dispose()
        try:
            with self.admin.connect() as conn:
                conn.execute(text("CHECKPOINT"))
        except DBAPIError:  # a user neither superuser nor pg_checkpoint: slower copies, that is all
            pass
        for dropper in self.droppers:
            dropper.start()
        threading.Thread(target=self._drop_left_behind, name="drop killed runs' databases", daemon=True).start()

    def url(self, database: str) -> str:
        """The server's URL, on `database`."""
        return self.server.set(database=database).render_as_string(hide_password=False)

    def create(self) -> str:
        """A new, empty database (a spare one `migrate` set aside, renamed, if there is one): its URL."""
        name = self._name()
        with self.lock:
            spare = self.spares.pop() if self.spares else None
        if spare is not None:
            self._rename(spare, name)
        else:
            self._create(name, "template0")
        return self.url(name)

    def migrate(self, url: str) -> bool:
        """Make the empty database at `url` (one of this session's) a copy of the migrated template;
        False when it is not one of ours, holds anything, or is in use (the caller migrates it)."""
        name = make_url(url).database or ""
        if not name.startswith(f"{self.prefix}_") or name == self.template or not self._is_empty(url):
            return False
        spare = self._name()
        try:
            self._rename(name, spare)
        except DBAPIError:  # someone is connected to it: leave it to the migrations
            return False
        with self.lock:
            self.spares.append(spare)  # still empty: the next test asking for an empty database gets it
        self._create(name, self.template)
        return True

    def drop(self, url_or_name: str) -> None:
        """Drop that database soon (in the background), whoever is still connected to it."""
        self.doomed.put(make_url(url_or_name).database if "://" in url_or_name else url_or_name)

    def close(self) -> None:
        """Drop every database of the session, the template last; raise if one could not be."""
        for _ in self.droppers:
            self.doomed.put(None)
        for dropper in self.droppers:
            dropper.join()
        for name in [*self.spares, self.template]:
            self._drop(name)
        self.admin.dispose()
        if self.errors:
            raise RuntimeError("test databases left behind: " + "; ".join(self.errors))

    def _name(self) -> str:
        return f"{self.prefix}_{next(self.numbers)}"

    def _create(self, name: str, template: str) -> None:
        with self.admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))

    def _rename(self, name: str, new_name: str) -> None:
        """Rename a database nobody uses (waiting a little for the backends of closed connections
        to exit: PostgreSQL's own wait for them is in steps of 0.1 s)."""
        with self.admin.connect() as conn:
            for _ in range(100):
                if not conn.execute(text("SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = :name)"),
                                    {"name": name}).scalar():
                    break
                time.sleep(0.005)
            conn.execute(text(f'ALTER DATABASE "{name}" RENAME TO "{new_name}"'))

    def _is_empty(self, url: str) -> bool:
        engine = create_engine(url, poolclass=NullPool)
        try:
            with engine.connect() as conn:
                return not conn.execute(text(
                    "SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' "
                    "UNION ALL SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                    "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') "
                    "UNION ALL SELECT 1 FROM pg_namespace WHERE nspname NOT IN ('public', 'pg_catalog', "
                    "'information_schema') AND nspname NOT LIKE 'pg_toast%' AND nspname NOT LIKE 'pg_temp%')"
                )).scalar()
        finally:
            engine.dispose()

    def _drop(self, name: str, quietly: bool = False) -> None:
        """Drop `name`, whoever is connected; a failure is kept for `close` to raise, unless `quietly`."""
        try:
            with self.admin.connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        except Exception as exc:
            if not quietly:
                self.errors.append(f"{name}: {exc}")

    def _drop_left_behind(self) -> None:
        """Drop the databases of killed runs, quietly: another session may be dropping them too."""
        try:
            found = left_behind(self.admin)
        except DBAPIError:
            return
        for name in found:
            self._drop(name, quietly=True)

    def _drop_each(self) -> None:
        while (name := self.doomed.get()) is not None:
            self._drop(name)


class Templates:
    """Where this process finds its migrated templates: a SQLite file made on first use, and the
    PostgreSQL session's databases once its fixture has made them."""

    def __init__(self) -> None:
        self.postgres: PostgresDatabases | None = None
        self._sqlite: Path | None = None
        self._lock = threading.Lock()

    def sqlite(self) -> Path:
        """A SQLite file migrated to head by the Alembic scripts (made once per process)."""
        with self._lock:
            if self._sqlite is None:
                folder = tempfile.mkdtemp(prefix="scat-template-")
                atexit.register(shutil.rmtree, folder, ignore_errors=True)
                path = Path(folder) / "scat.db"
                engine = make_engine(f"sqlite:///{path}")
                ensure_schema(engine)
                engine.dispose()
                self._sqlite = path
            return self._sqlite

    def copy_migrated(self, url: str) -> bool:
        """Make the database at `url` a migrated copy if it is new (a SQLite file not yet made, an
        empty PostgreSQL database of this session); False if not (the caller migrates it)."""
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite":
            path = Path(parsed.database or "")
            if not parsed.database or path.exists() or parsed.query:
                return False
            shutil.copyfile(self.sqlite(), path)
            return True
        return self.postgres is not None and self.postgres.migrate(url)


TEMPLATES = Templates()


def migrated(url: str) -> str:
    """`url`, its database migrated to head (as a first command of scat would): a copy of the
    template when the database is new, the migrations themselves otherwise."""
    if not TEMPLATES.copy_migrated(url):
        engine = make_engine(url)
        ensure_schema(engine)
        engine.dispose()
    return url
