"""`scat db ...`: database maintenance commands."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import json

import typer

from scat_cli.settings import state
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
    from scat_cli.serve_command import refuse_server
    from scat_core.store.sql.database import as_scat_errors, make_engine, resolve_url, safe_url, upgrade
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
    """Check schema, event triggers and snapshots; exit 1 if off.

    The triggers keep the events immutable. Each game's snapshot must be sealed by this
    installation's key and folded at an event of its log: one that is not is ignored by
    every command (they fold the events) and named here.

    Changes nothing: `scat db upgrade` restores a missing or altered trigger; the next move
    in a game writes it a fresh snapshot.

    Example: scat db check
    """
    from scat_cli.command_lines import runnable
    from scat_cli.serve_command import refuse_server
    from scat_core.records.signing import KeyRing
    from scat_core.store.sql.database import (
        HEAD_REVISION,
        as_scat_errors,
        connect,
        current_revision,
        is_newer_revision,
        make_engine,
        resolve_url,
        safe_url,
    )
    from scat_core.store.sql.games_list import snapshot_problems
    from scat_core.store.sql.triggers import trigger_problems

    refuse_server(ctx, "db check")
    engine = make_engine(resolve_url(state(ctx).db_url))
    key = KeyRing.default().snapshot_key()  # None: no key file here, nothing sealed can be checked
    snapshots: dict[str, str] = {}
    try:
        with as_scat_errors(engine), connect(engine) as conn:
            revision = current_revision(conn)
            newer = is_newer_revision(revision)  # a newer scat's: upgrade refuses it
            current = revision == HEAD_REVISION
            problems = trigger_problems(conn) if revision is not None and not newer else {}
            if current and key is not None:
                snapshots = snapshot_problems(conn, key)
    finally:
        engine.dispose()
    ok = current and not problems and not snapshots
    if as_json:
        typer.echo(json.dumps({"database": safe_url(engine), "revision": revision, "newest": HEAD_REVISION,
                               "trigger_problems": problems, "snapshot_problems": snapshots,
                               "snapshots_checked": current and key is not None, "ok": ok}))
    else:
        typer.echo(f"database {safe_url(engine)}: schema revision {revision or 'none'} (newest {HEAD_REVISION})")
        for name, problem in problems.items():
            typer.echo(runnable(f"trigger {name} is {problem}: events can be changed; `scat db upgrade` restores it"))
        for game_id, problem in snapshots.items():
            typer.echo(runnable(f"snapshot of game {game_id} does not match: {problem}; commands ignore it and "
                                f"fold the events (`scat audit {game_id}` checks them)"))
        if current and key is None:
            typer.echo("snapshots not checked: this installation has no signing key yet")
        if newer:
            advice = "the database is newer than this scat: upgrade scat"
        elif not current or problems:
            advice = runnable("run `scat db upgrade`")
        else:
            advice = "a snapshot does not match its game (above)"
        typer.echo("OK" if ok else f"NOT OK: {advice}")
    if not ok:
        raise typer.Exit(1)
