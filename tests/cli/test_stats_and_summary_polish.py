"""Stats agree with `show` on a game ended by resignation (R27); the hand summary keeps a knock (R21)."""

from __future__ import annotations

from scat_cli.summary import outcome_text
from scat_core.service.outcomes import HandOutcome
from tests.support.cli import Scat


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


def test_r21_a_31_after_a_knock_still_names_the_knocker_who_paid() -> None:
    hand = HandOutcome(number=2, dealer="ann", first_seq=10, last_seq=20, turns=4, knocked_by="bob",
                       ended_by="declaration", by="you", values={"you": 31}, lives_lost={"ann": 1, "bob": 1})
    line = outcome_text(hand, ["you", "ann", "bob"])
    assert "bob knocked" in line and "you declared 31" in line
    assert line.index("bob knocked") < line.index("you declared 31")
    assert "bob 1 life (the knocker too, R21)" in line
