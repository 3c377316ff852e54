"""The Typer plumbing of the `scat` command line, on Typer's public API: custom `TyperGroup` and
`TyperCommand` classes, `typer.Typer` apps, `typer.BadParameter`, `typer.Exit`, and the parameters
as scat declares them and as the user typed them.

- Lazy commands: the root group lists each command by name (`COMMANDS`); a command's module
  is imported, and its Typer app built, only when it runs (`LazyCommand`); a group of commands
  (`GROUPS`: `db`, `key`) is imported and built only when asked for.
- `declared` reads a command's own signature (the annotations and the `typer.Option` /
  `typer.Argument` given there); `given` reads the words typed, each with the parameter it is
  for, in order (seat order and empty file names come from them).
- Usage errors and scat's errors become one line on stderr with the contract's exit code
  (`one_line_errors`), worded from these two (`usage_message`), never from Typer's or pydantic's
  internals: a Typer upgrade changes no message.

- The arguments and options the commands share (GAME, --as, --token, --json, their completion)
  and command-line words turned into cards and draw sources (the notation of cli.md).

One private Typer hook remains, for start-up speed only: `typer_converts_with` (Typer's private slot).
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from scat_cli.command_lines import COMMANDS, GROUPS, SUMMARIES, runnable
from scat_cli.render import fail, failed_unexpectedly, is_output_error, output_failed, say
from scat_cli.settings import acting
from scat_core.domain.cards import parse_card, parse_deck
from scat_core.domain.errors import ScatError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from typer.models import ParameterInfo


def _complete_game(ctx: typer.Context, incomplete: str) -> list[tuple[str, str]]:
    """Shell completion of a game id (see scat_cli.completion; imported only when completing)."""
    from scat_cli.completion import complete_game

    return complete_game(ctx, incomplete)


def complete_card(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of a card name (see scat_cli.completion; imported only when completing)."""
    from scat_cli.completion import complete_card as cards

    return cards(ctx, incomplete)


GameArg = Annotated[str, typer.Argument(
    metavar="GAME", help="The game id, or any unique start of it (see `scat games`).", show_default=False,
    autocompletion=_complete_game)]


AsName = Annotated[
    str, typer.Option("--as", metavar="NAME", help="The player acting.", show_default=False)
]


Look = Annotated[bool, typer.Option(
    "--look", help="In a throw-down game, turn your new hand up (recorded: then you may no longer throw down, "
                   "R23); without it a hand you have not looked at stays face down. Elsewhere it changes nothing.")]


AsViewer = Annotated[
    str | None,
    typer.Option("--as", metavar="NAME", help="See the game as this player (that player's own hand too).",
                 show_default=False),
]


def ask_token(value: str | None) -> str | None:
    """`--token -`: read the token from a prompt that does not echo it (or one line of stdin).

    A token given on the command line is visible to every user of the machine in `ps`;
    SCAT_TOKEN or `--token -` keep it out of the process list.
    """
    if value != "-":
        return value
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("token: ").strip() or None
    return sys.stdin.readline().strip() or None


_TOKEN_HELP = ("The token of the --as player, for a protected game{}. Prefer SCAT_TOKEN or `--token -` "
               "(asks for it): a token written on the command line shows in `ps` to other users.")


Token = Annotated[
    str | None,
    typer.Option("--token", envvar="SCAT_TOKEN", metavar="TOKEN", show_default=False,
                 help=_TOKEN_HELP.format("")),
]


ViewerToken = Annotated[
    str | None,
    typer.Option("--token", envvar="SCAT_TOKEN", metavar="TOKEN", show_default=False,
                 help=_TOKEN_HELP.format("; without --as none is needed, and one given is not used")),
]


Json = Annotated[bool, typer.Option("--json", help="Print one JSON document instead of the human view.")]


class Source(StrEnum):
    """Where a card is drawn from (R12)."""

    stock = "stock"
    discard = "discard"


def card_argument(text: str) -> str:
    """One card as typed (AS, 10h, td, Q♦); BadInput (exit 2) when it is not a card."""
    return parse_card(text)


def deck_option(text: str | None) -> list[str] | None:
    """The 52 cards of a stacked deck, top first, separated by spaces or commas."""
    return None if text is None else parse_deck(text)

#: What an enum option or argument is, for "'top' is not a draw source: write stock or discard".
CHOICE_NOUNS = {"Source": "draw source", "Status": "game status", "Format": "export format"}


_DECLARED: dict[Any, dict[str, Declared]] = {}


@dataclass(frozen=True)
class Declared:
    """A parameter as its command declares it: the type (None and Annotated taken off) and its typer info."""

    kind: Any
    info: ParameterInfo | None


