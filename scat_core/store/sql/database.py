"""The database: URL resolution, engines tuned per backend, schema upgrades, and its failures as
scat's errors.

The schema is owned by the Alembic scripts in the repository's top-level `migrations/`
folder, installed with the package as `scat_core._migrations` (setup.py maps the folder), so
a wheel, `pip install .` and `pip install -e .` all find them. `ensure_schema` keeps Alembic
off the play path: it reads `alembic_version` with plain SQL and imports Alembic only when
the database is behind `HEAD_REVISION`. Every way into the SQL store runs inside
`as_scat_errors`, so no SQLAlchemy or driver error leaves the store: a lost, restarted or
unreachable database is `StoreUnavailable` (the `Unavailable` branch), never bad input.
PostgreSQL sessions take turns through advisory locks (`advisory_lock`: schema upgrades,
projectors); SQLite needs none, its writers take turns on the file (BEGIN IMMEDIATE).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote
from weakref import WeakKeyDictionary

from platformdirs import user_data_dir
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DataError,
    DBAPIError,
    DisconnectionError,
    IntegrityError,
    InterfaceError,
    NoSuchModuleError,
    OperationalError,
    ProgrammingError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

from scat_core.domain.errors import BadInput, Hint
from scat_core.records.errors import (
    BusyWaitUnreadable,
    ConcurrencyConflict,
    CorruptHistory,
    DatabaseBusy,
    DatabaseNotGiven,
    DatabaseReadOnly,
    StoreUnavailable,
)

if TYPE_CHECKING:
    from alembic.config import Config


#: Sessions upgrading the schema at once take turns on this key (any 64-bit constant; every
#: scat version uses this one, so an older and a newer scat upgrading together take turns too).
MIGRATION_LOCK = 3_141_592_653


def lock_key(name: str) -> int:
    """A 63-bit advisory lock key for `name` (a projection's)."""
    return 0x5CA7_0000_0000 + zlib.crc32(name.encode("utf-8"))


@contextmanager
def advisory_lock(conn: Connection, key: int, *, session: bool = False) -> Iterator[None]:
    """Hold PostgreSQL's advisory lock `key` over the block, waiting for it first; nothing on SQLite.

    By default the lock belongs to the caller's transaction (`pg_advisory_xact_lock`) and lasts
    until it ends. With `session`, it is taken and committed before the block and released
    after it, so a transaction begun inside the block starts (and takes its snapshot) with the
    lock already held.
    """
    if conn.dialect.name != "postgresql":
        yield
        return
    if not session:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})
        yield
        return
    conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
    conn.commit()
    try:
        yield
    finally:
        conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
        conn.commit()

ENV_VAR = "SCAT_DB_URL"
HEAD_REVISION = "0022"
#: Every revision of the scripts in migrations/versions, oldest first (HEAD_REVISION last).
KNOWN_REVISIONS = tuple(f"{number:04d}" for number in range(1, int(HEAD_REVISION) + 1))
#: How long an SQLite command waits for another writer's lock before "database busy" (exit 5);
#: SCAT_BUSY_TIMEOUT (seconds) changes it.
SQLITE_BUSY_TIMEOUT_MS = 10_000
BUSY_ENV_VAR = "SCAT_BUSY_TIMEOUT"
WRITE_OPTION = "scat_write"

MIGRATIONS_PACKAGE = "scat_core._migrations"


def default_url() -> str:
    """The default database: an SQLite file in the user's data directory (created here)."""
    directory = Path(user_data_dir("scat", appauthor=False))
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # XDG_DATA_HOME is a file, a read-only mount, no permission ...
        if not directory.is_dir():
            raise DatabaseNotGiven(f"cannot create scat's data folder {directory}: {error.strerror}") from None
    return f"sqlite:///{directory / 'scat.db'}"


