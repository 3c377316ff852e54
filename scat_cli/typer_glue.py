"""The Typer plumbing of the `scat` command line, on Typer's public API: custom `TyperGroup` and
`TyperCommand` classes, `typer.Typer` apps, `typer.BadParameter`, `typer.Exit`.

- Lazy commands: the root group lists each command by name (`COMMANDS`); a command's module
  is imported, and its Typer app built, only when it runs (`LazyCommand`); a group of commands
  (`GROUPS`: `db`, `key`) is imported and built only when asked for.
- Usage errors and scat's errors become one line on stderr with the contract's exit code
  (`one_line_errors`), worded from scat's own declarations (`scat_cli.params`).
- Seat order and empty file names come from the words as typed (`scat_cli.params.given`).

One private Typer hook remains, for start-up speed: `scat_cli.params.typer_converts_with`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperCommand, TyperGroup

from scat_cli.arguments import ask_token
from scat_cli.command_lines import COMMANDS, GROUPS, SUMMARIES, runnable
from scat_cli.output import fail, failed_unexpectedly, is_output_error, output_failed, say
from scat_cli.params import convert_plainly, declared, given, usage_message
from scat_cli.settings import acting
from scat_core.domain.errors import ScatError

if TYPE_CHECKING:
    from collections.abc import Callable

#: The context Typer passes to a command class (an instance of its vendored click's, a private class).
Context = Any

#: ctx.meta key: the words of the command line, each with the parameter it gives (`params.given`).
GIVEN = "scat.given"


class PlainGroup(TyperGroup):
    """A group whose plain parameters are converted without pydantic; errors told in one line."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """Parse the group's options, a usage error told in one line (exit 2); no words: the help."""
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            typer.echo(ctx.get_help(), err=True, color=ctx.color)  # no command given: the help
            raise typer.Exit(2)
        with one_line_errors(ctx):
            convert_plainly(self, ctx)
            return super().parse_args(ctx, args)

    def invoke(self, ctx: Context) -> Any:
        """Run the subcommand, mapping domain, usage and database errors to the contract's exit codes."""
        with one_line_errors(ctx):
            return super().invoke(ctx)


class ScatGroup(PlainGroup):
    """The root group: the commands of `COMMANDS` and `GROUPS` built lazily, close names suggested for a typo."""

    def list_commands(self, ctx: Context) -> list[str]:
        """Every command name, the lazy ones first."""
        lazy = [*COMMANDS, *GROUPS]
        return [*lazy, *(name for name in super().list_commands(ctx) if name not in lazy)]

    def get_command(self, ctx: Context, cmd_name: str) -> Any:
        """The command `cmd_name` (a lazy one: nothing imported yet; a group: its module imported now)."""
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = LazyCommand(cmd_name, rich_markup_mode=self.rich_markup_mode)
        if cmd_name not in self.commands and cmd_name in GROUPS:
            self.commands[cmd_name] = self._group(cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: Context, formatter: Any) -> None:
        """The commands as `TyperGroup.format_commands` lists them, each lazy one by its summary
        (`SUMMARIES`): `scat --help` imports no command's module and builds no group."""
        rows = []
        for name in self.list_commands(ctx):
            if name in SUMMARIES and name not in self.commands:
                rows.append((name, TyperCommand(name, help=SUMMARIES[name])))
            elif (command := self.get_command(ctx, name)) is not None and not command.hidden:
                rows.append((name, command))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, command.get_short_help_str(limit)) for name, command in rows])

    def _group(self, name: str) -> Any:
        """The click group of `GROUPS[name]`, built as `add_typer(app, name=name)` on the root would build it."""
        from importlib import import_module

        module, attribute = GROUPS[name]
        holder = typer.Typer(add_completion=False, rich_markup_mode=self.rich_markup_mode)
        holder.add_typer(getattr(import_module(module), attribute), name=name)
        built = typer.main.get_command(holder)  # Typer's documented way to its click object ("Using Click")
        assert isinstance(built, TyperGroup)
        return built.commands[name]

    def resolve_command(self, ctx: typer.Context, args: list[str]) -> Any:  # type: ignore[override]
        """Find the command, suggesting a close name for a typo (lazy commands too)."""
        from difflib import get_close_matches

        try:
            return super().resolve_command(ctx, args)
        except typer.TyperException as error:
            matches = get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if matches and "Did you mean" not in error.message:
                error.message = f"{error.message.rstrip('.')}. Did you mean {matches[0]!r}?"
            raise


class LazyCommand(TyperCommand):
    """A command known by name until it runs: then its module is imported and its Typer app run.

    Everything after the command name goes, as typed, to a one-command Typer app of the
    command's function, whose context is a child of the root's (global options, meta).
    """

    def __init__(self, name: str, rich_markup_mode: Any = None) -> None:
        super().__init__(name, add_help_option=False, rich_markup_mode=rich_markup_mode)

    def function(self) -> Callable[..., Any]:
        """The command's function (its module imported now)."""
        from importlib import import_module

        module, function = COMMANDS[str(self.name)]
        return getattr(import_module(module), function)

    def get_short_help_str(self, limit: int = 45) -> str:
        """The first sentence of the function's docstring, as the root's help lists it."""
        import inspect

        self.help = self.help or inspect.getdoc(self.function())
        return super().get_short_help_str(limit)

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """Keep every word for the command itself."""
        ctx.args = list(args)
        return ctx.args

    def single(self) -> typer.Typer:
        """The command's one-command Typer app."""
        single = typer.Typer(add_completion=False, pretty_exceptions_enable=False,
                             rich_markup_mode=self.rich_markup_mode)
        single.command(self.name, cls=ScatCommand)(self.function())
        return single

    def make_context(self, info_name: str | None, args: list[str], parent: Context | None = None,
                     **extra: Any) -> Context:
        """The command's context; for shell completion (resilient parsing), the built command's, with its parameters."""
        if extra.get("resilient_parsing"):
            built = typer.main.get_command(self.single())
            return built.make_context(info_name, args, parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Context) -> Any:
        """Build the command's one-command Typer app and run it on the words given."""
        code = self.single()(ctx.args, prog_name=self.name, standalone_mode=False, parent=ctx.parent)
        if isinstance(code, int) and code:  # a typer.Exit of the command (its return value is None)
            raise typer.Exit(code)
        return code


