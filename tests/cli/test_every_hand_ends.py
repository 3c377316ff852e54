"""Rules version 3 through the CLI, on a database and through `scat serve`: min-knock is 1 to 30
(R15), every hand ends (R17b: the views count the stock draws left), so the referee's endless
game of bots, in its rules-3 form, ends; a game that cannot end can be abandoned."""

from __future__ import annotations

import json

import pytest

from scat_core.service import playing
from tests.support.cli import EVERY_MODE, Scat, one_line_error

ENDLESS = ("--min-knock", "31", "--lives", "1", "--straight-flush", "--seed", "90038")


pytestmark = EVERY_MODE


def test_r15_a_game_asking_min_knock_31_is_refused_when_it_is_created_and_nothing_is_written(scat: Scat) -> None:
    result = scat("new", "--player", "you", "--bot", "b0", "--bot", "b1", *ENDLESS)
    assert result.exit_code == 2
    assert one_line_error(result).startswith("scat: error: --min-knock must be from 1 to 30, not 31")
    assert scat("games").stdout.startswith("No games yet.")


def test_r17b_the_referees_game_of_bots_in_its_rules_3_form_ends_and_audits(scat: Scat, scat_json: Scat) -> None:
    """With its creator seated beside the bots (a server seats him), who resigns: the bots play it out."""
    rules_3 = ("--min-knock", "30", *ENDLESS[2:])
    game = scat_json("new", "--player", "you", "--bot", "b0", "--bot", "b1", "--dealer", "b1", *rules_3)
    assert game["rules_version"] == 3
    shown = scat_json("show", game["game_id"])
    assert shown["draws_before_dead_hand"] is not None and shown["draws_before_dead_hand"] <= 3 * 42
    ended = scat_json("resign", game["game_id"], "--as", "you", "--yes")
    assert ended["status"] == "finished" and ended["winner"] in ("b0", "b1")
    assert scat_json("audit", game["game_id"])["ok"]


def test_r17b_show_tells_the_stock_draws_left_before_a_dead_hand(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--player", "kay", "--dealer", "kay")["game_id"]
    assert scat_json("show", game)["draws_before_dead_hand"] == 45 * 3  # 52 - 6 dealt - 1 turned up, thrice
    assert "Stock: 45 cards (135 draws before a dead hand, R17b)" in scat("show", game).stdout


def test_the_last_human_in_a_game_abandons_it_and_it_audits_with_its_seed(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--player", "kay", "--bot", "b0", "--dealer", "b0",
                     "--seed", "7")["game_id"]
    refused = scat("abandon", game, "--as", "you", "--yes")
    assert refused.exit_code == 1
    assert "kay is still in the game: only the last human in a game may abandon it" in one_line_error(refused)
    scat_json("resign", game, "--as", "kay", "--yes")
    done = scat("abandon", game, "--as", "you", "--yes")
    assert done.exit_code == 0, done.output
    assert "Game over: abandoned without a winner" in done.stdout and "the game was abandoned by you" in done.stdout
    view = scat_json("show", game)
    assert (view["status"], view["winner"]) == ("finished", None)
    report = scat_json("audit", game)
    assert report["ok"] and report["seed_verified"]
    again = scat("draw", game, "--as", "you", "stock")
    assert again.exit_code == 1 and "abandoned" in one_line_error(again)


def test_a_game_only_bots_are_left_in_is_abandoned_by_the_owner_of_a_local_database(
    scat: Scat, scat_json: Scat, cli_mode: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bots that meet a command's bound say so and play on at the next command; the owner of the
    database (no --as) may give such a game up; a server has no owner but its players (exit 3)."""
    monkeypatch.setattr(playing, "BOT_MOVES_PER_UNIT", 4)
    monkeypatch.setattr(playing, "BOT_UNITS_PER_COMMAND", 1)
    made = scat("new", "--bot", "b0", "--bot", "b1", "--seed", "7", "--json")  # a deal without a 31 (R20)
    assert made.exit_code == 0, made.output
    game = json.loads(made.stdout)["game_id"]
    assert "the bots made 2 moves and play on at the next command" in made.stderr
    assert f"abandon {game}" in made.stderr
    done = scat("abandon", game, "--yes")
    if cli_mode != "local":
        assert done.exit_code == 3 and "no owner here but its players" in one_line_error(done)
        return
    assert done.exit_code == 0, done.output
    assert "the game was abandoned by the owner of the database" in done.stdout
    assert scat_json("audit", game)["seed_verified"]
