"""Database failures as scat's errors: busy, lost races, undecodable rows, an unusable database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

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
def races_as_conflicts(engine: Engine) -> Iterator[None]:
    """Database errors as ours: another program's lock as DatabaseBusy (exit 5, after the
    bounded wait), lost races as ConcurrencyConflict, an undecodable row as CorruptHistory, a
    lost or read-only database as StoreUnavailable (#14 items 7, 8)."""
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
        raise


def unavailable(engine: Engine, exc: DBAPIError) -> StoreUnavailable:
    """A database that cannot be used now (connection lost, read-only ...), as one clear error."""
    lines = str(exc.orig if exc.orig is not None else exc).strip().splitlines()
    reason = lines[0].strip() if lines else type(exc).__name__
    url = safe_url(engine)
    if "readonly" in reason or "read-only" in reason:
        return DatabaseReadOnly(f"database {url} is read-only: this command would write to it "
                                f"({reason}); commands that only read it still work")
    return StoreUnavailable(f"cannot use database {url}: {reason}")