class ScatCommand(TyperCommand):
    """A scat command: errors in one line, plain usage line, plain parameters without pydantic."""

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """Parse the arguments; an empty file name ('' would become the current folder) is refused first."""
        with one_line_errors(ctx):
            params = self.get_params(ctx)
            _default_as(ctx, params)
            ctx.meta[GIVEN] = typed = given(params, args)
            _refuse_empty_paths(self, typed)
            convert_plainly(self, ctx)
            return super().parse_args(ctx, args)

    def invoke(self, ctx: Context) -> Any:
        """Run the command; `--token -` is asked for first (#14 item 9: no token in `ps`)."""
        with one_line_errors(ctx):
            if ctx.params.get("token") == "-":
                ctx.params["token"] = ask_token("-")
            return super().invoke(ctx)

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        """Typer's pieces without the braces it puts around required arguments."""
        pieces = super().collect_usage_pieces(ctx)
        return [
            piece[1:-1] if (piece[:1], piece[-1:]) == ("{", "}") or piece.startswith("[[") else piece
            for piece in pieces
        ]

    def format_options(self, ctx: Context, formatter: Any) -> None:
        """Arguments and options as click lists them: an argument by its name alone (no type label)."""
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                name = str(param.metavar or param.name) + ("..." if param.metavar is None and param.nargs != 1 else "")
                arguments.append((name, record[1]))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def _default_as(ctx: Context, params: list[Any]) -> None:
    """The command's `--as` defaults to SCAT_AS or config.toml's `as` (see scat_cli.settings): click's default map."""
    from scat_cli.settings import state

    default = state(ctx).as_default
    acting = next((param for param in params if "--as" in getattr(param, "opts", ())), None)
    if default and acting is not None:
        ctx.default_map = {**(ctx.default_map or {}), acting.name: default}


def _refuse_empty_paths(command: TyperCommand, typed: list[tuple[str | None, str | None]]) -> None:
    """BadInput when a file parameter (FILE, -o FILE) was given as '': "no file given", not "." used."""
    from pathlib import Path
    from typing import get_args

    from scat_core.domain.errors import BadInput

    found = declared(command.callback)
    for name, value in typed:
        if value == "" and name in found and Path in (found[name].kind, *get_args(found[name].kind)):  # FILE...
            param = next(param for param in command.params if param.name == name)
            opts = [opt for opt in param.opts if opt.startswith("-")]
            raise BadInput(f"no file given: {opts[0] if opts else str(param.metavar or name).upper()} is empty")


def seat_order(ctx: typer.Context, players: list[str], bots: list[str]) -> list[tuple[str, bool]]:
    """(name, is_bot) in the order the --player and --bot options were given (R6)."""
    humans, robots = iter(players), iter(bots)
    kinds = [name for name, _ in ctx.meta.get(GIVEN, []) if name in ("players", "bots")]
    if len(kinds) != len(players) + len(bots):  # not from the command line (a test calling the function)
        kinds = ["players"] * len(players) + ["bots"] * len(bots)
    return [(next(robots), True) if kind == "bots" else (next(humans), False) for kind in kinds]


@contextmanager
def one_line_errors(ctx: Context) -> Iterator[None]:
    """Scat's errors (the store's database errors among them) and usage errors as one line on stderr with
    the contract's exit code."""
    with acting(ctx):
        try:
            yield
        except ScatError as error:
            fail(error)
        except typer.TyperException as error:
            if getattr(error, "exit_code", 1) != 2:  # a usage error is exit 2
                raise
            _usage_error(error, ctx)
        except OSError as error:
            if not is_output_error(error):
                failed_unexpectedly(error, ctx)
            output_failed(error, ctx)
        except (typer.Exit, typer.Abort):
            raise
        except Exception as error:  # a defect of scat's: one line, never a traceback (cli.md)
            failed_unexpectedly(error, ctx)


def _usage_error(error: typer.TyperException, ctx: Context) -> None:
    """Tell a usage error in one line, pointing at the command's help (exit 2)."""
    context = getattr(error, "ctx", None)
    # Some errors (an option without its value) carry no context: name the subcommand.
    fallback = f"{ctx.command_path} {ctx.invoked_subcommand}" if ctx.invoked_subcommand else ctx.command_path
    command = context.command_path if context is not None else fallback
    message = usage_message(error, (context or ctx).meta.get(GIVEN, []))
    if message.startswith("No such option: --db"):  # `scat stats --db URL`
        message = f"--db is a global option: give it before the command (`scat --db URL {command[5:]} ...`)"
    say(runnable(f"scat: error: {message} (see `{command} --help`)"), err=True)
    raise typer.Exit(2) from None
