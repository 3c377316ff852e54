"""Commands as the user can run them again: the program as run, the global flags given, quoted words."""

from __future__ import annotations

import re
import shlex
import sys

import typer

from scat_cli.settings import state

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
