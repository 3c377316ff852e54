"""`scat import FILE|DIR ...`: many exports at once, each on its own, then a summary; exit 1 if one was refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.cli import LOCAL_AND_SERVER, SCAT, Scat

pytestmark = LOCAL_AND_SERVER  # On a database and through `scat --server`.


def _finished_games(scat: Scat, count: int) -> list[str]:
    """`count` games of bots alone (over as soon as created), with their ids."""
    ids = []
    for seed in range(1, count + 1):
        created = scat("new", "-q", "--bot", "ann", "--bot", "bob", "--seed", str(seed))
        assert created.exit_code == 0, created.output
        ids.append(created.stdout.strip())
    return ids


def _exported(scat: Scat, folder: Path) -> None:
    assert scat("export", "--all", "-o", str(folder)).exit_code == 0


@pytest.mark.local_only("it imports into a second database")
def test_a_folder_of_20_exports_with_one_bad_file_imports_19_exits_1_and_names_the_bad_one(
        scat: Scat, tmp_path: Path) -> None:
    games = _finished_games(scat, 19)
    folder = tmp_path / "exports"
    _exported(scat, folder)
    bad = folder / "0-broken.jsonl"
    bad.write_text("this is not an export\n", encoding="utf-8")
    assert len(list(folder.iterdir())) == 20
    other = {"SCAT_DB_URL": f"sqlite:///{tmp_path / 'other.db'}"}
    result = scat("import", str(folder), env=other)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == f"19 imported, 0 already here, 1 refused ({bad})"
    # why, in one line; and in a pipe no progress bar
    assert result.stderr.splitlines() == [f"scat: refused {bad}: {bad} line 1 is not JSON: {bad} is not a scat export "
                                          "(expected the json or jsonl written by `scat export`)"]
    listed = json.loads(scat("games", "--json", env=other).stdout)
    rows = listed["games"] if isinstance(listed, dict) else listed
    assert sorted(row["game_id"] for row in rows) == sorted(games)
    again = scat("import", str(folder), "--json", env=other)
    assert again.exit_code == 1
    document = json.loads(again.stdout)
    assert document["imported"] == [] and document["ok"] is False
    assert sorted(item["game_id"] for item in document["already_here"]) == sorted(games)
    assert [(item["file"], item["exit_code"]) for item in document["refused"]] == [(str(bad), 2)]


def test_several_files_and_a_game_already_here_are_summarised_and_exit_0(scat: Scat, tmp_path: Path) -> None:
    first, second = _finished_games(scat, 2)
    folder = tmp_path / "exports"
    _exported(scat, folder)
    files = sorted(str(path) for path in folder.iterdir())
    result = scat("import", *files)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "0 imported, 2 already here, 0 refused"
    assert {f"already here: game {game}" for game in (first, second)} <= {
        line.split(" (")[0] for line in result.stdout.splitlines()}


def test_a_missing_file_among_many_is_refused_by_name_and_stdin_only_alone(scat: Scat, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = scat("import", str(tmp_path / "nope.jsonl"), str(empty))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (f"0 imported, 0 already here, 2 refused ({tmp_path / 'nope.jsonl'}, "
                                              f"{empty})")
    assert f"no file {tmp_path / 'nope.jsonl'}" in result.stderr
    assert f"the folder {empty} holds no .json or .jsonl export" in result.stderr
    stdin = scat("import", "-", str(empty))
    assert stdin.exit_code == 2 and "'-' (an export on stdin) is read alone" in stdin.stderr


@pytest.mark.local_only("the real executable on a database")
def test_import_of_a_folder_on_a_terminal_shows_a_progress_bar(scat: Scat, games_db: str, tmp_path: Path) -> None:
    import pexpect

    _finished_games(scat, 3)
    folder = tmp_path / "exports"
    _exported(scat, folder)
    env = {**os.environ, "SCAT_DB_URL": f"sqlite:///{tmp_path / 'other.db'}", "SCAT_SERVER": "",
           "TERM": "xterm-256color"}
    child = pexpect.spawn(SCAT, ["import", str(folder)], env=env, dimensions=(24, 100), encoding="utf-8",
                          timeout=60)
    try:
        child.expect("importing")
        child.expect("3 imported, 0 already here, 0 refused")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
