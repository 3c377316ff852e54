"""#14 item 8: exit codes that tell the truth about what was recorded and why a command stopped."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from typer.testing import CliRunner

from scat_cli.app import app
from scat_core.domain.commands import Discard, Draw
from scat_core.domain.events import PlayerSeat
from scat_core.records.errors import DatabaseReadOnly, StoreUnavailable
from scat_core.service.games import GameService
from scat_core.service.playing import Playing
from tests.support.cli import SCAT

YOU_AND_BOB = [PlayerSeat(name="you"), PlayerSeat(name="bob", is_bot=True)]


def lose_the_connection_on(service: GameService, monkeypatch: pytest.MonkeyPatch, call: int) -> list[int]:
    """Make the `call`-th connection the service opens fail as a dropped server connection does."""
    real = service.store.engine.connect
    calls: list[int] = []

    def connect() -> Any:
        calls.append(1)
        if len(calls) == call:
            raise OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))
        return real()

    monkeypatch.setattr(service.store.engine, "connect", connect)
    return calls


def test_item8_a_move_recorded_before_the_connection_was_lost_stands_and_the_bots_resume(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#14 item 8: exit 2 though the move stood; now the outcome says so and the next command resumes."""
    service = GameService.open(db_url)
    game = service.create_game(YOU_AND_BOB, seed=5, dealer="bob").game_id
    drawn = service.act(game, Draw("you", "stock")).state
    lose_the_connection_on(service, monkeypatch, call=2)  # 1: the move's transaction, 2: the bots'
    done = service.act(game, Discard("you", drawn.hands[0][0]))
    assert done.bots_interrupted is not None and "connection" in done.bots_interrupted
    assert done.state.version == drawn.version + 1  # the discard is recorded, no bot move yet
    monkeypatch.undo()
    assert service.history(game)[-1].seq == drawn.version + 1
    resumed = GameService.open(db_url).look(game)  # the next command plays the bots' replies
    assert resumed.version > drawn.version + 1 and resumed.turn == 0


def test_item8_the_cli_says_the_move_was_recorded_and_exits_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """#14 item 8: one note that the move stands and the next command plays the bots."""
    cli_db = f"sqlite:///{tmp_path / 'cli.db'}"
    game = GameService.open(cli_db).create_game(YOU_AND_BOB, seed=5, dealer="bob").game_id

    def lost(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("cannot use database X: server closed the connection unexpectedly")

    monkeypatch.setattr(Playing, "_run_bots", lost)
    result = CliRunner().invoke(app, ["draw", game, "--as", "you", "stock"], env={"SCAT_DB_URL": cli_db},
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "your move was recorded" in result.stderr and "next command" in result.stderr


def hold_the_lock(path: Path) -> sqlite3.Connection:
    """Another program holding an exclusive lock on the SQLite file (readers wait too)."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("CREATE TABLE IF NOT EXISTS held (x)")
    holder.execute("COMMIT")  # the exclusive lock stays until the connection closes
    return holder


@pytest.mark.parametrize("args", [("show", "{game}"), ("draw", "{game}", "--as", "you", "stock"), ("games",)])
def test_item8_a_locked_sqlite_file_is_database_busy_exit_5_after_a_bounded_wait(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """#14 item 8: a locked file waited 31 s then exited 2; now "database busy", exit 5, SCAT_BUSY_TIMEOUT s."""
    path = tmp_path / "locked.db"
    service = GameService.open(f"sqlite:///{path}")
    game = service.create_game(YOU_AND_BOB, seed=5, dealer="bob").game_id
    service.store.engine.dispose()
    holder = hold_the_lock(path)
    try:
        started = time.monotonic()
        result = CliRunner().invoke(app, [arg.format(game=game) for arg in args],
                                    env={"SCAT_DB_URL": f"sqlite:///{path}", "SCAT_BUSY_TIMEOUT": "0.5"})
        elapsed = time.monotonic() - started
    finally:
        holder.close()
    assert result.exit_code == 5, result.output
    assert result.stderr.startswith("scat: error: database busy") and result.stderr.count("\n") == 1
    assert elapsed < 10


def read_only_mount_works() -> bool:
    try:
        return subprocess.run(["unshare", "-m", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.skipif(not read_only_mount_works(), reason="needs `unshare -m` to mount a folder read-only")
def test_item8_reads_work_on_a_read_only_medium_and_writes_say_why_they_cannot(tmp_path: Path) -> None:
    """#14 item 8: a read-only database or medium refused even `show` (and `stats`, which caught its
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


def stats_behind_their_events(path: Path) -> str:
    """A database whose stats projection has seen one game (its id returned), and whose log holds
    one of its moves and a finished game more."""
    service = GameService.open(f"sqlite:///{path}")
    game = service.create_game(YOU_AND_BOB, seed=5, dealer="bob").game_id
    service.stats()  # the projection catches up: its rows and checkpoint are written
    drawn = service.act(game, Draw("you", "stock")).state
    service.act(game, Discard("you", drawn.hands[0][0]))  # and the bot replies: you draw next
    service.create_game([PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="Bob", is_bot=True)], seed=7)
    service.store.engine.dispose()
    return game


def test_item8_stats_on_a_read_only_file_fold_in_memory_what_the_projection_has_not_seen(tmp_path: Path) -> None:
    """#14 item 8: `scat stats` caught the projection up by writing, so a read-only database refused it;
    now it shows the figures a writable copy shows, folding the events not yet counted in memory."""
    path, copy = tmp_path / "scat.db", tmp_path / "copy.db"
    stats_behind_their_events(path)
    shutil.copyfile(path, copy)
    before = path.read_bytes()
    read_only = GameService.open(f"sqlite:///file:{path}?mode=ro&uri=true")  # SQLite refuses every write
    with pytest.raises(DatabaseReadOnly):
        read_only.catch_up_stats()
    writable = GameService.open(f"sqlite:///{copy}")
    for player in (None, "BOB", "ann"):
        shown = read_only.stats(player)
        assert shown == writable.stats(player), player  # which catches the copy up, as before
    stored = read_only.store.read_stats().overall  # the rows as written: one game in progress
    assert (stored.games_played, stored.games_in_progress, stored.knocks) == (0, 1, 0)
    shown = read_only.stats()
    assert (shown.overall.games_played, shown.overall.games_in_progress, shown.overall.knocks) == (1, 1, 7)
    assert [(f.name, f.games_played, f.games_in_progress) for f in read_only.stats("bob").players] == [("Bob", 1, 1)]
    assert read_only.stats(rebuild=True) == writable.stats(rebuild=True) == shown
    read_only.store.engine.dispose()
    assert path.read_bytes() == before  # nothing written
    assert writable.catch_up_stats() == 0  # the writable copy keeps what it caught up
