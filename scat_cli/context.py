"""State shared by every command: the global options given before the command."""

from __future__ import annotations

from dataclasses import dataclass

import typer


@dataclass
class CliState:
    """Global options: the database URL given with --db (None: $SCAT_DB_URL or default), and
    the backend given with --server or $SCAT_SERVER (None: use a database directly)."""

    db_url: str | None = None
    server: str | None = None
    server_given: bool = False  # --server on the command line (hints then repeat it)


def state(ctx: typer.Context) -> CliState:
    """The global state of this invocation (set by the app callback)."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, CliState) else CliState()
