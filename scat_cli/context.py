"""State shared by every command: the global options given before the command."""

from __future__ import annotations

from dataclasses import dataclass

import typer


@dataclass
class CliState:
    """Global options: the database URL given with --db (None: $SCAT_DB_URL or default)."""

    db_url: str | None = None


def state(ctx: typer.Context) -> CliState:
    """The global state of this invocation (set by the app callback)."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, CliState) else CliState()
