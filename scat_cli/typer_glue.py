"""The Typer plumbing of the `scat` command line: the lazy root group, the command class,
usage errors told in one line, parameters converted without pydantic, seat order.

Commands never import this module's internals: they declare parameters with `typer.Option`
/ `typer.Argument` and pick a command class with `command_class`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer
from typer import BadParameter
from typer.core import TyperCommand, TyperGroup

from scat_cli.common import (
    COMMANDS,
    ask_token,
    database_error,
    fail,
    is_output_error,
    output_failed,
    runnable,
)
from scat_core.domain.errors import ScatError

if TYPE_CHECKING:
    from typer._click import Command, Context


class BadChoice(BadParameter):
    """A value that is none of an enum parameter's choices (worded by `usage_message`)."""

    def __init__(self, value: Any, ctx: Context, param: Any) -> None:
        super().__init__(f"{value!r} is not one of the choices", ctx=ctx, param=param)
        self.value = value


class _PlainValue:
    """Typer's coercion of one parameter for plain str/bool/list[str]/enum values, without pydantic.

    Typer 0.29 builds a pydantic TypeAdapter for every parameter it converts; that import
    and build is a good share of a command's start-up, and of `scat COMMAND --help` (the
    root's --db). These types need no pydantic: the result is the same value typer returns.
    """

    def __init__(self, annotation: Any, case_sensitive: bool) -> None:
        self.annotation, self.case_sensitive = annotation, case_sensitive

    def coerce(self, value: Any, param: Any, ctx: Context) -> Any:
        """The parameter's value, as typer's own coercion would give it."""
        many = param.multiple or param.nargs == -1
        if value is None:
            return () if many else None
        if not many:
            return self._one(value, param, ctx)
        if isinstance(value, str):
            raise BadParameter("Value must be an iterable.", ctx=ctx, param=param)
        return [self._one(item, param, ctx) for item in value]

    def _one(self, value: Any, param: Any, ctx: Context) -> Any:
        kind = self.annotation
        if kind is bool and isinstance(value, bool):
            return value
        if isinstance(value, bytes):
            value = value.decode(sys.getfilesystemencoding(), "replace")
        if kind is str:
            return str(value)
        if isinstance(value, kind):  # an enum member already (a default)
            return value
        wanted = str(value) if self.case_sensitive else str(value).casefold()
        for member in kind:
            if wanted == (str(member.value) if self.case_sensitive else str(member.value).casefold()):
                return member
        raise BadChoice(value, ctx=ctx, param=param)


def _plain_kind(param: Any) -> Any:
    """The annotation of a typer parameter that `_PlainValue` converts, else None."""
    from enum import Enum
    from typing import get_args, get_origin

    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", False) is not None:
        return None  # not a typer parameter (or typer changed): typer converts it
    info = descriptor.parameter_info
    if info.parser is not None or info.callback is not None or getattr(info, "click_type", None) is not None:
        return None
    kind = descriptor.annotation
    if get_origin(kind) is list and get_args(kind) == (str,):
        kind = str
    if kind is str or (kind is bool and not param.multiple) or (isinstance(kind, type) and issubclass(kind, Enum)):
        return kind
    return None


def _help_placeholder(param: Any, ctx: Context) -> str | None:
    """What help writes after a parameter's name: nothing for an argument (its name is its metavar).

    An option's metavar when it has one, else click's plain words (INT, TEXT, a|b), never
    typer's `<int>`/`<str>` type labels.
    """
    if getattr(param, "param_type_name", "") == "argument":
        return None
    if param.metavar is not None:
        return str(param.metavar)
    descriptor = getattr(param, "type_descriptor", None)
    choices = getattr(descriptor, "choices", None) if getattr(descriptor, "is_choice", False) else None
    if choices:
        return "|".join(str(getattr(choice, "value", choice)) for choice in choices)
    label = str(type(param).display_type(param, ctx)).strip("<>").removesuffix(" range")
    return {"int": "INT", "str": "TEXT", "float": "FLOAT", "path": "PATH"}.get(label, label.upper())


def plain_coercion(params: list[Any]) -> list[Any]:
    """`params`, the plain ones set to be converted without pydantic (see `_PlainValue`), helped plainly."""
    from functools import partial

    for param in params:
        if hasattr(param, "display_type_rich") and "display_type_rich" not in vars(param):
            param.display_type_rich = partial(_help_placeholder, param)
        kind = _plain_kind(param)
        if kind is not None:
            info = param.type_descriptor.parameter_info
            param._runtime_param = _PlainValue(kind, bool(getattr(info, "case_sensitive", True)))
    return params


class PlainGroup(TyperGroup):
    """A group whose plain parameters (--help too) are converted without pydantic."""

    def get_params(self, ctx: Context) -> list[Any]:
        """The parameters (--help too), the plain ones converted without pydantic."""
        return plain_coercion(super().get_params(ctx))


class ScatGroup(PlainGroup):
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
        """The click command of one function, built with Typer's public API (a one-command app)."""
        from importlib import import_module

        from typer.main import get_command

        module, function = COMMANDS[name]
        callback = getattr(import_module(module), function)
        single = typer.Typer(add_completion=False, rich_markup_mode=self.rich_markup_mode)
        single.command(name, cls=getattr(callback, "command_class", ScatCommand))(callback)
        return get_command(single)

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
        with _one_line_errors(ctx):
            return super().parse_args(ctx, args)

    def invoke(self, ctx: Context) -> Any:
        """Run the command, mapping domain, usage and database errors to the contract's exit codes."""
        with _one_line_errors(ctx):
            return super().invoke(ctx)