def resolve_url(url: str | None) -> str:
    """The database URL to use: the argument, else $SCAT_DB_URL, else the default file.

    An in-memory SQLite database (`sqlite://`, `sqlite:///`, `sqlite:///:memory:`) is
    refused: its games would vanish when the command ends.
    """
    if url is not None and not url.strip():
        raise DatabaseNotGiven("the database URL is empty",
                               after=", e.g. sqlite:///path/scat.db or postgresql+psycopg://user@host/db")
    chosen = url or os.environ.get(ENV_VAR) or default_url()
    _refuse_in_memory(chosen)
    return chosen


def _refuse_in_memory(url: str) -> None:
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return  # make_engine says what is wrong with it
    if parsed.get_backend_name() != "sqlite":
        return
    database = parsed.database or ""
    if database in ("", ":memory:") or database.startswith("file::memory:") or parsed.query.get("mode") == "memory":
        raise BadInput(
            f"{masked_url(url)} is an in-memory database: its games would vanish when scat exits; "
            "give a file path, e.g. sqlite:///scat.db (relative) or sqlite:////home/you/scat.db (absolute)"
        )


def masked_url(url: str) -> str:
    """`url` with any password hidden (`user:***@host`), for messages, whether it parses or not.

    Everything between the user's `:` and the last `@` is the password, even one holding an
    `@` or a `/` (which URL parsers split at the first `@`, showing the password's tail).
    """
    scheme, separator, rest = url.partition("://")
    at = rest.rfind("@")
    if not separator or rest.startswith("/") or at < 0 or ":" not in rest[:at]:
        return url
    user = rest[: rest.index(":")]
    return f"{scheme}://{user}:***@{rest[at + 1:]}"


def busy_timeout_ms() -> int:
    """How long SQLite waits for a lock held by another program: $SCAT_BUSY_TIMEOUT s, else 10 s."""
    given = os.environ.get(BUSY_ENV_VAR, "").strip()
    try:
        seconds = float(given) if given else SQLITE_BUSY_TIMEOUT_MS / 1000
    except ValueError:
        raise BusyWaitUnreadable(f"the wait for a locked database must be a number of seconds, not {given!r}") from None
    return max(0, min(int(seconds * 1000), 3_600_000))


def is_busy(error: BaseException) -> bool:
    """Whether a database error says another program holds the lock (SQLite: locked or busy)."""
    text = str(getattr(error, "orig", None) or error).lower()
    return "database is locked" in text or "database is busy" in text


def busy_error(error: BaseException | None = None) -> DatabaseBusy:
    """The one "database busy" error, naming the bounded wait."""
    seconds = busy_timeout_ms() / 1000
    return DatabaseBusy(f"database busy: another program held its lock for more than {seconds:g} s",
                        after="; try again")


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """Tune every new SQLite connection: WAL, busy timeout, foreign keys, our own BEGIN."""
    # Stop pysqlite from emitting BEGIN itself; `_on_begin` emits the right one instead.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as error:  # a read-only file keeps its journal mode
            if "readonly" not in str(error) and "read-only" not in str(error):
                raise
        cursor.execute("PRAGMA synchronous = FULL")  # every committed command survives a crash
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


#: The least a writer waits for its turn among this process's writers (see `one_writer`), seconds.
TURN_PATIENCE = 30.0
#: Each SQLite engine's writer lock in this process (see `one_writer`).
_WRITERS: WeakKeyDictionary[Engine, threading.RLock] = WeakKeyDictionary()
_WRITERS_GUARD = threading.Lock()


