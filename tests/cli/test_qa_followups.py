"""Follow-ups of a QA pass as a new user: face-down hands in replays, read-only waits, wording."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import Scat, imported_into_a_fresh_database, new_game, one_line_error, real_scat

YOUR_CARDS = ["2C", "5D", "9H"]  # YOUR_DEAL


def deal_line(text: str) -> str:
    """The line telling the first deal."""
    return next(line for line in text.splitlines() if "dealt hand 1" in line)


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_r23_replay_and_log_of_a_read_only_game_never_show_a_face_down_hand(
    scat: Scat, scat_json: Scat, tmp_path: Path, migrated_sqlite: Path
) -> None:
    game = new_game(scat_json, "--throw-down")
    env = imported_into_a_fresh_database(scat, game, tmp_path, migrated_sqlite)
    replayed = scat("replay", game, "--to", "2", "--as", "you", env=env)
    assert replayed.exit_code == 0 and "face down" in replayed.stdout
    assert not any(card in deal_line(replayed.stdout) for card in YOUR_CARDS)
    logged = scat("log", game, "--as", "you", env=env).stdout
    assert not any(card in deal_line(logged) for card in YOUR_CARDS)
    data = scat_json("log", game, "--as", "you", env=env)["events"][1]["data"]["deck"]
    assert not set(YOUR_CARDS) & set(data)


def test_r23_a_replay_in_a_throw_down_game_tells_the_deal_as_the_table_shows_the_hand(
    scat: Scat, scat_json: Scat
) -> None:
    game = new_game(scat_json, "--throw-down")
    replayed = scat("replay", game, "--to", "2", "--as", "you").stdout
    assert "face down" in replayed and not any(card in deal_line(replayed) for card in YOUR_CARDS)
    logged = scat("log", game, "--as", "you").stdout
    assert all(card in deal_line(logged) for card in YOUR_CARDS)  # a recorded look


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_waiting_on_a_read_only_game_is_refused_at_once(
    scat: Scat, scat_json: Scat, tmp_path: Path, migrated_sqlite: Path
) -> None:
    game = new_game(scat_json)
    env = imported_into_a_fresh_database(scat, game, tmp_path, migrated_sqlite)
    refused = scat("wait", game, "--as", "you", "--timeout", "5", env=env)
    assert refused.exit_code == 1 and refused.stdout == ""
    assert "was imported without its secret seed" in one_line_error(refused)
    assert "not played on" in one_line_error(refused)


def test_key_trust_of_a_missing_file_says_no_such_file_like_import(scat: Scat, tmp_path: Path) -> None:
    missing = str(tmp_path / "no" / "such.pem")
    for command in (("key", "trust", missing), ("import", missing)):
        refused = scat(*command)
        assert refused.exit_code == 4 and one_line_error(refused) == f"scat: error: no file {missing}"
    assert scat("key", "trust", "not-a-key").exit_code == 2  # not a path: still "not a scat public key"


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


@pytest.mark.local_only("it exports a running game (a server never does) or imports into a second database")
def test_show_json_says_read_only_and_whose_turn_as_games_json_does(
    scat: Scat, scat_json: Scat, tmp_path: Path, migrated_sqlite: Path
) -> None:
    game = new_game(scat_json)  # you to play
    mine = scat_json("show", game, "--as", "you")
    assert (mine["turn"], mine["read_only"]) == ("you", False)
    env = imported_into_a_fresh_database(scat, game, tmp_path, migrated_sqlite)
    listed = next(row for row in scat_json("games", env=env)["games"] if row["game_id"] == game)
    for viewer in ((), ("--as", "you")):
        shown = scat_json("show", game, *viewer, env=env)
        assert (shown["turn"], shown["read_only"]) == (listed["turn"], listed["read_only"]) == (None, True)


def test_a_timed_out_wait_reads_right_for_any_name_and_one_second(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--player", "eve", "--bot", "bob", "--dealer", "bob",
                     "--seed", "1")["game_id"]
    waiter = "eve" if scat_json("show", game)["turn"] == "you" else "you"
    timed_out = scat("wait", game, "--as", waiter, "--timeout", "1")
    assert timed_out.exit_code == 6
    assert one_line_error(timed_out) == f"scat: error: still not the turn of {waiter} in game {game} after 1 second"


def test_a_read_only_database_is_named_by_the_url_given(
    scat: Scat, scat_json: Scat, cli_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = new_game(scat_json)
    from scat_core.store import database

    real_access = os.access
    monkeypatch.setattr(database.os, "access", lambda path, mode: mode != os.W_OK and real_access(path, mode))
    refused = scat("draw", game, "--as", "you", "stock")
    line = one_line_error(refused)
    assert refused.exit_code != 0 and "read-only" in line
    assert cli_db in line and "mode=ro" not in line and "file%3A" not in line


@pytest.mark.local_only("it imports into a second database")
def test_waiting_on_a_read_only_protected_game_is_refused_as_read_only_not_as_a_wrong_token(
    scat: Scat, scat_json: Scat, cli_db: str, tmp_path: Path, migrated_sqlite: Path
) -> None:
    # README: `wait` refuses a running game imported (read-only here) with exit 1; its tokens
    # were not exported, which is no failed authentication (exit 3). Such an export comes from
    # elsewhere (`scat export` refuses a running protected game): the records are copied here.
    from scat_core.service.games import GameService

    game = new_game(scat_json, "--protect")
    fresh = tmp_path / "fresh.db"
    shutil.copy(migrated_sqlite, fresh)
    source, target = GameService.open(cli_db), GameService.open(f"sqlite:///{fresh}")
    with source.store.read() as tx:
        assert target.import_records(tx.load_raw(game)).ok
    source.store.engine.dispose()
    target.store.engine.dispose()
    env = {"SCAT_DB_URL": f"sqlite:///{fresh}"}
    for token in ("", "anything"):
        refused = scat("wait", game, "--as", "you", "--timeout", "5", env={**env, "SCAT_TOKEN": token})
        assert refused.exit_code == 1 and refused.stdout == ""
        assert "was imported without its secret seed" in one_line_error(refused)
        assert "not played on" in one_line_error(refused)
    assert scat("wait", game, "--as", "nobody", env=env).exit_code == 4  # still no such player
