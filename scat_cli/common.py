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

from scat_cli.context import state
from scat_core.domain.errors import ScatError

if TYPE_CHECKING:
    from scat_core.service.boundary import Games

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
    """Stop the command with one line on stderr and the error type's exit code (see scat_cli.errors)."""
    from scat_cli.errors import exit_code, wording
    from scat_cli.escape import say

    say(f"scat: error: {runnable(wording(error))}", err=True)
    raise typer.Exit(exit_code(error))


_QUOTED_SCAT = re.compile(r"`scat (?!--db )")


def runnable(text: str) -> str:
    """`text` with each command it quotes (`scat ...`) runnable as pasted: the program as run
    (see `program`) and the global `--db URL` when one was given (see `scat_prefix`)."""
    from scat_cli.context import acting_context

    ctx = acting_context()
    scat = scat_prefix(ctx) if ctx is not None else program()
    return text if scat == "scat" else _QUOTED_SCAT.sub(lambda _: f"`{scat} ", text)


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
    "claim": ("scat_cli.play", "claim"),
    "log": ("scat_cli.history", "log"),
    "replay": ("scat_cli.history", "replay"),
    "audit": ("scat_cli.audit_commands", "audit"),
    "export": ("scat_cli.export_command", "export"),
    "import": ("scat_cli.import_command", "import_"),
    "stats": ("scat_cli.stats_command", "stats"),
    "rules": ("scat_cli.rules_command", "rules"),
    "serve": ("scat_cli.server.command", "serve"),
    "wait": ("scat_cli.waiting", "wait"),
    "watch": ("scat_cli.waiting", "watch"),
    "play": ("scat_cli.screen.command", "play"),
    "version": ("scat_cli.version_command", "version"),
}

#: The groups of commands: name -> (module, Typer app), imported only when one of their commands
#: runs (or help lists them): `scat show` loads none.
GROUPS: dict[str, tuple[str, str]] = {
    "db": ("scat_cli.db_commands", "db_app"),
    "key": ("scat_cli.key_commands", "key_app"),
    "account": ("scat_cli.account_commands", "account_app"),
    "config": ("scat_cli.config_commands", "config_app"),
}


#: What `scat --help` lists for each command and group: the first sentence of its help (its
#: function's docstring; a group's `help`), kept here so that listing them imports none of their
#: modules (tests/cli/test_typer_glue.py holds each to its help).
SUMMARIES: dict[str, str] = {
    "new": "Create a game and deal; bots play until a human must.",
    "games": "List games, newest activity first, with whose turn it is.",
    "show": "Show a game; with --as, that player's own hand too.",
    "draw": "Draw the top card of the stock or of the discard pile (R12).",
    "discard": "Discard a card from your hand (R12, R13).",
    "knock": "Knock instead of drawing (R14-R16).",
    "declare": "Declare 31: everyone else loses a life (R20-R22).",
    "throw-down": "Call a throw down, unseen: all hands are shown (R23).",
    "resign": "Leave the game for good, at any time, in turn or not (R27).",
    "claim": "Claim the turn of a player out of move time (R28).",
    "log": "The event log, one line per event.",
    "replay": "Show a game rebuilt from its events, as after event SEQ.",
    "audit": "Verify games from their events alone; exit 1 if one fails.",
    "export": "Export histories as jsonl, json or a text transcript.",
    "import": "Load exported games after auditing each and its signature.",
    "stats": "Statistics per player and overall, over every game.",
    "rules": "Print the rules of Scat, or one rule by its number.",
    "serve": "Run the Scat backend: the HTTP API for `scat --server URL`.",
    "wait": "Wait for NAME's turn (or the game's end), then show it.",
    "watch": "Print each event of a game as it happens.",
    "play": "Play one game full-screen, a key per move.",
    "version": "Print scat's version, rules versions and schema revision.",
    "db": "Database maintenance.",
    "key": "The key that signs each game's head.",
    "account": "Your account on a server (your key, known there by a name).",
    "config": "Your defaults for --server, --db and --as, in config.toml.",
}


def is_output_error(error: OSError) -> bool:
    """Whether writing to stdout failed (a full disk, a closed pipe), as opposed to any other OSError."""
    import errno

    return error.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG) and error.filename is None


def recorded(ctx: typer.Context, note: str) -> None:
    """Remember what this command has stored for good, told should its output then fail (see `output_failed`).

    `note` names the command to see it, e.g. "your move was recorded; see `scat show G --as you`".
    """
    ctx.meta["scat.recorded"] = note


def output_failed(error: OSError, ctx: typer.Context | None = None) -> NoReturn:
    """Stop with one line on stderr when the output cannot be written (exit 2): nothing more is tried on it.

    When the command had already stored its change (see `recorded`), the line says so; a read
    whose reader closed the pipe early stops quietly (exit 0).
    """
    import errno
    import os

    try:  # later flushes (at exit) go nowhere instead of failing again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    note = ctx.meta.get("scat.recorded") if ctx is not None else None
    if error.errno == errno.EPIPE and not note:
        raise typer.Exit(0)  # the reader stopped (`scat log G | head -1`): nothing went wrong here
    told = f"; {note}" if note else ""
    typer.echo(runnable(f"scat: error: cannot write the output: {error.strerror}{told}"), err=True)
    raise typer.Exit(2)


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
def service(ctx: typer.Context) -> Iterator[Games]:
    """The game service over this invocation's database, disposed of afterwards; with
    --server, the client of that backend, which has the same methods and values."""
    given = state(ctx)
    if given.server:
        from scat_cli.server.client import RemoteGames

        with RemoteGames(given.server) as remote:
            loaded()
            yield remote
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


def scat_prefix(ctx: typer.Context, others: bool = False) -> str:
    """The program (see `program`), plus `--db URL` or `--server URL` when given on the command line (hints
    use it).

    `others`: the hint is for another player, who runs it on his own machine: `--server URL` is
    named however the server was chosen (the flag, SCAT_SERVER or config.toml).
    """
    given = state(ctx)
    scat, url = program(), given.db_url
    if given.server and (given.server_given or others):
        return f"{scat} --server {shlex.quote(given.server)}"
    if not url or not given.db_given:
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
