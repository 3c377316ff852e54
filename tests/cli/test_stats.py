"""`scat stats`: the table, the JSON fields, one player, an unknown one (exit 4), --rebuild."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from scat_core.store.sql import tables as t
from scat_core.store.sql.database import make_engine
from tests.support.cli import CLI_MODES, Scat, one_line_error

FIELDS = {
    "name", "games_played", "games_won", "games_in_progress", "hands_played", "hands_lost", "lives_lost",
    "knocks", "knocks_saved", "knocks_lost_one", "knocks_lost_two", "throw_downs", "thirty_ones",
    "showdowns", "average_showdown_value", "longest_game", "resigned", "timeouts",
}


def bot_games(scat: Scat, *lineups: tuple[str, ...]) -> None:
    for seed, lineup in enumerate(lineups, start=1):
        args = [arg for name in lineup for arg in ("--bot", name)]
        assert scat("new", "-q", *args, "--seed", str(seed)).exit_code == 0


def test_stats_json_has_the_documented_fields_per_player_and_overall(scat: Scat, scat_json: Scat) -> None:
    bot_games(scat, ("ann", "bob"), ("Ann", "cy"))
    document = scat_json("stats")
    assert set(document) == {"players", "overall"}
    assert all(set(p) == FIELDS for p in document["players"]) and set(document["overall"]) == FIELDS
    ann = next(p for p in document["players"] if p["name"].lower() == "ann")
    assert ann["games_played"] == 2  # "ann" and "Ann" are one player
    overall = document["overall"]
    assert overall["name"] is None and overall["games_played"] == 2
    assert sum(p["games_won"] for p in document["players"]) == 2
    assert overall["knocks"] == overall["knocks_saved"] + overall["knocks_lost_one"] + overall["knocks_lost_two"]
    assert overall["longest_game"]["hands"] >= ann["longest_game"]["hands"] >= 1


def test_stats_for_one_player_in_any_case(scat: Scat, scat_json: Scat) -> None:
    bot_games(scat, ("ann", "bob"))
    document = scat_json("stats", "--player", "BOB")
    assert [p["name"] for p in document["players"]] == ["bob"]


def test_stats_of_an_unknown_player_is_exit_4_in_one_line(scat: Scat) -> None:
    bot_games(scat, ("ann", "bob"))
    result = scat("stats", "--player", "zed")
    assert result.exit_code == 4
    assert one_line_error(result) == "scat: error: no player 'zed' has played in this database (see `scat stats`)"


def stats_rows(url: str) -> tuple[int, int]:
    """How many checkpoints and stats_games rows the database holds (the projection's writes)."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return (conn.execute(select(func.count()).select_from(t.projection_checkpoints)).scalar_one(),
                    conn.execute(select(func.count()).select_from(t.stats_games)).scalar_one())
    finally:
        engine.dispose()


@pytest.mark.parametrize("cli_mode", CLI_MODES)
def test_an_unknown_player_is_refused_before_the_projection_catches_up(scat: Scat, games_db: str) -> None:
    """cli.md: a refused command writes nothing, so `stats --player nobody` (exit 4) leaves the
    projection behind the log; locally and through --server."""
    bot_games(scat, ("ann", "bob"))
    assert stats_rows(games_db) == (0, 0)
    result = scat("stats", "--player", "nobody")
    assert result.exit_code == 4, result.output
    assert "no player 'nobody' has played" in one_line_error(result)
    assert stats_rows(games_db) == (0, 0)  # nothing written
    assert scat("stats", "--player", "Ann").exit_code == 0
    assert stats_rows(games_db) == (1, 1)  # a known player: caught up, then read


def test_rebuild_gives_the_same_figures(scat: Scat, scat_json: Scat) -> None:
    bot_games(scat, ("ann", "bob", "cy"), ("bob", "dan"))
    assert scat_json("stats") == scat_json("stats", "--rebuild")


def test_stats_in_a_pipe_is_a_plain_table_with_all_players_last(scat: Scat) -> None:
    bot_games(scat, ("ann", "bob"))
    result = scat("stats")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split()[:4] == ["player", "games", "won", "hands"]
    assert lines[3].startswith("all ") and "\x1b[" not in result.stdout
    assert json.dumps(result.stdout).count("\\u") == 0  # plain text, no symbols


def test_stats_on_an_empty_database_says_how_to_start(scat: Scat) -> None:
    result = scat("stats")
    assert result.exit_code == 0 and "No games yet" in result.stdout


def test_r27_a_hand_ended_by_resignation_is_a_hand_played_in_stats_as_in_show(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--bot", "bob", "--seed", "9")["game_id"]
    assert scat("resign", game, "--as", "you").exit_code == 0
    shown = scat_json("show", game)
    assert shown["status"] == "finished"
    stats = scat_json("stats")
    assert stats["overall"]["longest_game"] == {"game_id": game, "hands": 1}
    assert stats["overall"]["hands_played"] == 1
    assert {p["name"]: p["hands_played"] for p in stats["players"]} == {"you": 1, "bob": 1}
    text = scat("stats").stdout
    assert f"Longest game: {game}, 1 hand." in text
    assert "1 game finished" in text and "1 games" not in text


def test_r23_r27_the_stats_table_has_throw_downs_and_resignations(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--bot", "bob", "--seed", "9")["game_id"]
    scat("resign", game, "--as", "you")
    header = next(line for line in scat("stats").stdout.splitlines() if line.split()[:1] == ["player"])
    assert "tds" in header.split() and "res" in header.split()
    you = next(line for line in scat("stats").stdout.splitlines() if line.split()[:1] == ["you"])
    assert you.split()[header.split().index("res")] == "1"


def test_stats_for_one_player_ends_with_his_counts_not_the_whole_database(scat: Scat, scat_json: Scat) -> None:
    scat_json("new", "--bot", "ann", "--bot", "bob", "--lives", "1", "--seed", "2")
    game = scat_json("new", "--player", "you", "--bot", "cid", "--seed", "9")["game_id"]
    scat("resign", game, "--as", "you")
    text = scat("stats", "--player", "you").stdout
    assert "you: 1 game finished, 0 in progress" in text, text
    assert "2 games" not in text


def test_the_all_row_says_its_lost_hands_count_each_loser_so_they_may_exceed_the_hands(scat: Scat,
                                                                                        scat_json: Scat) -> None:
    bot_games(scat, ("ann", "bob", "cy"), ("ann", "bob", "cy", "dan"))
    overall = scat_json("stats")["overall"]
    players = scat_json("stats")["players"]
    assert overall["hands_lost"] == sum(p["hands_lost"] for p in players)  # once per loser
    assert overall["hands_played"] <= sum(p["hands_played"] for p in players)  # once per hand
    legend = " ".join(scat("stats").stdout.split())
    assert "in the all row, a hand counts once under hands and once for each player who lost it under lost" in legend
    alone = " ".join(scat("stats", "--player", "ann").stdout.split())
    assert "lost: hands lost." in alone and "in the all row" not in alone
