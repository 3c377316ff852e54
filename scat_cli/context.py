"""State shared by every command: the global options given before the command."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import typer

_ACTING: ContextVar[Any] = ContextVar("scat_acting_context", default=None)


@dataclass
class CliState:
    """Global options: the database URL given with --db or config.toml (None: $SCAT_DB_URL or default), and
    the backend given with --server, $SCAT_SERVER or config.toml (None: use a database directly)."""

    db_url: str | None = None
    server: str | None = None
    server_given: bool = False  # --server on the command line (hints then repeat it)
    db_given: bool = True  # --db on the command line (hints then repeat it), not from config.toml
    as_default: str | None = None  # every command's --as when not given: SCAT_AS, else `as` in config.toml


def state(ctx: typer.Context) -> CliState:
    """The global state of this invocation (set by the app callback)."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, CliState) else CliState()


@contextmanager
def acting(ctx: Any) -> Iterator[None]:
    """Within: `acting_context()` is `ctx`, the context of the command (or group) at work."""
    token = _ACTING.set(ctx)
    try:
        yield
    finally:
        _ACTING.reset(token)


def acting_context() -> Any:
    """The context of the command at work (see `acting`), or None outside one."""
    return _ACTING.get()
