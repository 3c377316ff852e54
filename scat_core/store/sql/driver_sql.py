"""The driver's own cursor for the hot path's statements: a command's load and lean append, a replay.

A command is two statements and a replay one; SQLAlchemy's execution context, result and
Row objects around each cost about as much as the driver's own work. These statements run
on the unit of work's own connection, on one cursor that connection keeps (in its
transaction, if any, begun as SQLAlchemy's autobegin would), and behave as SQLAlchemy's
execute would: `before_cursor_execute` listeners see them, a driver error becomes
SQLAlchemy's DBAPIError subclass (IntegrityError, OperationalError ...: so database.as_scat_errors and
the callers map them as ever), and a lost connection is invalidated, not handed back to the
pool.

Statements are written in the driver's paramstyle: `placeholder` (positional) or
`named` (a statement written with `%(name)s`, as psycopg takes it, in sqlite3's `:name`).

The kept cursor reads one private flag of SQLAlchemy's (`_has_events`, to skip the listeners'
loop when there are none, as `Connection._exec_single_context` does): a speed trick taken
only while that flag exists on the SQLAlchemy 2 release installed and `SCAT_PUBLIC_API_ONLY`
does not name `driver` (or `1`). Otherwise every statement runs through SQLAlchemy's public
`Connection.exec_driver_sql`, with the same results and errors (tests/store/test_driver_sql.py
runs both; tests/benchmarks/bench_store.py prints what the trick earns).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import sqlalchemy
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from scat_core.domain.speed_tricks import TURNED_OFF

#: The SQLAlchemy releases the kept cursor was written and tested for.
SQLALCHEMY_TESTED = (2,)


def kept_cursor_holds() -> bool:
    """Whether SQLAlchemy still has the private `_has_events` flags the kept cursor reads."""
    major = int(sqlalchemy.__version__.split(".")[0])
    return major in SQLALCHEMY_TESTED and hasattr(Connection, "_has_events") and hasattr(Engine, "_has_events")


#: Whether statements run on the driver's kept cursor (else SQLAlchemy's public exec_driver_sql).
KEPT_CURSOR = not TURNED_OFF & {"1", "driver"} and kept_cursor_holds()

#: dialect paramstyle -> the placeholder of a positional parameter
_MARKS = {"qmark": "?", "format": "%s", "pyformat": "%s", "numeric": ":1"}
Params = Sequence[Any] | Mapping[str, Any]
#: paramstyles whose drivers take `%(name)s` (psycopg); the others (sqlite3) take `:name`
_PYFORMAT = frozenset(("pyformat", "format"))


def placeholder(conn: Connection) -> str:
    """The positional placeholder of the driver under `conn` (`?` for sqlite3, `%s` for psycopg)."""
    return _MARKS[conn.dialect.paramstyle]


@cache
def _named_style(statement: str) -> str:
    return statement.replace("%(", ":").replace(")s", "").replace("%%", "%")


def named(conn: Connection, statement: str) -> str:
    """`statement`, written with `%(name)s` parameters (pyformat), in the style of the driver under `conn`."""
    return statement if conn.dialect.paramstyle in _PYFORMAT else _named_style(statement)


def fetch_all(conn: Connection, statement: str, params: Params) -> Sequence[Any]:
    """The rows of `statement` as the driver's tuples."""
    rows: Sequence[Any] = _run(conn, statement, params, many=False, fetch=True)
    return rows


def execute(conn: Connection, statement: str, params: Params) -> int:
    """Run `statement` (a write); how many rows it changed."""
    changed: int = _run(conn, statement, params, many=False, fetch=False)
    return changed


def execute_many(conn: Connection, statement: str, rows: Sequence[Params]) -> None:
    """Run `statement` once per parameter set of `rows` (the driver's executemany)."""
    _run(conn, statement, rows, many=True, fetch=False)


#: Where a connection keeps its cursor, in the pool's info of the driver's connection (which
#: SQLAlchemy empties when that connection is closed or invalidated): one per connection, reused
#: by each statement (a psycopg cursor costs a quarter of a short statement's own work to make).
_CURSOR = "scat_driver_cursor"


def _cursor(conn: Connection) -> tuple[Any, Any]:
    """The driver's connection under `conn` and the cursor it keeps for these statements."""
    pooled = conn.connection
    dbapi_conn = pooled.dbapi_connection
    assert dbapi_conn is not None
    kept: tuple[Any, Any] | None = pooled.info.get(_CURSOR)
    if kept is None or kept[0] is not dbapi_conn:
        kept = pooled.info[_CURSOR] = (dbapi_conn, dbapi_conn.cursor())
    return kept


def _run(conn: Connection, statement: str, params: Any, many: bool, fetch: bool) -> Any:
    if not KEPT_CURSOR:
        return _run_public(conn, statement, params, many, fetch)
    if not conn.in_transaction():  # as SQLAlchemy's autobegin: its rollback() then ends what this starts
        conn.begin()
    dbapi_conn, cursor = _cursor(conn)
    try:
        if conn._has_events or conn.engine._has_events:  # as Connection._exec_single_context
            for listener in conn.dispatch.before_cursor_execute:
                statement, params = listener(conn, cursor, statement, params, None, many)
        if many:
            cursor.executemany(statement, params)
        else:
            cursor.execute(statement, params)
        return cursor.fetchall() if fetch else cursor.rowcount
    except conn.dialect.loaded_dbapi.Error as error:
        lost = conn.dialect.is_disconnect(error, dbapi_conn, cursor)
        if lost:
            conn.invalidate(error)
        else:  # a fresh cursor for the next statement
            conn.connection.info.pop(_CURSOR, None)
            cursor.close()
        raise DBAPIError.instance(statement, params, error, conn.dialect.loaded_dbapi.Error,
                                  connection_invalidated=lost, dialect=conn.dialect) from error


def _run_public(conn: Connection, statement: str, params: Any, many: bool, fetch: bool) -> Any:
    """`_run` through SQLAlchemy's public API: the same rows (as tuples), counts and errors."""
    result = conn.exec_driver_sql(statement, list(params) if many else params)
    return [tuple(row) for row in result.fetchall()] if fetch else result.rowcount


@contextmanager
def autocommit(conn: Connection) -> Iterator[Connection]:
    """`conn` with its driver in autocommit (each statement its own transaction) for the block, then
    back in transactions: what SQLAlchemy's AUTOCOMMIT isolation level does, without its
    bookkeeping around each checkout (a tenth of a command's work on the driver). A connection
    that cannot be put back (lost, or left inside a transaction) is invalidated: never handed
    out again in autocommit."""
    driver = conn.connection.driver_connection
    assert driver is not None
    driver.autocommit = True
    try:
        yield conn
    finally:
        if not conn.invalidated:
            try:
                driver.autocommit = False
            except conn.dialect.loaded_dbapi.Error as error:
                conn.invalidate(error)
