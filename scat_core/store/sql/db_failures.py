"""Database failures as scat's errors: busy, lost races, undecodable rows, an unusable database.

Every way into the SQL store runs inside `as_scat_errors`, so no SQLAlchemy or driver error
leaves this package: a lost, restarted or unreachable database is `StoreUnavailable` (the
`Unavailable` branch of scat_core.domain.errors), never bad input, on every path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    DisconnectionError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout

from scat_core.domain.errors import BadInput, Hint
from scat_core.records.errors import ConcurrencyConflict, CorruptHistory, DatabaseReadOnly, StoreUnavailable
from scat_core.store.sql.database import busy_error, is_busy, safe_url


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


#: The older name of `as_scat_errors`.
races_as_conflicts = as_scat_errors


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