@contextmanager
def _one_line_errors(ctx: Context) -> Iterator[None]:
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    try:
        yield
    except ScatError as error:
        fail(error)
    except NoArgsIsHelpError:
        raise
    except UsageError as error:
        # Some errors (an option without its value) carry no context: name the subcommand.
        fallback = f"{ctx.command_path} {ctx.invoked_subcommand}" if ctx.invoked_subcommand else ctx.command_path
        command = error.ctx.command_path if error.ctx else fallback
        from scat_cli.escape import say

        message = usage_message(error)
        if message.startswith("No such option: --db"):  # `scat stats --db URL`
            message = f"--db is a global option: give it before the command (`scat --db URL {command[5:]} ...`)"
        say(runnable(f"scat: error: {message} (see `{command} --help`)"), err=True)
        raise typer.Exit(error.exit_code) from None
    except OSError as error:
        if not is_output_error(error):
            raise
        output_failed(error, ctx)
    except Exception as error:
        told = database_error(error, ctx)
        if told is None:
            raise
        fail(told)




#: What an enum option or argument is, for "'top' is not a draw source: write stock or discard".
CHOICE_NOUNS = {"Source": "draw source", "Status": "game status", "Format": "export format"}
_BOUND_ERRORS = {"greater_than_equal", "less_than_equal", "greater_than", "less_than"}


def usage_message(error: Any) -> str:
    """A usage error as one plain line: typer's and pydantic's wording replaced where known."""
    better = _bad_value_message(error) if isinstance(error, BadParameter) and error.param is not None else None
    return better or " ".join(error.format_message().split()).rstrip(".")


def _bad_value_message(error: Any) -> str | None:
    from typer._click.exceptions import MissingParameter

    param = error.param
    opts = [opt for opt in getattr(param, "opts", []) if opt.startswith("-")]
    name = opts[0] if opts else (getattr(param, "metavar", None) or str(param.name).upper())
    choices, noun = _choices(param)
    if isinstance(error, MissingParameter):
        return f"missing the {noun}: write {_either(choices)}" if choices else None
    details = error.__cause__.errors() if hasattr(error.__cause__, "errors") else []
    first: dict[str, Any] = details[0] if details else {}
    value, kind = (error.value if isinstance(error, BadChoice) else first.get("input")), str(first.get("type", ""))
    if choices and value is not None:
        article = "an" if noun[:1] in "aeiou" else "a"
        return f"{value!r} is not {article} {noun}: write {_either(choices)}"
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if kind in _BOUND_ERRORS and low is not None and high is not None:
        return f"{name} must be from {low} to {high}, not {value}"
    if kind in _BOUND_ERRORS and low is not None:
        return f"{name} must be at least {low}, not {value}"
    if kind in _BOUND_ERRORS and high is not None:
        return f"{name} must be at most {high}, not {value}"
    if kind == "int_parsing":
        return f"{name} needs a whole number, not {value!r}"
    message = str(first.get("msg", "")).removeprefix("Value error, ").rstrip(".")
    return f"invalid value for {name}: {' '.join(message.split())}" if message else None


def _choices(param: Any) -> tuple[list[str], str]:
    """The values of an enum parameter and what they are, or ([], "")."""
    from enum import Enum
    from typing import get_args

    descriptor = getattr(param, "type_descriptor", None)
    pending, seen = [getattr(descriptor, "annotation", None)], 0
    while pending and seen < 10:
        kind, seen = pending.pop(), seen + 1
        if isinstance(kind, type) and issubclass(kind, Enum):
            return [str(member.value) for member in kind], CHOICE_NOUNS.get(kind.__name__, "choice")
        pending.extend(get_args(kind))
    return [], ""


def _either(choices: list[str]) -> str:
    return choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]


def command_class(cls: type[TyperCommand]) -> Any:
    """Decorate a command function to be built with the click command class `cls`."""

    def mark(function: Any) -> Any:
        function.command_class = cls
        return function

    return mark


class ScatCommand(TyperCommand):
    """A command whose usage line names its arguments plainly: `scat discard [OPTIONS] GAME CARD`."""

    def invoke(self, ctx: Context) -> Any:
        """Run the command; `--token -` is asked for first (#14 item 9: no token in `ps`)."""
        if ctx.params.get("token") == "-":
            ctx.params["token"] = ask_token("-")
        return super().invoke(ctx)

    def get_params(self, ctx: Context) -> list[Any]:
        """The parameters (--help too), the plain ones converted without pydantic."""
        return plain_coercion(super().get_params(ctx))

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        """Parse the arguments; an empty file name ('' would become the current folder) is refused first."""
        if "" in args:
            _empty_paths(self, ctx, args)
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: Context) -> list[str]:
        """Typer's pieces without the braces it puts around required arguments."""
        pieces = super().collect_usage_pieces(ctx)
        return [
            piece[1:-1] if (piece[:1], piece[-1:]) == ("{", "}") or piece.startswith("[[") else piece
            for piece in pieces
        ]


def _empty_paths(command: TyperCommand, ctx: Context, args: list[str]) -> None:
    """BadInput when a file parameter (FILE, -o FILE) was given as '': "no file given", not "." used."""
    from pathlib import Path
    from typing import get_args

    from scat_core.domain.errors import BadInput

    try:
        values, _, _ = command.make_parser(ctx).parse_args(args=list(args))
    except Exception:  # noqa: BLE001 - the real parse reports it
        return
    for param in command.get_params(ctx):
        kind = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if values.get(param.name) == "" and (kind is Path or Path in get_args(kind)):
            opts = [opt for opt in getattr(param, "opts", []) if opt.startswith("-")]
            name = opts[0] if opts else str(param.metavar or param.name).upper()
            raise BadInput(f"no file given: {name} is empty")


class SeatOrderCommand(ScatCommand):
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


