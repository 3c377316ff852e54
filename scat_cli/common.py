"""What every command shares: option types, opening the service, printing, clean errors.

Nothing here imports SQLAlchemy or pydantic at module level: `scat --help` stays fast.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer import BadParameter
from typer.core import TyperCommand, TyperGroup

from scat_cli.context import CliState, state
from scat_core.domain.errors import ScatError

if TYPE_CHECKING:
    from typer._click import Command, Context

    from scat_core.service.games import GameService

GameArg = Annotated[str, typer.Argument(
    metavar="GAME", help="The game id, or any unique start of it (see `scat games`).", show_default=False)]
AsName = Annotated[
    str, typer.Option("--as", metavar="NAME", help="The player acting.", show_default=False)
]
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

_PASSWORD_RE = re.compile(r"://[^/@]*:[^/@]*@")


def fail(error: ScatError) -> NoReturn:
    """Stop the command with one line on stderr and the error's exit code."""
    from scat_cli.escape import say

    say(f"scat: error: {runnable(_wording(error))}", err=True)
    raise typer.Exit(error.exit_code)


_QUOTED_SCAT = re.compile(r"`scat (?!--db )")


def runnable(text: str) -> str:
    """`text` with each command it quotes (`scat ...`) runnable as pasted: the program as run
    (see `program`) and the global `--db URL` when one was given (see `scat_prefix`)."""
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    scat = scat_prefix(ctx) if ctx is not None else program()  # type: ignore[arg-type]
    return text if scat == "scat" else _QUOTED_SCAT.sub(lambda _: f"`{scat} ", text)


def _wording(error: ScatError) -> str:
    """The one line an error is told in; a damaged history names the audit that explains it."""
    from scat_core.domain.errors import HistoryDamaged

    if isinstance(error, HistoryDamaged):
        return (f"history damaged: game {error.game_id}: {error.reason}; nothing was played: "
                f"run `scat audit {error.game_id}`")
    if error.command:  # the suggested command, each word quoted for the shell (a name with a space)
        from scat_core.domain.errors import suggested

        return str(error).replace(suggested(error.command), f"`scat {command_line(*error.command)}`")
    return str(error)


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
    "resign": ("scat_cli.play", "resign"),
    "log": ("scat_cli.history", "log"),
    "replay": ("scat_cli.history", "replay"),
    "audit": ("scat_cli.history", "audit"),
    "export": ("scat_cli.history", "export"),
    "import": ("scat_cli.history", "import_"),
    "stats": ("scat_cli.stats_command", "stats"),
    "rules": ("scat_cli.rules_command", "rules"),
    "serve": ("scat_cli.server.command", "serve"),
    "wait": ("scat_cli.waiting", "wait"),
    "watch": ("scat_cli.waiting", "watch"),
}


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
        if not _is_output_error(error):
            raise
        output_failed(error, ctx)
    except Exception as error:
        database_error = _database_error(error, ctx)
        if database_error is None:
            raise
        fail(database_error)


def _is_output_error(error: OSError) -> bool:
    """Whether writing to stdout failed (a full disk, a closed pipe), as opposed to any other OSError."""
    import errno

    return error.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG) and error.filename is None


def recorded(ctx: Context, note: str) -> None:
    """Remember what this command has stored for good, told should its output then fail (see `output_failed`).

    `note` names the command to see it, e.g. "your move was recorded; see `scat show G --as you`".
    """
    ctx.meta["scat.recorded"] = note


def output_failed(error: OSError, ctx: Context | None = None) -> NoReturn:
    """Stop with one line on stderr when the output cannot be written (exit 2): nothing more is tried on it.

    When the command had already stored its change (see `recorded`), the line says so.
    """
    import os

    try:  # later flushes (at exit) go nowhere instead of failing again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    note = ctx.meta.get("scat.recorded") if ctx is not None else None
    told = f"; {note}" if note else ""
    typer.echo(runnable(f"scat: error: cannot write the output: {error.strerror}{told}"), err=True)
    raise typer.Exit(2)


