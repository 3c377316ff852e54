"""`scat db ...`: database maintenance commands."""

from __future__ import annotations

import json

import typer

from scat_cli.context import state
from scat_cli.typer_glue import PlainGroup, ScatCommand

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
    """Bring the database schema up to date; safe to run again.

    Runs the Alembic migrations the database lacks.

    Example: scat --db sqlite:///scat.db db upgrade
    """
    from scat_cli.server.command import refuse_server
    from scat_core.store.sql.database import make_engine, resolve_url, safe_url, upgrade
    from scat_core.store.sql.db_failures import as_scat_errors
    from scat_core.store.sql.triggers import restore_triggers

    refuse_server(ctx, "db upgrade")
    engine = make_engine(resolve_url(state(ctx).db_url))
    try:
        with as_scat_errors(engine):  # the database's failures as scat's errors
            revision = upgrade(engine)
            with engine.begin() as conn:  # #14 item 9: a dropped or defused trigger is put back
                restored = restore_triggers(conn)
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps({"database": safe_url(engine), "revision": revision, "restored": restored}))
        return
    for name in restored:
        typer.echo(f"restored {name}: events are immutable again (it was missing or altered)")
    typer.echo(f"database {safe_url(engine)} is at schema revision {revision} (newest)")


@db_app.command("check")
def check_command(
    ctx: typer.Context,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Check the schema revision and the event triggers; exit 1 if off.

    The triggers keep the events immutable.

    Changes nothing: `scat db upgrade` restores a missing or altered trigger.

    Example: scat db check
    """
    from scat_cli.common import runnable
    from scat_cli.server.command import refuse_server
    from scat_core.store.sql.database import (
        HEAD_REVISION,
        _connect,
        current_revision,
        is_newer_revision,
        make_engine,
        resolve_url,
        safe_url,
    )
    from scat_core.store.sql.db_failures import as_scat_errors
    from scat_core.store.sql.triggers import trigger_problems

    refuse_server(ctx, "db check")
    engine = make_engine(resolve_url(state(ctx).db_url))
    try:
        with as_scat_errors(engine), _connect(engine) as conn:
            revision = current_revision(conn)
            newer = is_newer_revision(revision)  # a newer scat's: upgrade refuses it
            problems = trigger_problems(conn) if revision is not None and not newer else {}
    finally:
        engine.dispose()
    ok = revision == HEAD_REVISION and not problems
    if as_json:
        typer.echo(json.dumps({"database": safe_url(engine), "revision": revision, "newest": HEAD_REVISION,
                               "trigger_problems": problems, "ok": ok}))
    else:
        typer.echo(f"database {safe_url(engine)}: schema revision {revision or 'none'} (newest {HEAD_REVISION})")
        for name, problem in problems.items():
            typer.echo(runnable(f"trigger {name} is {problem}: events can be changed; `scat db upgrade` restores it"))
        advice = "the database is newer than this scat: upgrade scat" if newer else runnable("run `scat db upgrade`")
        typer.echo("OK" if ok else f"NOT OK: {advice}")
    if not ok:
        raise typer.Exit(1)
