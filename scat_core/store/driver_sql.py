"""The driver's own cursor for the hot path's statements: a command's load and lean append, a replay.

A command is two statements and a replay one; SQLAlchemy's execution context, result and
Row objects around each cost about as much as the driver's own work. These statements run
on the unit of work's own connection (in its transaction, if any, begun as SQLAlchemy's
autobegin would) and behave as SQLAlchemy's execute would: `before_cursor_execute`
listeners see them, a driver error becomes SQLAlchemy's DBAPIError subclass (IntegrityError,
OperationalError ...: so db_failures and the callers map them as ever), and a lost
connection is invalidated, not handed back to the pool.

Statements are written in the driver's paramstyle: `placeholder` (positional) or
`named` (a statement written with `%(name)s`, as psycopg takes it, in sqlite3's `:name`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

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


def _run(conn: Connection, statement: str, params: Any, many: bool, fetch: bool) -> Any:
    if not conn.in_transaction():  # as SQLAlchemy's autobegin: its rollback() then ends what this starts
        conn.begin()
    dbapi_conn = conn.connection.dbapi_connection
    assert dbapi_conn is not None
    cursor = dbapi_conn.cursor()
    try:
        if conn._has_events or conn.engine._has_events:  # as Connection._exec_single_context
            for listener in conn.dispatch.before_cursor_execute:
                statement, params = listener(conn, cursor, statement, params, None, many)
        if many:
            cursor.executemany(statement, params)
        else:
            cursor.execute(statement, params)
        result = cursor.fetchall() if fetch else cursor.rowcount
        cursor.close()
        return result
    except conn.dialect.loaded_dbapi.Error as error:
        lost = conn.dialect.is_disconnect(error, dbapi_conn, cursor)
        if lost:
            conn.invalidate(error)
        else:
            cursor.close()
        raise DBAPIError.instance(statement, params, error, conn.dialect.loaded_dbapi.Error,
                                  connection_invalidated=lost, dialect=conn.dialect) from error


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
