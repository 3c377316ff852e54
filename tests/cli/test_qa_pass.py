"""A new user's QA pass: exit codes, case, the state before the first deal, summaries."""

from __future__ import annotations

from tests.support.cli import Scat, one_line_error


def test_games_status_is_case_insensitive(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--lives", "1", "--seed", "2")["game_id"]
    listed = scat_json("games", "--status", "FINISHED")["games"]
    assert [row["game_id"] for row in listed] == [game]
    assert scat_json("games", "--status", "Active")["games"] == []


def test_a_seq_past_the_end_is_bad_input_and_a_missing_game_not_found(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--bot", "bob", "--seed", "1")["game_id"]
    past = scat("replay", game, "--to", "99")
    assert past.exit_code == 2 and "has events 1 to" in one_line_error(past)
    assert scat("replay", "zzzzzz", "--to", "1").exit_code == 4


def test_r9_replay_to_the_creation_shows_the_game_before_the_first_deal(scat: Scat, scat_json: Scat) -> None:
    game = scat_json("new", "--player", "you", "--bot", "bob", "--seed", "4")["game_id"]
    human = scat("replay", game, "--to", "1").stdout
    assert f"Game {game} · before the first deal · dealer bob" in human, human
    assert "hand 0" not in human and "No cards dealt yet" in human and "Stock: 0" not in human
    then = scat_json("replay", game, "--to", "1")
    assert then["phase"] in ("draw", "discard", "finished") and then["stage"] == "new"
    assert "before the first deal" not in scat("replay", game, "--to", "2").stdout
