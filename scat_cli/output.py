"""Writing a command's answer: terminal-safe lines, JSON, whether stdout is a terminal, one clean line on failure.

No string from a history reaches a terminal raw. Names, ids and seeds come from histories that
may have been imported or edited. Printed as they are, an ESC sequence would recolour, retitle
or clear the terminal, a newline would forge a `scat:` line, and a bidi override would reorder
what is read. `terminal_safe` (the one escaping function of human output) shows every such
character as a visible escape (`\\x1b`, `\\n`, `\\u202e`) instead; every human line goes through
it at the edge, where it is printed (rich passes ESC through).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, NoReturn

import typer

from scat_cli.command_lines import runnable
from scat_core.domain.errors import ScatError

# C0 controls, DEL and C1 controls; bidi embeddings, overrides, isolates and marks; line and
# paragraph separators.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def terminal_safe(text: str) -> str:
    """`text` with every control, bidi and line-breaking character shown as a visible escape."""
    return _UNSAFE.sub(_visible, text)


def escape_strings(value: Any) -> Any:
    """A copy of a JSON-like value with `terminal_safe` applied to every string in it."""
    if isinstance(value, str):
        return terminal_safe(value)
    if isinstance(value, dict):
        return {terminal_safe(str(key)): escape_strings(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [escape_strings(item) for item in value]
    return value


def say(text: str, err: bool = False) -> None:
    """Print one human line (on stderr with `err`), escaped."""
    typer.echo(terminal_safe(text), err=err)


#: What JSON leaves raw with ensure_ascii=False but a terminal may obey: C1 controls and bidi.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_safe(document_text: str) -> str:
    """A JSON text with C1 and bidi characters written as \\uXXXX (the same JSON value)."""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", document_text)


def fail(error: ScatError) -> NoReturn:
    """Stop the command with one line on stderr and the error type's exit code (see scat_cli.errors)."""
    from scat_cli.errors import exit_code, wording

    say(f"scat: error: {runnable(wording(error))}", err=True)
    raise typer.Exit(exit_code(error))


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


def failed_unexpectedly(error: Exception, ctx: typer.Context | None = None) -> NoReturn:
    """Stop with one line on stderr (exit 1) for a failure that is a defect of scat's, never a traceback
    (cli.md); with SCAT_DEBUG=1 in the environment the traceback is shown instead, for its report.

    A command writes all or nothing, its answer made before its write: the line says that nothing
    was written, unless the command had stored its change already (see `recorded`).
    """
    import os

    if os.environ.get("SCAT_DEBUG") == "1":
        raise error
    note = ctx.meta.get("scat.recorded") if ctx is not None else None
    what = str(error).splitlines()[0] if str(error) else ""
    told = note if note else "nothing was written"
    typer.echo(runnable(f"scat: error: scat failed unexpectedly ({type(error).__name__}{': ' if what else ''}{what}); "
                        f"{told}. This is a fault of scat's: SCAT_DEBUG=1 shows the details to report"), err=True)
    raise typer.Exit(1)


def print_json(document: Any) -> None:
    """Print one JSON document on stdout."""
    typer.echo(json_safe(json.dumps(document, indent=2, ensure_ascii=False)))


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (colours and suit symbols) or a pipe/file (plain text)."""
    return sys.stdout.isatty()


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (progress bars)."""
    return sys.stderr.isatty()