@contextmanager
def one_writer(engine: Engine, write: bool = True) -> Iterator[None]:
    """Around a write transaction on SQLite: this process's writers of the engine take turns.

    SQLite lets one writer in at a time; the others' BEGIN IMMEDIATE waits in its busy handler,
    which sleeps up to 100 ms between tries, so that under a server's concurrent moves a few waited
    a second while the lock was free most of the time. This process's writers queue on a lock of
    their own instead, and each goes in as soon as the one before has committed; only another
    program's writer is still waited for by the busy handler. Re-entrant: a write within a write
    on the same thread meets SQLite's own lock, as before. Elsewhere (PostgreSQL) nothing is held.
    A turn is waited for as long as the busy wait, and at least TURN_PATIENCE seconds (a queue of
    short writes); then DatabaseBusy, as a writer held too long (a stats rebuild) would have given.
    """
    if not write or engine.dialect.name != "sqlite":
        yield
        return
    with _WRITERS_GUARD:
        lock = _WRITERS.get(engine)
        if lock is None:
            lock = _WRITERS[engine] = threading.RLock()
    patience = max(busy_timeout_ms() / 1000, TURN_PATIENCE)
    if not lock.acquire(timeout=patience):
        raise DatabaseBusy(f"database busy: this program's other writers held it for more than {patience:g} s",
                           after="; try again")
    try:
        yield
    finally:
        lock.release()


def _on_sqlite_begin(conn: Connection) -> None:
    """Begin IMMEDIATE for write transactions (writers queue, never deadlock), else DEFERRED.

    On the driver's connection (public: `driver_connection`): SQLAlchemy's statement machinery
    around a bare BEGIN cost a tenth of a command. A driver error becomes SQLAlchemy's, as
    `exec_driver_sql` would make it (a locked database: OperationalError, then DatabaseBusy).
    """
    statement = "BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE_OPTION, False) else "BEGIN"
    driver = conn.connection.driver_connection
    try:
        driver.execute(statement)  # type: ignore[union-attr]
    except conn.dialect.loaded_dbapi.Error as error:
        raise DBAPIError.instance(statement, (), error, conn.dialect.loaded_dbapi.Error,
                                  dialect=conn.dialect) from error


#: The URL given for an engine opened on another (an SQLite file opened read-only), for messages.
_GIVEN_URLS: WeakKeyDictionary[Engine, str] = WeakKeyDictionary()


def make_engine(url: str, *, pre_ping: bool = False) -> Engine:
    """An engine for `url`; SQLite gets WAL, a 30 s busy timeout and foreign keys on.

    With `pre_ping` (a server's engine, whose pooled connections outlive a database restart)
    a pooled connection is tested before each use and replaced when it was lost: on a database
    server only, as an SQLite file has no server to restart or lose (its ping cost a move
    about 2% of a server's CPU, for nothing).
    """
    try:
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite":
            opened = _read_only_if_needed(parsed)
            engine = create_engine(opened)
            if opened is not parsed:  # messages name the URL the user gave, not the read-only one
                _GIVEN_URLS[engine] = url
            event.listen(engine, "connect", _on_sqlite_connect)
            event.listen(engine, "begin", _on_sqlite_begin)
        else:
            engine = create_engine(parsed, pool_pre_ping=pre_ping)
    except (ArgumentError, NoSuchModuleError, ValueError) as exc:
        reason = str(exc).replace(url, masked_url(url))
        raise BadInput(
            f"cannot use database URL {masked_url(url)!r}: {reason}; expected e.g. sqlite:///path/scat.db "
            "or postgresql+psycopg://user@host/db"
        ) from exc
    except ImportError as exc:
        raise BadInput(f"cannot use database URL {masked_url(url)!r}: driver missing ({exc})") from exc
    return engine


def _read_only_if_needed(parsed: Any) -> Any:
    """An SQLite URL opened read-only when its file (or folder) cannot be written: reads still work.

    On a read-only medium the WAL's shared-memory file cannot be made either, so the file is
    then opened as immutable (nobody can change it there).
    """
    database = parsed.database or ""
    if not database or database.startswith("file:") or parsed.query.get("mode") or ":memory:" in database:
        return parsed
    path = Path(database)
    if not path.is_file():
        return parsed
    folder = path.resolve().parent
    if os.access(path, os.W_OK) and os.access(folder, os.W_OK) and not _read_only_mount(folder):
        return parsed
    # Immutable only where no write-ahead log waits to be read (a file closed cleanly).
    wal = path.with_name(path.name + "-wal")
    immutable = (not os.access(folder, os.W_OK) or _read_only_mount(folder)) and not wal.exists()
    query = "mode=ro&uri=true" + ("&immutable=1" if immutable else "")
    return make_url(f"sqlite:///file:{quote(str(path.resolve()))}?{query}")


