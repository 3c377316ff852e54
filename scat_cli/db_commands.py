"""`scat db ...`: database maintenance commands."""

from __future__ import annotations

import json

import typer

from scat_cli.common import PlainGroup, ScatCommand
from scat_cli.context import state

db_app = typer.Typer(
    help="Database maintenance.\n\nExample: scat db upgrade",
    no_args_is_help=True,
    cls=PlainGroup,  # plain options, without pydantic
)


@db_app.command("upgrade", cls=ScatCommand)  # plain options, without pydantic
def upgrade_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Bring the database schema up to date (Alembic); safe to run again.

    Example: scat --db sqlite:///scat.db db upgrade
    """
    from scat_core.store.database import make_engine, resolve_url, safe_url, upgrade

    engine = make_engine(resolve_url(state(ctx).db_url))
    try:
        revision = upgrade(engine)
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps({"database": safe_url(engine), "revision": revision}))
    else:
        typer.echo(f"database {safe_url(engine)} is at schema revision {revision} (newest)")
