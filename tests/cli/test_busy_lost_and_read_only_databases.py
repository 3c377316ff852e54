"""Exit codes that tell the truth about a busy, lost or read-only database and what was recorded."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.wiring import open_database
from scat_core.records.errors import StoreUnavailable
from scat_core.service import playing
from tests.support.cli import SCAT
from tests.support.read_only import YOU_AND_BOB, stats_behind_their_events


def test_the_cli_says_the_new_game_was_created_when_its_bots_next_moves_were_lost_and_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One note that the game stands and the next command plays the bots: a new game and its
    bots' first unit of moves are one transaction; a further unit of theirs is lost alone."""
    cli_db = f"sqlite:///{tmp_path / 'cli.db'}"
    monkeypatch.setattr(playing, "BOT_MOVES_PER_UNIT", 1)  # bob's draw with the game, his discard after
    # (a fixed seed: with another deal bob might knock at once and owe nothing)

    def lost(store: Any) -> Any:  # a new game is one transaction; the bots' later units are commands
        raise StoreUnavailable("cannot use database X: server closed the connection unexpectedly")

    monkeypatch.setattr(type(open_database(cli_db).store), "command", lost)
    result = CliRunner().invoke(app, ["new", "--player", "you", "--bot", "bob", "--dealer", "you", "--seed", "1"],
                                env={"SCAT_DB_URL": cli_db}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "the game was created" in result.stderr and "lets them play on" in result.stderr
    assert result.stderr.count("\n") == 1
    (game,) = open_database(cli_db).reading.list_games()
    assert game.turn == "bob"  # bob, who plays first, drew and still owes his discard


def hold_the_lock(path: Path) -> sqlite3.Connection:
    """Another program holding an exclusive lock on the SQLite file (readers wait too)."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE IF NOT EXISTS held (x)")
    holder.execute("COMMIT")  # the exclusive lock stays until the connection closes
    return holder


@pytest.mark.parametrize("args", [("show", "{game}"), ("draw", "{game}", "--as", "you", "stock"), ("games",)])
def test_a_locked_sqlite_file_is_database_busy_exit_5_after_a_bounded_wait(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """A locked file waited 31 s then exited 2; now "database busy", exit 5, SCAT_BUSY_TIMEOUT s."""
    path = tmp_path / "locked.db"
    service = open_database(f"sqlite:///{path}")
    game = service.playing.create_game(YOU_AND_BOB, seed=5, dealer="bob").game_id
    service.store.engine.dispose()
    holder = hold_the_lock(path)
    try:
        result = CliRunner().invoke(app, [arg.format(game=game) for arg in args],
                                    env={"SCAT_DB_URL": f"sqlite:///{path}", "SCAT_BUSY_TIMEOUT": "0.5"})
    finally:
        holder.close()
    assert result.exit_code == 5, result.output
    assert result.stderr.startswith("scat: error: database busy") and result.stderr.count("\n") == 1


def read_only_mount_works() -> bool:
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.skipif(not read_only_mount_works(), reason="needs `unshare -m` to mount a folder read-only")
def test_reads_work_on_a_read_only_medium_and_writes_say_why_they_cannot(tmp_path: Path) -> None:
    """A read-only database or medium refused even `show` (and `stats`, which caught its
    projection up by writing: now it shows what a writable copy shows)."""
    folder = tmp_path / "medium"
    folder.mkdir()
    url = f"sqlite:///{folder / 'scat.db'}"
    game = stats_behind_their_events(folder / "scat.db")  # closed cleanly, as a file copied to a read-only medium is
    shutil.copyfile(folder / "scat.db", tmp_path / "copy.db")
    stats = ("stats", "stats --json", "stats --player bob")
    script = "\n".join([
        f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} || exit 99",
        *(f"{SCAT} --db {url} {command}; echo \"rc=$?\"" for command in (
            f"show {game}", "games", f"log {game}", f"audit {game}", f"export {game} --running",
            f"draw {game} --as you stock",
        )),
        *(f"{SCAT} --db {url} {command} > {tmp_path / f'ro-{n}.txt'}; echo \"rc=$?\""
          for n, command in enumerate(stats)),
    ])
    result = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    if "rc=" not in result.stdout:
        pytest.skip(f"cannot mount read-only here: {result.stderr}")
    codes = [line for line in result.stdout.splitlines() if line.startswith("rc=")]
    assert codes == ["rc=0"] * 5 + ["rc=2"] + ["rc=0"] * len(stats), result.stdout + result.stderr
    assert "read-only" in result.stderr and "Traceback" not in result.stderr
    for n, command in enumerate(stats):
        writable = subprocess.run([SCAT, "--db", f"sqlite:///{tmp_path / 'copy.db'}", *command.split()],
                                  capture_output=True, text=True, timeout=60)
        assert writable.returncode == 0 and "Bob" in writable.stdout, writable.stderr
        assert (tmp_path / f"ro-{n}.txt").read_text() == writable.stdout, command