def declared(callback: Any) -> dict[str, Declared]:
    """The parameters of a command's function (a Typer callback), by name."""
    import inspect
    from typing import get_type_hints

    from typer.models import ParameterInfo

    if callback is None:
        return {}
    function = inspect.unwrap(callback)
    if function in _DECLARED:
        return _DECLARED[function]
    hints = get_type_hints(function, include_extras=True)
    found: dict[str, Declared] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        kind, extras = _strip(hints.get(name, Any))
        infos = [extra for extra in (*extras, parameter.default) if isinstance(extra, ParameterInfo)]
        found[name] = Declared(kind, infos[0] if infos else None)
    _DECLARED[function] = found
    return found


def _strip(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """An annotation without Annotated (its extras returned) and without None (`X | None` is X)."""
    from types import NoneType, UnionType
    from typing import Annotated, Union, get_args, get_origin

    extras: tuple[Any, ...] = ()
    if get_origin(annotation) is Annotated:
        annotation, *more = get_args(annotation)
        extras = tuple(more)
    if get_origin(annotation) in (Union, UnionType):
        rest = [arg for arg in get_args(annotation) if arg is not NoneType]
        annotation = rest[0] if len(rest) == 1 else annotation
    return annotation, extras


def given(params: Sequence[Any], args: Sequence[str]) -> list[tuple[str | None, str | None]]:
    """Each parameter the words `args` give, in the order typed: (name, the word as typed; None for a flag).

    Read as click reads a command line (`--opt VALUE`, `--opt=VALUE`, `-o VALUE`, `-oVALUE`,
    short flags joined `-qp NAME`, arguments between options, everything after `--` an
    argument) from the parameters' public fields. A word no parameter takes is named None.
    """
    options = {opt: param for param in params if param.param_type_name == "option"
               for opt in (*param.opts, *param.secondary_opts)}
    takes = {id(param): not (param.is_flag or param.count) for param in options.values()}
    arguments = iter([param for param in params if param.param_type_name == "argument"])
    argument = next(arguments, None)
    found: list[tuple[str | None, str | None]] = []
    words, only_arguments = list(args), False
    while words:
        word = words.pop(0)
        if word == "--" and not only_arguments:
            only_arguments = True
        elif only_arguments or word[:1] != "-" or len(word) == 1:
            found.append((argument.name if argument is not None else None, word))
            if argument is not None and argument.nargs != -1:
                argument = next(arguments, None)
        elif word.startswith("--"):
            name, equals, value = word.partition("=")
            param = options.get(name)
            if param is None:
                found.append((None, word))
            elif takes[id(param)]:
                found.append((param.name, value if equals else (words.pop(0) if words else None)))
            else:
                found.append((param.name, None))
        else:
            for at, letter in enumerate(word[1:], start=2):
                param = options.get(f"-{letter}")
                if param is None:
                    found.append((None, word))
                    break
                if takes[id(param)]:
                    rest = word[at:]
                    found.append((param.name, rest if rest else (words.pop(0) if words else None)))
                    break
                found.append((param.name, None))
    return found


def usage_message(error: Any, typed: Sequence[tuple[str | None, str | None]] = ()) -> str:
    """A usage error as one plain line: a bad or missing value worded from the parameter's declaration."""
    from typer import BadParameter

    better = None
    if isinstance(error, BadParameter) and error.param is not None and error.ctx is not None:
        better = _bad_value(error.param, declared(error.ctx.command.callback).get(error.param.name), typed)
    return better or " ".join(error.format_message().split()).rstrip(".")


def _bad_value(param: Any, declaration: Declared | None, typed: Sequence[tuple[str | None, str | None]]) -> str | None:
    """What is wrong with the value typed for `param`, or None to keep Typer's words."""
    if declaration is None:
        return None
    values = [value for name, value in typed if name == param.name]
    value = values[-1] if values else None
    choices, noun = choices_of(declaration.kind)
    if choices:
        if value is None:
            return f"missing the {noun}: write {_either(choices)}"
        article = "an" if noun[:1] in "aeiou" else "a"
        return f"{value!r} is not {article} {noun}: write {_either(choices)}"
    if declaration.kind not in (int, float) or value is None:
        return None
    opts = [opt for opt in param.opts if opt.startswith("-")]
    name = opts[0] if opts else str(param.metavar or param.name.upper())
    try:
        number = declaration.kind(value.strip())
    except ValueError:
        return f"{name} needs a {'whole number' if declaration.kind is int else 'number'}, not {value!r}"
    info = declaration.info
    low, high = (info.min, info.max) if info is not None else (None, None)
    if low is not None and high is not None and not low <= number <= high:
        return f"{name} must be from {low} to {high}, not {value.strip()}"
    if low is not None and number < low:
        return f"{name} must be at least {low}, not {value.strip()}"
    if high is not None and number > high:
        return f"{name} must be at most {high}, not {value.strip()}"
    return None


def choices_of(kind: Any) -> tuple[list[str], str]:
    """The values of an enum type and what they are called, or ([], "")."""
    from enum import Enum

    if isinstance(kind, type) and issubclass(kind, Enum):
        return [str(member.value) for member in kind], CHOICE_NOUNS.get(kind.__name__, "choice")
    return [], ""


def _either(choices: list[str]) -> str:
    return choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]