def _database_error(error: Exception, ctx: Context) -> ScatError | None:
    """A SQLAlchemy error that reached the CLI as one of ours; None for any other error.

    Told by the error's module, so SQLAlchemy is imported only once one was raised: a lost
    connection or an unusable database is BadInput (exit 2), anything else RuleViolation.
    """
    if not type(error).__module__.startswith("sqlalchemy"):
        return None
    from sqlalchemy import exc

    from scat_core.domain.errors import BadInput, RuleViolation
    from scat_core.store.database import masked_url, resolve_url

    given = ctx.find_root().obj
    try:
        url = masked_url(resolve_url(given.db_url if isinstance(given, CliState) else None))
    except ScatError:
        url = "(unknown)"
    original = getattr(error, "orig", None)
    lines = str(original if original is not None else error).strip().splitlines()
    reason = lines[0].strip() if lines else type(error).__name__
    if isinstance(error, exc.DataError):  # PostgreSQL: a value too long or malformed for its column
        return BadInput(f"the database {url} refused a value of this command: {reason}")
    if isinstance(error, exc.OperationalError | exc.InterfaceError | exc.DisconnectionError) or getattr(
        error, "connection_invalidated", False
    ):
        return BadInput(f"cannot use database {url}: {reason}")
    return RuleViolation(
        f"the database {url} refused the request: {reason} (is it a scat database? `scat db upgrade` "
        "brings its schema up to date)"
    )


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


def loaded() -> None:
    """Call once a command has imported what it uses: the garbage collector back to normal.

    The objects made so far (modules, classes: they live until exit) are frozen out of the
    collector's sight and its usual thresholds restored (see scat_cli/__init__.py). Once
    per process; `service` calls it.
    """
    import gc

    import scat_cli

    if gc.get_threshold() != scat_cli.GC_THRESHOLDS:
        gc.freeze()
        gc.set_threshold(*scat_cli.GC_THRESHOLDS)


@contextmanager
def service(ctx: typer.Context) -> Iterator[GameService]:
    """The game service over this invocation's database, disposed of afterwards; with
    --server, the client of that backend, which has the same methods and result types."""
    given = state(ctx)
    if given.server:
        from scat_cli.server.client import RemoteGames

        with RemoteGames(given.server) as remote:
            loaded()
            yield remote  # type: ignore[misc]
        return
    from scat_core.service.games import GameService

    opened = GameService.open(given.db_url)
    loaded()
    try:
        yield opened
    finally:
        opened.store.engine.dispose()


def program() -> str:
    """The program as the user can run it again: `scat` when that is the `scat` on PATH, else the path used.

    Run as `.venv/bin/scat` (not on PATH, or another scat first on PATH) the hints say
    `.venv/bin/scat ...`, relative as it was typed, so a pasted hint works; run as
    `python -m scat_cli` with no scat on PATH, they say that.
    """
    import os
    from shutil import which

    invoked = sys.argv[0] if sys.argv else ""
    if invoked.endswith(os.path.join("scat_cli", "__main__.py")):  # python -m scat_cli
        return "scat" if which("scat") else f"{shlex.quote(sys.executable)} -m scat_cli"
    if os.path.basename(invoked) not in ("scat", "scat.exe") or os.sep not in invoked:
        return "scat"  # a test runner, or already the bare name
    on_path = which("scat")
    try:
        if on_path is not None and os.path.samefile(on_path, invoked):
            return "scat"
    except OSError:
        pass
    return shlex.quote(invoked)


def scat_prefix(ctx: typer.Context) -> str:
    """The program (see `program`), plus `--db URL` or `--server URL` when given on the command line (hints
    use it)."""
    given = state(ctx)
    scat, url = program(), given.db_url
    if given.server_given and given.server:
        return f"{scat} --server {shlex.quote(given.server)}"
    if not url:
        return scat
    if _PASSWORD_RE.search(url):
        return f"{scat} --db URL"
    return f"{scat} --db {shlex.quote(url)}"


def command_line(*words: str) -> str:
    """A command to suggest, each word quoted for the shell where needed (names with spaces)."""
    return " ".join(shlex.quote(word) for word in words)


def print_json(document: Any) -> None:
    """Print one JSON document on stdout."""
    from scat_cli.escape import json_safe

    typer.echo(json_safe(json.dumps(document, indent=2, ensure_ascii=False)))


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (colours and suit symbols) or a pipe/file (plain text)."""
    return sys.stdout.isatty()


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (progress bars)."""
    return sys.stderr.isatty()
