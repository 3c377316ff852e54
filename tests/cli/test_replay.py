"""`scat replay`: the game before the first deal, a seq past the end, a face-down hand told as the table shows it."""

from __future__ import annotations

from tests.support.cli import YOUR_CARDS, Scat, deal_line, new_game, one_line_error


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


def test_r23_a_replay_in_a_throw_down_game_tells_the_deal_as_the_table_shows_the_hand(
    scat: Scat, scat_json: Scat
) -> None:
    game = new_game(scat_json, "--throw-down")
    replayed = scat("replay", game, "--to", "2", "--as", "you").stdout
    assert "face down" in replayed and not any(card in deal_line(replayed) for card in YOUR_CARDS)
    logged = scat("log", game, "--as", "you").stdout
    assert all(card in deal_line(logged) for card in YOUR_CARDS)  # a recorded look
