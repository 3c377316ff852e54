"""Every command quoted to the user runs as pasted: the program, the global --db given, the game id."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from scat_cli.app import app
from tests.support.cli import LOW, one_line_error


@pytest.fixture
def db(cli_db: str) -> Any:
    """Run `scat --db URL ARGS...` (the URL on the command line, no SCAT_DB_URL)."""

    def run(*args: str) -> Any:
        return CliRunner().invoke(app, ["--db", cli_db, *args], env={"SCAT_DB_URL": "", "SCAT_TOKEN": ""},
                                  catch_exceptions=False)

    return run


def new_id(db: Any, *args: str) -> str:
    result = db("new", *args, "--quiet")
    assert result.exit_code == 0, result.output
    return str(result.stdout.split()[0])


def test_no_such_game_points_at_the_games_of_this_database(db: Any, cli_db: str) -> None:
    result = db("show", "zzz")
    assert result.exit_code == 4
    assert f"`scat --db {cli_db} games`" in one_line_error(result)


def test_an_empty_games_list_starts_a_game_in_this_database(db: Any, cli_db: str) -> None:
    assert f"Start one: `scat --db {cli_db} new --player you" in db("games").stdout
    assert f"Start one: `scat --db {cli_db} new --player you" in db("stats").stdout


def test_an_unknown_player_in_stats_points_at_this_databases_stats(db: Any, cli_db: str) -> None:
    new_id(db, "--player", "you", "--bot", "bob", "--seed", "1")
    result = db("stats", "--player", "qq")
    assert result.exit_code == 4
    assert f"`scat --db {cli_db} stats`" in one_line_error(result)


def test_r27_the_game_over_seed_line_audits_this_database(db: Any, cli_db: str) -> None:
    game = new_id(db, "--player", "you", "--bot", "bob", "--seed", "9")
    out = db("resign", game, "--as", "you").stdout
    assert f"check every deal with `scat --db {cli_db} audit {game}`" in out, out


def test_r23_a_refusal_on_an_unseen_hand_names_the_game_to_look_at(db: Any, cli_db: str) -> None:
    game = new_id(db, "--player", "you", "--player", "eve", "--dealer", "eve", "--deck", LOW, "--throw-down",
                  "--min-knock", "20")
    result = db("knock", game, "--as", "you")
    assert result.exit_code == 1
    assert f"(`scat --db {cli_db} show {game} --as you --look`)" in one_line_error(result)


def test_a_damaged_history_names_the_audit_of_this_database(db: Any, cli_db: str) -> None:
    game = new_id(db, "--player", "you", "--bot", "bob", "--seed", "3")
    engine = create_engine(cli_db)
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER events_no_delete"))
        conn.execute(text("DELETE FROM events WHERE game_id = :g AND seq = "
                          "(SELECT max(seq) FROM events WHERE game_id = :g)"), {"g": game})
    engine.dispose()
    result = db("show", game)
    assert result.exit_code == 1
    assert one_line_error(result).endswith(f"run `scat --db {cli_db} audit {game}`")


def test_r23_the_look_first_hint_quotes_a_name_with_a_space(db: Any, cli_db: str) -> None:
    game = new_id(db, "--player", "ann smith", "--player", "eve", "--dealer", "eve", "--deck", LOW, "--throw-down",
                  "--min-knock", "20")
    result = db("knock", game, "--as", "ann smith")
    assert result.exit_code == 1
    assert f"(`scat --db {cli_db} show {game} --as 'ann smith' --look`)" in one_line_error(result)