def _read_only_mount(folder: Path) -> bool:
    """Whether `folder` is on a file system mounted read-only (root may write anything else)."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def safe_url(engine: Engine) -> str:
    """The engine's URL with any password hidden, for messages."""
    given = _GIVEN_URLS.get(engine)
    return masked_url(given if given is not None else engine.url.render_as_string(hide_password=False))


def current_revision(conn: Connection) -> str | None:
    """The Alembic revision of the database, or None when it has no schema yet."""
    try:
        with conn.begin_nested() if conn.in_transaction() else conn.begin():
            row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
    except (OperationalError, ProgrammingError) as error:
        if is_busy(error):
            raise busy_error(error) from error
        return None  # no alembic_version table yet
    return None if row is None else str(row[0])


def migrations_dir() -> Path:
    """The folder of the installed Alembic scripts (the clone's migrations/ when editable)."""
    try:
        folder = Path(str(files(MIGRATIONS_PACKAGE)))
    except ModuleNotFoundError:
        folder = None
    if folder is None or not (folder / "env.py").is_file():
        raise BadInput(
            f"this installation of scat lacks its Alembic migrations (package {MIGRATIONS_PACKAGE}); "
            "reinstall scat (pip install ., or pipx install .)"
        )
    return folder


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic config (no ini file needed) pointing at the installed migrations, optionally bound."""
    # start-up time: Alembic loads only when the schema is behind
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    config.set_main_option("path_separator", "os")
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def connect(engine: Engine) -> Connection:
    """Connect, turning an unopenable SQLite file into one clear BadInput (a path to fix) and an
    unreachable database server into StoreUnavailable (down, restarting: try later)."""
    try:
        return engine.connect()
    except DBAPIError as exc:  # unreachable, refused, no such file, not a database ...
        if is_busy(exc):
            raise busy_error(exc) from exc
        reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
        message = f"cannot open database {safe_url(engine)}: {reason}"
        if engine.dialect.name == "sqlite":
            raise BadInput(message) from exc
        lost = StoreUnavailable(message)
        lost.reason = reason
        raise lost from exc


def upgrade(engine: Engine) -> str:
    """Bring the schema to the newest revision (Alembic, serialised); return that revision."""
    # start-up time: Alembic loads only when the schema is behind
    from alembic import command

    # start-up time: Alembic loads only when the schema is behind
    from alembic.util import CommandError

    with connect(engine) as conn:
        found = current_revision(conn)
        conn.rollback()
        _refuse_unknown_revision(engine, found)
        conn = conn.execution_options(**{WRITE_OPTION: True})
        try:
            with conn.begin(), advisory_lock(conn, MIGRATION_LOCK):
                command.upgrade(alembic_config(conn), "head")
        except CommandError as exc:  # e.g. a revision written meanwhile by a newer scat
            raise BadInput(f"cannot upgrade the database at {safe_url(engine)}: {exc}") from exc
        revision = current_revision(conn)
    return revision or ""


def is_newer_revision(revision: str | None) -> bool:
    """Whether a database's schema `revision` is none this program knows (a newer scat's)."""
    return revision is not None and revision not in KNOWN_REVISIONS


def _refuse_unknown_revision(engine: Engine, revision: str | None) -> None:
    """BadInput when the database's schema revision is none this program knows (a newer scat's)."""
    if is_newer_revision(revision):
        raise BadInput(
            f"the database at {safe_url(engine)} has schema revision {revision}, newer than this "
            f"scat knows ({HEAD_REVISION}): upgrade scat"
        )


def ensure_schema(engine: Engine) -> None:
    """Upgrade the schema on first use, cheaply: Alembic is imported only when behind."""
    with connect(engine) as conn:
        revision = current_revision(conn)
        conn.rollback()
    if revision != HEAD_REVISION:
        _refuse_unknown_revision(engine, revision)
        upgrade(engine)


def open_engine(url: str | None = None, *, pre_ping: bool = False) -> Engine:
    """Resolve `url`, make its engine and make sure its schema is current (see `make_engine`)."""
    engine = make_engine(resolve_url(url), pre_ping=pre_ping)
    with as_scat_errors(engine):
        ensure_schema(engine)
    return engine


def is_lock_error(exc: DBAPIError) -> bool:
    """Whether a database error means another writer won: locked, serialization, deadlock."""
    text = str(exc.orig).lower()
    code = getattr(exc.orig, "sqlstate", None)
    return (
        "database is locked" in text
        or "database is busy" in text
        or code in {"40001", "40P01", "55P03"}
    )


@contextmanager
def as_scat_errors(engine: Engine) -> Iterator[None]:
    """Database errors as ours: another program's lock as DatabaseBusy (after the bounded wait),
    lost races as ConcurrencyConflict, an undecodable row as CorruptHistory, a lost, restarted or
    read-only database (or no free connection) as StoreUnavailable, a value the database refuses
    as BadInput, a key taken by another writer as ConcurrencyConflict, a statement the schema refuses
    as CorruptHistory (not a scat schema, or altered)."""
    try:
        yield
    except (OperationalError, InterfaceError) as exc:
        if is_busy(exc):
            raise busy_error(exc) from exc
        if is_lock_error(exc):
            raise ConcurrencyConflict("another change won the race: try again") from exc
        if "could not decode" in str(exc.orig).lower():  # a row written outside scat, not UTF-8
            reason = str(exc.orig).split(" with text")[0]
            raise CorruptHistory(
                f"a stored row cannot be read back ({reason}): it was damaged outside scat"
            ) from exc
        raise unavailable(engine, exc) from exc
    except DBAPIError as exc:
        if is_lock_error(exc):
            raise ConcurrencyConflict("another change won the race: try again") from exc
        if exc.connection_invalidated:
            raise unavailable(engine, exc) from exc
        if isinstance(exc, IntegrityError):  # a key another writer took first
            raise ConcurrencyConflict("another change won the race: try again") from exc
        if isinstance(exc, DataError):  # PostgreSQL: a value too long or malformed for its column
            raise BadInput(f"the database {safe_url(engine)} refused a value of this command: "
                           f"{first_line(exc)}") from exc
        raise CorruptHistory(f"the database {safe_url(engine)} refused the request: {first_line(exc)}",
                             hint=Hint.UPGRADE_SCHEMA) from exc
    except (DisconnectionError, PoolTimeout) as exc:  # no connection could be had (or none free)
        raise unavailable(engine, exc) from exc


def first_line(exc: SQLAlchemyError) -> str:
    """The first line of what the driver said (SQLAlchemy's own text when there is no driver error)."""
    original = getattr(exc, "orig", None)
    lines = str(original if original is not None else exc).strip().splitlines()
    return lines[0].strip() if lines else type(exc).__name__


def unavailable(engine: Engine, exc: SQLAlchemyError) -> StoreUnavailable:
    """A database that cannot be used now (connection lost, read-only ...), as one clear error."""
    reason = first_line(exc)
    url = safe_url(engine)
    error: StoreUnavailable
    if "readonly" in reason or "read-only" in reason:
        error = DatabaseReadOnly(f"database {url} is read-only: this command would write to it "
                                 f"({reason}); commands that only read it still work")
    else:
        error = StoreUnavailable(f"cannot use database {url}: {reason}")
    error.reason = reason
    return error
