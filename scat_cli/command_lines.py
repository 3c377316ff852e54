"""The command lines of scat: every command and group by name, and commands as the user can run them again.

`COMMANDS`, `GROUPS` and `SUMMARIES` name the module and function that hold each command, imported
on use, and what `scat --help` lists for it. A command line a hint or an error shows is runnable
as pasted: the program as run, the global flags given, its words quoted.
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import re
import shlex
import sys

import typer

from scat_cli.settings import state

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
    "abandon": ("scat_cli.play", "abandon"),
    "say": ("scat_cli.play", "say"),
    "accept": ("scat_cli.play", "accept"),
    "decline": ("scat_cli.play", "decline"),
    "join": ("scat_cli.play", "join"),
    "rematch": ("scat_cli.play", "rematch"),
    "status": ("scat_cli.status_command", "status"),
    "ratings": ("scat_cli.stats_command", "ratings"),
    "log": ("scat_cli.history", "log"),
    "replay": ("scat_cli.history", "replay"),
    "audit": ("scat_cli.audit_commands", "audit"),
    "export": ("scat_cli.export_command", "export"),
    "import": ("scat_cli.import_command", "import_"),
    "stats": ("scat_cli.stats_command", "stats"),
    "rules": ("scat_cli.rules_command", "rules"),
    "serve": ("scat_cli.serve_command", "serve"),
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
    "abandon": "Give a game up for good: it ends without a winner.",
    "say": "Say one line at the game's table.",
    "accept": "Accept your seat in a game waiting for its players (R28).",
    "decline": "Decline your seat, or withdraw your game: it is cancelled.",
    "join": "Take the first open seat of a game (see `scat games --open`).",
    "rematch": "Ask for another game with the same players and options.",
    "status": "What waits for you, in all your games.",
    "ratings": "A rating per player, over every game played out.",
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


_PASSWORD_RE = re.compile(r"://[^/@]*:[^/@]*@")


_QUOTED_SCAT = re.compile(r"`scat (?!--db |--server )")


def runnable(text: str) -> str:
    """`text` with each command it quotes (`scat ...`) runnable as pasted: the program as run
    (see `program`) and the global `--db URL` when one was given (see `scat_prefix`)."""
    from scat_cli.settings import acting_context

    ctx = acting_context()
    scat = scat_prefix(ctx) if ctx is not None else program()
    return text if scat == "scat" else _QUOTED_SCAT.sub(lambda _: f"`{scat} ", text)


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


def as_words(ctx: typer.Context, name: str) -> list[str]:
    """`--as NAME` for a hint, or nothing when NAME is the `--as` in force anyway (SCAT_AS, config.toml's
    `as`, the account on a server): a hint leaves out what the settings already supply."""
    default = state(ctx).as_default
    if default is not None and default.strip().casefold() == name.casefold():
        return []
    return ["--as", name]
