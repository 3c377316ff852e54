"""The installed `scat` executable in a subprocess, on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scat_cli.wiring import open_database
from tests.support.cli import BIN, SCAT, scat_in_a_fresh_interpreter
from tests.support.databases import migrated


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real `scat` executable."""
    environment = {**os.environ, **(env or {})}
    environment.pop("SCAT_TOKEN", None)
    return subprocess.run([SCAT, *args], capture_output=True, text=True, timeout=120, env=environment, check=False)


def run_json(url: str, *args: str) -> Any:
    """Run `scat --db URL ... --json`, check it succeeded and parse its output."""
    result = run("--db", url, *args, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_whole_session_through_the_executable(db_url: str, tmp_path: Path) -> None:
    game = run_json(db_url, "new", "--player", "you", "--bot", "ann", "--bot", "bob", "--seed", "8",
                    "--lives", "1")["game_id"]
    view = run_json(db_url, "show", game, "--as", "you")
    for _ in range(2):  # one turn: draw, then discard
        if view["turn"] != "you":
            break
        if view["phase"] == "draw":
            view = run_json(db_url, "draw", game, "--as", "you", "stock")
        else:
            view = run_json(db_url, "discard", game, "--as", "you", view["hand"][-1])
    human = run("--db", db_url, "show", game, "--as", "you")
    assert human.returncode == 0 and f"\nGame {game} · " in "\n" + human.stdout
    assert human.stdout.startswith(("Since your last move:\n", f"Game {game}"))
    assert "\x1b[" not in human.stdout  # a pipe gets plain text
    log = run("--db", db_url, "log", game, "--as", "you")
    assert log.returncode == 0 and log.stdout.splitlines()[0].split()[:1] == ["1"]
    assert run_json(db_url, "audit", game)["ok"]
    export = tmp_path / "game.jsonl"
    assert run("--db", db_url, "export", game, "-o", str(export), "--running").returncode == 0
    other = f"sqlite:///{tmp_path / 'copy.db'}"
    assert run("--db", other, "import", str(export)).returncode == 0
    there, here = run_json(other, "show", game), run_json(db_url, "show", game)
    assert (there.pop("read_only"), there.pop("turn"), here.pop("read_only")) == (True, None, False)  # read-only
    del here["turn"]
    assert there == here
    duplicate = run("--db", db_url, "import", str(export))
    assert duplicate.returncode == 1 and duplicate.stderr.count("\n") == 1


def test_errors_through_the_executable_are_one_line_with_the_contract_code(db_url: str, tmp_path: Path) -> None:
    game = run_json(db_url, "new", "--player", "you", "--bot", "bob", "--protect")["game_id"]
    elsewhere = {"XDG_CONFIG_HOME": str(tmp_path / "another-user")}  # no remembered token
    for args, code in ((("show", "nosuchgame"), 4), (("draw", game, "--as", "you", "stock"), 3),
                       (("discard", game, "--as", "you", "1X"), 2), (("new", "--player", "solo"), 1)):
        result = run("--db", db_url, *args, env=elsewhere)
        assert result.returncode == code, (args, result.stderr)
        assert result.stderr.startswith("scat: error: ") and result.stderr.count("\n") == 1
        assert "Traceback" not in result.stderr


def test_a_bad_database_url_is_exit_2_without_traceback() -> None:
    result = run("--db", "nope://x", "show", "abc")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_scat_db_url_from_the_environment_is_used(sqlite_url: str) -> None:
    created = run("new", "-q", "--player", "you", "--bot", "bob", env={"SCAT_DB_URL": sqlite_url})
    assert created.returncode == 0, created.stderr
    assert run_json(sqlite_url, "show", created.stdout.strip())["game_id"] == created.stdout.strip()


@pytest.mark.parametrize(
    ("args", "unwanted"),
    [
        (["--help"], ("sqlalchemy", "pydantic", "rich", "scat_core.store")),
        # plain options (the root's --db too) are converted without typer's pydantic adapters
        (["show", "--help"], ("sqlalchemy", "pydantic", "rich", "scat_core.store")),
        (["new", "--help"], ("sqlalchemy", "pydantic", "rich", "scat_core.store")),
        (["draw", "--help"], ("sqlalchemy", "pydantic", "rich", "scat_core.store")),
        (["db", "upgrade", "--help"], ("sqlalchemy", "pydantic", "rich", "scat_core.store")),
    ],
)
def test_help_stays_light(args: list[str], unwanted: tuple[str, ...]) -> None:
    code = (
        f"import sys; sys.argv = ['scat', *{args!r}]\n"
        "from scat_cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"heavy = sorted(m for m in {unwanted!r} if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def _hints(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The suggested commands of a human view (indented lines naming a game command)."""
    lines = result.stdout.splitlines()
    return [line.strip().split("   ")[0] for line in lines if line.startswith("  ") and " --as " in line]


def test_hints_name_the_program_as_it_was_run_so_a_pasted_hint_works(sqlite_url: str, tmp_path: Path) -> None:
    # The README runs `.venv/bin/scat`: when that is not the `scat` on PATH, hints say it
    # with the same (relative) path, and pasting one into a shell runs it.
    env = {**os.environ, "SCAT_DB_URL": sqlite_url, "PATH": "/usr/bin:/bin"}
    env.pop("SCAT_TOKEN", None)
    relative = os.path.relpath(SCAT, tmp_path)
    assert not os.path.isabs(relative)
    game = subprocess.run([relative, "new", "-q", "--player", "you", "--bot", "ann", "--seed", "3", "--dealer", "ann"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout.strip()
    shown = subprocess.run([relative, "show", game, "--as", "you"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True)
    hints = _hints(shown)
    assert hints and all(hint.startswith(f"{relative} draw {game} --as you ") or
                         hint.startswith(f"{relative} knock ") for hint in hints), shown.stdout
    pasted = subprocess.run(hints[0], shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert pasted.returncode == 0, pasted.stderr
    assert "you drew" in pasted.stdout
    # ... and so do the commands an error suggests.
    missing = subprocess.run([relative, "show", "nosuchgame"], cwd=tmp_path, env=env, capture_output=True, text=True,
                             check=False)
    assert missing.returncode == 4 and f"(see `{relative} games`)" in missing.stderr, missing.stderr
    # `python -m scat_cli`, with no scat on PATH, is named so.
    module = subprocess.run([sys.executable, "-m", "scat_cli", "show", game, "--as", "you"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, check=True)
    assert _hints(module) and all(hint.startswith(f"{shlex.quote(sys.executable)} -m scat_cli ")
                                  for hint in _hints(module)), module.stdout
    # The `scat` found on PATH is just `scat`.
    on_path = {**env, "PATH": f"{BIN}{os.pathsep}/usr/bin:/bin"}
    again = subprocess.run(["scat", "show", game, "--as", "you"], cwd=tmp_path, env=on_path,
                           capture_output=True, text=True, check=True)
    assert _hints(again) and all(hint.startswith("scat ") for hint in _hints(again)), again.stdout


def _a_game(url: str) -> str:
    """A game of you and a bot, your turn to draw, made in-process (cheaper than a `scat new`)."""
    from scat_core.domain.events import PlayerSeat

    games = open_database(migrated(url))
    try:
        return games.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], seed=3,
                                 dealer="ann").game_id
    finally:
        games.store.engine.dispose()


@pytest.mark.parametrize("command", [["show", "{game}", "--as", "you"], ["draw", "{game}", "--as", "you", "stock"]])
def test_a_command_loads_only_what_it_uses_and_collects_no_garbage_meanwhile(sqlite_url: str,
                                                                            command: list[str]) -> None:
    # Start-up (issue #8): no Alembic when the schema is current, no typer pydantic adapters
    # for plain options, no rich in a pipe, no PostgreSQL dialect on SQLite; the garbage
    # collector waits while the command loads its modules (they live until exit), then they
    # are frozen and the usual thresholds come back.
    args = [word.replace("{game}", _a_game(sqlite_url)) for word in command]
    result = scat_in_a_fresh_interpreter(
        ["--db", sqlite_url, *args],
        "heavy = sorted(m for m in ('alembic', 'typer._adapters', 'rich', 'sqlalchemy.dialects.postgresql') "
        "if m in sys.modules)\n"
        "assert not heavy, heavy\n"
        "assert not older, f'collections of older generations: {older}'\n"
        "assert gc.get_threshold() == before, (gc.get_threshold(), before)\n"
        "assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()\n",
        before="import gc\nbefore, older = gc.get_threshold(), []\n"
        "gc.callbacks.append(lambda phase, info: older.append(info['generation']) if phase == 'start' "
        "and info['generation'] > 0 else None)\n")
    assert result.returncode == 0, result.stderr
