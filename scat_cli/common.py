"""What every command shares: option types, opening the service, printing, clean errors.

Nothing here imports SQLAlchemy or pydantic at module level: `scat --help` stays fast.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from scat_cli.context import state
from scat_core.domain.errors import ScatError

if TYPE_CHECKING:
    from typer._click import Command, Context

    from scat_core.service.games import GameService

GameArg = Annotated[str, typer.Argument(metavar="GAME", help="The game id (see `scat games`).", show_default=False)]
AsName = Annotated[
    str, typer.Option("--as", metavar="NAME", help="The player acting.", show_default=False)
]
AsViewer = Annotated[
    str | None,
    typer.Option("--as", metavar="NAME", help="See the game as this player (his own hand too).",
                 show_default=False),
]
Token = Annotated[
    str | None,
    typer.Option("--token", envvar="SCAT_TOKEN", metavar="TOKEN", show_default=False,
                 help="The player's token, for a protected game (or set SCAT_TOKEN)."),
]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON document instead of the human view.")]

_PASSWORD_RE = re.compile(r"://[^/@]*:[^/@]*@")


def fail(error: ScatError) -> NoReturn:
    """Stop the command with one line on stderr and the error's exit code."""
    typer.echo(f"scat: error: {error}", err=True)
    raise typer.Exit(error.exit_code)


#: Every command: name -> (module, function). Modules are imported, and the click command
#: built, only when that command runs (or help lists them): `scat show` builds one command.
COMMANDS: dict[str, tuple[str, str]] = {
    "new": ("scat_cli.play", "new"),
    "games": ("scat_cli.play", "games"),
    "show": ("scat_cli.play", "show"),
    "draw": ("scat_cli.play", "draw"),
    "discard": ("scat_cli.play", "discard"),
    "knock": ("scat_cli.play", "knock"),
    "declare": ("scat_cli.play", "declare"),
    "throw-down": ("scat_cli.play", "throw_down"),
    "log": ("scat_cli.history", "log"),
    "replay": ("scat_cli.history", "replay"),
    "audit": ("scat_cli.history", "audit"),
    "export": ("scat_cli.history", "export"),
    "import": ("scat_cli.history", "import_"),
    "rules": ("scat_cli.rules_command", "rules"),
}


class ScatGroup(TyperGroup):
    """The root group: builds commands lazily; errors become one line on stderr, no traceback."""

    def list_commands(self, ctx: Context) -> list[str]:
        """Every command name, the lazy ones first."""
        return [*COMMANDS, *(name for name in super().list_commands(ctx) if name not in COMMANDS)]

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        """The click command `cmd_name`, built on first use."""
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = self._build(cmd_name)
        return super().get_command(ctx, cmd_name)

    def _build(self, name: str) -> Command:
        from importlib import import_module

        from typer.main import get_command_from_info
        from typer.models import CommandInfo

        module, function = COMMANDS[name]
        callback = getattr(import_module(module), function)
        info = CommandInfo(name=name, callback=callback, cls=getattr(callback, "command_class", None))
        return get_command_from_info(info, pretty_exceptions_short=True, rich_markup_mode=self.rich_markup_mode)

    def resolve_command(self, ctx: Context, args: list[str]) -> tuple[str | None, Command | None, list[str]]:
        """Find the command, suggesting close names for a typo."""
        from difflib import get_close_matches

        from typer._click.exceptions import UsageError

        try:
            return super().resolve_command(ctx, args)
        except UsageError as error:
            matches = get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if matches and "Did you mean" not in error.message:
                error.message = f"{error.message.rstrip('.')}. Did you mean {matches[0]!r}?"
            raise

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """Parse the global options, a usage error told in one line (exit 2)."""
        with _one_line_errors():
            return super().parse_args(ctx, args)

    def invoke(self, ctx: Context) -> Any:
        """Run the command, mapping domain and usage errors to the contract's exit codes."""
        with _one_line_errors():
            return super().invoke(ctx)


@contextmanager
def _one_line_errors() -> Iterator[None]:
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    try:
        yield
    except ScatError as error:
        fail(error)
    except NoArgsIsHelpError:
        raise
    except UsageError as error:
        command = error.ctx.command_path if error.ctx else "scat"
        message = error.format_message().rstrip(".")
        typer.echo(f"scat: error: {message} (see `{command} --help`)", err=True)
        raise typer.Exit(error.exit_code) from None


def command_class(cls: type[TyperCommand]) -> Any:
    """Decorate a command function to be built with the click command class `cls`."""

    def mark(function: Any) -> Any:
        function.command_class = cls
        return function

    return mark


class SeatOrderCommand(TyperCommand):
    """A command that remembers the order in which --player and --bot were given (R6)."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """Record the order of --player/--bot occurrences in ctx.meta, then parse as usual."""
        _, _, order = self.make_parser(ctx).parse_args(args=list(args))
        ctx.meta["scat.seat_order"] = [param.name for param in order if param.name in ("players", "bots")]
        return super().parse_args(ctx, args)


def seat_order(ctx: typer.Context, players: list[str], bots: list[str]) -> list[tuple[str, bool]]:
    """(name, is_bot) in the order the --player and --bot options were given."""
    humans, robots = iter(players), iter(bots)
    kinds = ctx.meta.get("scat.seat_order") or ["players"] * len(players) + ["bots"] * len(bots)
    return [(next(robots), True) if kind == "bots" else (next(humans), False) for kind in kinds]


@contextmanager
def service(ctx: typer.Context) -> Iterator[GameService]:
    """The game service over this invocation's database, disposed of afterwards."""
    from scat_core.service.games import GameService

    opened = GameService.open(state(ctx).db_url)
    try:
        yield opened
    finally:
        opened.store.engine.dispose()


def scat_prefix(ctx: typer.Context) -> str:
    """`scat`, or `scat --db URL` when the URL was given on the command line (hints use it)."""
    url = state(ctx).db_url
    if not url:
        return "scat"
    if _PASSWORD_RE.search(url):
        return "scat --db URL"
    return f"scat --db {url}" if " " not in url else f"scat --db '{url}'"


def print_json(document: Any) -> None:
    """Print one JSON document on stdout."""
    typer.echo(json.dumps(document, indent=2, ensure_ascii=False))


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (colours and suit symbols) or a pipe/file (plain text)."""
    return sys.stdout.isatty()


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (progress bars)."""
    return sys.stderr.isatty()
