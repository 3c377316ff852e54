"""A change stored, then its output not written (`> /dev/full`, a closed pipe): the error line says it was stored."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import real_scat

needs_dev_full = pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")


def to_full(*args: str) -> subprocess.CompletedProcess[str]:
    with open("/dev/full", "w") as full:
        return real_scat(*args, stdout=full)


@needs_dev_full
def test_r12_a_draw_recorded_but_not_shown_says_it_was_recorded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'full.db'}"
    game = real_scat("--db", url, "new", "--player", "you", "--bot", "bob", "--seed", "4", "-q").stdout.strip()
    before = json.loads(real_scat("--db", url, "show", game, "--json").stdout)["last_seq"]
    result = to_full("--db", url, "draw", game, "--as", "you", "stock")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert "cannot write the output" in result.stderr
    assert "your move was recorded" in result.stderr
    assert f"--db {url} show {game} --as you`" in result.stderr
    assert json.loads(real_scat("--db", url, "show", game, "--json").stdout)["last_seq"] > before


@needs_dev_full
def test_new_and_import_not_shown_name_the_game(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'full.db'}"
    result = to_full("--db", url, "new", "--player", "you", "--bot", "bob", "--json")
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    games = json.loads(real_scat("--db", url, "games", "--json").stdout)["games"]
    assert len(games) == 1
    game = games[0]["game_id"]
    assert f"game {game} was created; see `" in result.stderr and f"show {game}`" in result.stderr

    export = tmp_path / "g.jsonl"
    assert real_scat("--db", url, "export", game, "--running", "-o", str(export)).returncode == 0
    other = f"sqlite:///{tmp_path / 'other.db'}"
    imported = to_full("--db", other, "import", str(export))
    assert imported.returncode == 2 and imported.stderr.count("\n") == 1, imported.stderr
    assert f"game {game} was imported; see `" in imported.stderr
    assert len(json.loads(real_scat("--db", other, "games", "--json").stdout)["games"]) == 1


def into_a_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the real `scat ARGS` with its stdout a pipe nobody reads any more (`| head -1` once done)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return real_scat(*args, stdout=write)
    finally:
        os.close(write)


def test_a_read_into_a_closed_pipe_stops_quietly_but_a_move_still_says_it_was_recorded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pipe.db'}"
    game = real_scat("--db", url, "new", "--player", "you", "--bot", "bob", "--seed", "4", "-q").stdout.strip()
    for command in (("log", game), ("show", game, "--as", "you"), ("games",)):
        result = into_a_closed_pipe("--db", url, *command)
        assert (result.returncode, result.stderr) == (0, ""), command
    before = json.loads(real_scat("--db", url, "show", game, "--json").stdout)["last_seq"]
    moved = into_a_closed_pipe("--db", url, "draw", game, "--as", "you", "stock")
    assert moved.returncode == 2 and "your move was recorded" in moved.stderr
    assert json.loads(real_scat("--db", url, "show", game, "--json").stdout)["last_seq"] > before
