"""Writing a command's answer: JSON, whether stdout is a terminal, one clean line when output or the command fails."""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer

from scat_cli.command_lines import runnable
from scat_core.domain.errors import ScatError


def fail(error: ScatError) -> NoReturn:
    """Stop the command with one line on stderr and the error type's exit code (see scat_cli.errors)."""
    from scat_cli.errors import exit_code, wording
    from scat_cli.escape import say

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
    from scat_cli.escape import json_safe

    typer.echo(json_safe(json.dumps(document, indent=2, ensure_ascii=False)))


def stdout_is_terminal() -> bool:
    """Whether stdout is a terminal (colours and suit symbols) or a pipe/file (plain text)."""
    return sys.stdout.isatty()


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (progress bars)."""
    return sys.stderr.isatty()
