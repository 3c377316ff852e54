"""The `scat` command line: a thin shell that delegates to scat_core and maps its errors.

Keep imports here light: `scat --help` must not import SQLAlchemy; commands import the
store lazily.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import sys

import typer

from scat_cli.typer_glue import ScatGroup
from scat_core.domain.errors import ScatError

app = typer.Typer(
    name="scat",
    help="Scat (Thirty-One): play the card game against people and bots, with a "
    "tamper-evident event log.\n\nDefaults for --server, --db and --as can be kept in config.toml in your "
    "config directory (`scat config --help`): a flag beats the environment (SCAT_SERVER, SCAT_DB_URL, "
    "SCAT_AS), which beats the file.\n\nExample: scat new --player you --bot ann --bot bob",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,  # Typer's --install-completion / --show-completion (values: scat_cli/completion.py)
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=ScatGroup,  # the commands of scat_cli.command_lines.COMMANDS and GROUPS, built lazily
    rich_markup_mode=None,  # plain click help: `scat --help` in well under 150 ms
)


def _version(value: bool) -> None:
    """`scat --version`: print the installed version and stop."""
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"scat {version('scat')}")
        except PackageNotFoundError:
            typer.echo("scat (version unknown: not installed as a package)")
        raise typer.Exit()


@app.callback()
def _global_options(
    ctx: typer.Context,
    db: str | None = typer.Option(
        None,
        "--db",
        metavar="URL",
        help="Database URL (sqlite:///path/scat.db or postgresql+psycopg://user@host/db). "
        "Default: $SCAT_DB_URL, else db in config.toml, else an SQLite file in your user data directory.",
    ),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                 help="Print the version and exit."),
    server: str | None = typer.Option(
        None,
        "--server",
        metavar="URL",
        help="Play through a Scat backend (`scat serve`) instead of a database, e.g. "
        "https://scat.example.org. Default: $SCAT_SERVER, else server in config.toml.",
    ),
) -> None:
    """Global options, given before the command."""
    from scat_cli.settings import settle

    ctx.obj = settle(ctx, db, server)


def main() -> None:
    """Run the CLI; a ScatError becomes one line on stderr and its contract exit code."""
    try:
        app()
    except ScatError as exc:
        from scat_cli.command_lines import runnable
        from scat_cli.errors import exit_code, wording
        from scat_cli.render import terminal_safe

        print(terminal_safe(runnable(f"scat: error: {wording(exc)}")), file=sys.stderr)
        sys.exit(exit_code(exc))
    except KeyboardInterrupt:
        print("scat: interrupted", file=sys.stderr)
        sys.exit(130)
