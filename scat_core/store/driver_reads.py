"""The driver's own cursor for the hottest read (a game's whole log): plain tuples, no Row objects.

A replay is a few hundred rows fetched by one statement; SQLAlchemy's execution context and
Row objects cost a third of the fetch itself. These reads run on the unit of work's own
connection (its transaction, if any) and fail as SQLAlchemy's execute would: a driver error
becomes SQLAlchemy's DBAPIError subclass (so db_failures maps it as ever) and a lost
connection is invalidated, not handed back to the pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

#: dialect paramstyle -> the placeholder of a positional parameter
_MARKS = {"qmark": "?", "format": "%s", "pyformat": "%s", "numeric": ":1"}


def placeholder(conn: Connection) -> str:
    """The positional placeholder of the driver under `conn` (`?` for sqlite3, `%s` for psycopg)."""
    return _MARKS[conn.dialect.paramstyle]


def fetch_all(conn: Connection, statement: str, params: tuple[Any, ...]) -> Sequence[Any]:
    """The rows of `statement` (its placeholders as `placeholder` gives) as the driver's tuples."""
    if not conn.in_transaction():  # as SQLAlchemy's autobegin: its rollback() then ends what this starts
        conn.begin()
    dbapi_conn = conn.connection.dbapi_connection
    assert dbapi_conn is not None
    cursor = dbapi_conn.cursor()
    try:
        cursor.execute(statement, params)
        rows = cursor.fetchall()
        cursor.close()
        return rows
    except conn.dialect.loaded_dbapi.Error as error:
        lost = conn.dialect.is_disconnect(error, dbapi_conn, cursor)
        if lost:
            conn.invalidate(error)
        else:
            cursor.close()
        raise DBAPIError.instance(statement, params, error, conn.dialect.loaded_dbapi.Error,
                                  connection_invalidated=lost, dialect=conn.dialect) from error
