"""Database URLs as a user types them: the slips worth a friendly line (`postgres://`, a relative SQLite path).

Plain string work: nothing here imports SQLAlchemy.
"""

from __future__ import annotations

#: Schemes SQLAlchemy does not load (or loads with a driver scat does not install) -> the one to write.
_SCHEMES = {"postgres": "postgresql+psycopg", "postgresql": "postgresql+psycopg",
            "postgresql+psycopg2": "postgresql+psycopg", "sqlite3": "sqlite"}


def db_url_problem(url: str) -> str | None:
    """What is wrong with a database URL as typed (a scheme scat cannot use), or None."""
    scheme, separator, rest = url.strip().partition("://")
    if not separator:
        return (f"{url.strip()!r} is not a database URL: write sqlite:////absolute/path/scat.db or "
                "postgresql+psycopg://user@host/db")
    better = _SCHEMES.get(scheme.lower())
    if better is not None:
        return f"write {better}:// instead of {scheme}:// (e.g. {better}://{_password_hidden(rest)})"
    return None


def relative_sqlite_path(url: str) -> str | None:
    """The path of an SQLite URL with a relative path (`sqlite:///tmp/x.db` is ./tmp/x.db), else None."""
    scheme, separator, rest = url.strip().partition("://")
    if not separator or not scheme.lower().startswith("sqlite") or not rest.startswith("/"):
        return None
    path = rest[1:].partition("?")[0]
    return path if path and not path.startswith("/") and path != ":memory:" else None


def unopenable_sqlite_hint(url: str) -> str:
    """The hint for an SQLite file that cannot be opened at a relative path ("" for any other URL)."""
    path = relative_sqlite_path(url)
    if path is None:
        return ""
    return (f" ({path} is relative to the current folder: for the absolute path /{path} write four slashes, "
            f"sqlite:////{path})")


def _password_hidden(rest: str) -> str:
    """The part of a URL after `://` with its password (`user:password@`) shown as `***`."""
    userinfo, at, host = rest.partition("@")
    if not at or "/" in userinfo or ":" not in userinfo:
        return rest
    return f"{userinfo.partition(':')[0]}:***@{host}"
