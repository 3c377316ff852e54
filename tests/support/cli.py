"""CLI test helpers: the `scat` runner type, the modes, stacked games, refusals on one line, the real executable."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.databases import migrated
from tests.support.decks import stacked

#: `scat(*args)` of the `scat` fixture: runs the command line, returns the click Result.
Scat = Callable[..., Any]


#: The modes a CLI test may run in (the `cli_mode` fixture of tests/cli/conftest.py).
CLI_MODES = ["local", "server", pytest.param("server-postgres", marks=pytest.mark.postgres)]

#: A module's `pytestmark`: its tests run in every mode, on a database and through `scat --server`
#: (SQLite and PostgreSQL).
EVERY_MODE = pytest.mark.cli_modes(*CLI_MODES)

#: On a database and through `scat --server` on SQLite.
LOCAL_AND_SERVER = pytest.mark.cli_modes("local", "server")

#: Only through a live server (`scat serve` in a thread) on SQLite; the test ids carry no mode.
SERVER_ONLY = pytest.mark.cli_modes("server")


def one_line_error(result: Any) -> str:
    """The single stderr line of a refused command (and no traceback)."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]



CONTRACT_FIELDS = {
    "game_id", "status", "hand_number", "dealer", "turn", "phase", "knocked_by", "discard_top",
    "stock_count", "kitty", "winner", "last_seq", "players",
}


# you are dealt first (the dealer is bob), so you play first (R9, R11)
YOUR_DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"]], "7C", ["8C", "3H", "6S", "JD"])


#: your cards in YOUR_DEAL
YOUR_CARDS = ["2C", "5D", "9H"]


def deal_line(text: str) -> str:
    """The line telling the first deal."""
    return next(line for line in text.splitlines() if "dealt hand 1" in line)


THIRTY_ONE = stacked([["AS", "KS", "QS"], ["2D", "3D", "4H"]], "7C", ["8C", "3H", "6S", "JD"])


def new_game(scat_json: Scat, *extra: str, deck: str = YOUR_DEAL) -> str:
    """A game of you against bob (a bot), bob dealing a stacked deck; later hands from a fixed seed.

    Without the seed a later hand is random: with some decks bob holds 31 at the deal and a
    test that plays into hand 2 fails at random.
    """
    return str(scat_json("new", "--player", "you", "--bot", "bob", "--dealer", "bob", "--deck", deck,
                         "--seed", "1", *extra)["game_id"])



LOW = stacked([["2C", "3D", "4H"], ["KH", "QH", "2S"]], "7C")  # you (first to play) hold 5, eve 22



def finished_game(scat_json: Scat) -> str:
    """A game between two bots, over as soon as it is created."""
    return str(scat_json("new", "--bot", "ann", "--bot", "bob", "--seed", "11", "--lives", "1")["game_id"])


#: The installed `scat` executable beside this interpreter.
BIN = Path(sys.executable).parent


SCAT = shutil.which("scat", path=str(BIN)) or str(BIN / "scat")



def real_scat(*args: str, stdout: int | object = subprocess.PIPE, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the installed `scat` ARGS in a subprocess (environment plus `env`); stderr captured."""
    environment = {**os.environ, **env}
    return subprocess.run([SCAT, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,  # type: ignore[call-overload]
                          timeout=120, env=environment, check=False)


def imported_into_a_fresh_database(scat: Scat, game: str, tmp_path: Path) -> dict[str, str]:
    """Export the running `game` (--running) and import it into a fresh database; that database's env."""
    path = tmp_path / "game.jsonl"
    assert scat("export", game, "-o", str(path), "--running").exit_code == 0
    env = {"SCAT_DB_URL": migrated(f"sqlite:///{tmp_path / 'fresh.db'}")}
    assert scat("import", str(path), env=env).exit_code == 0
    return env


def scat_in_a_fresh_interpreter(argv: list[str], then: str, before: str = "") -> subprocess.CompletedProcess[str]:
    """`scat ARGV` run by `main()` in a new interpreter: the Python of `before` first, of `then`
    (asserts on `sys.modules`, say) once the command exited with 0; the process's result."""
    code = (
        f"import sys\n{before}sys.argv = ['scat', *{argv!r}]\n"
        "from scat_cli.app import main\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    assert not exit.code, exit.code\n"
        f"{then}"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