class PlainValue:
    """Typer's conversion of a str, bool, list[str] or enum parameter, done without pydantic.

    Typer builds a pydantic TypeAdapter for each parameter it converts: importing pydantic
    and building those is a good share of `scat COMMAND --help` (the root's --db) and of a
    command's start-up. These values need none: the result is the one Typer gives.
    """

    def __init__(self, kind: Any, case_sensitive: bool) -> None:
        self.kind, self.case_sensitive = kind, case_sensitive

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        """The parameter's value as Typer would convert it; BadParameter for a word none of the choices."""
        from typer import BadParameter

        many = param.multiple or param.nargs == -1
        if value is None:
            return () if many else None
        if not many:
            return self._one(value, param, ctx)
        if isinstance(value, str):
            raise BadParameter("Value must be an iterable.", ctx=ctx, param=param)
        return [self._one(item, param, ctx) for item in value]

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        import sys

        from typer import BadParameter

        if self.kind is bool and isinstance(value, bool):
            return value
        if isinstance(value, bytes):
            value = value.decode(sys.getfilesystemencoding(), "replace")
        if self.kind is str:
            return str(value)
        if isinstance(value, self.kind):  # an enum member already (a default)
            return value
        wanted = str(value) if self.case_sensitive else str(value).casefold()
        for member in self.kind:
            if wanted == (str(member.value) if self.case_sensitive else str(member.value).casefold()):
                return member
        raise BadParameter(f"{value!r} is not one of the choices", ctx=ctx, param=param)


def plain_value(declaration: Declared) -> PlainValue | None:
    """The pydantic-free conversion of a parameter so declared, or None when Typer must convert it."""
    from enum import Enum
    from typing import get_args, get_origin

    info, kind = declaration.info, declaration.kind
    if kind is bool and info is None:  # --help
        return PlainValue(bool, True)
    if info is None or info.parser is not None or info.callback is not None:
        return None
    if get_origin(kind) is list and get_args(kind) == (str,):
        kind = str
    if kind in (str, bool) or (isinstance(kind, type) and issubclass(kind, Enum)):
        return PlainValue(kind, info.case_sensitive)
    return None


def convert_plainly(command: Any, ctx: Any) -> None:
    """Have Typer convert the plain parameters (str, bool, list[str], enum; --help) of a command without pydantic."""
    found = declared(command.callback)
    help_option = command.get_help_option(ctx)
    for param in command.get_params(ctx):
        flag = param is help_option or _completion_flag(param)
        declaration = Declared(bool, None) if flag else found.get(param.name)
        converter = plain_value(declaration) if declaration is not None else None
        if converter is not None:
            typer_converts_with(param, converter)


def _completion_flag(param: Any) -> bool:
    """Whether `param` is Typer's --install-completion or --show-completion as a flag (the shell found by itself)."""
    return param.name in ("install_completion", "show_completion") and bool(getattr(param, "is_flag", False))


def typer_converts_with(param: Any, converter: PlainValue) -> bool:
    """THE ONE PRIVATE TYPER HOOK: Typer converts `param`'s value with `converter` instead of pydantic.

    Typer (0.26 to 0.29 at least) converts through a per-parameter object it builds on first
    use (`_runtime_param`, whose `coerce(value, param=, ctx=)` returns the value); setting it
    first is all this does. Typer has no public way to convert a parameter without pydantic.
    When Typer no longer has that slot, nothing is set (False) and Typer converts as usual:
    slower, same result. tests/cli/test_typer_glue.py fails loudly then.
    """
    if "_runtime_param" not in vars(param) or param._runtime_param not in (None, converter):
        return False
    param._runtime_param = converter
    return True


#: The context Typer passes to a command class (an instance of its vendored click's, a private class).
Context = Any

#: ctx.meta key: the words of the command line, each with the parameter it gives (`given`).
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
    """Tell a usage error in one line, pointing at the command's help (exit 2); a --as left out on
    a server where this user has no account (it would default to the account) says how to get one."""
    from scat_cli.settings import state  # settings imports this module
    context = getattr(error, "ctx", None)
    # Some errors (an option without its value) carry no context: name the subcommand.
    fallback = f"{ctx.command_path} {ctx.invoked_subcommand}" if ctx.invoked_subcommand else ctx.command_path
    command = context.command_path if context is not None else fallback
    message = usage_message(error, (context or ctx).meta.get(GIVEN, []))
    if message == "Missing option '--as'" and (server := state(context or ctx).server) is not None:
        message = (f"no --as NAME given, and you have no account on {server} to act as: register one "
                   "(`scat account register NAME`), or give --as NAME")
    if message.startswith("No such option: --db"):  # `scat stats --db URL`
        message = f"--db is a global option: give it before the command (`scat --db URL {command[5:]} ...`)"
    say(runnable(f"scat: error: {message} (see `{command} --help`)"), err=True)
    raise typer.Exit(2) from None
