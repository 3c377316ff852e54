"""What a player coming back sees: the moves since his last one, a finished game's result
(each hand, standings, duration, the winner's pennies, R26), typeable card hints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scat_cli.transcript import outcome_text
from scat_cli.wiring import open_database
from scat_core.domain.bots import heuristic_move
from scat_core.service.values import HandOutcome
from tests.support.cli import Scat
from tests.support.databases import migrated
from tests.support.decks import stacked
from tests.support.hidden import cards_in

# you, kay (humans), ann (bot); ann deals: you play first, then kay, then ann (R11)
DECK = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["3C", "7H", "8D"]], "7C",
               ["8C", "3H", "6S", "JD", "2S", "4S"])
V1 = Path(__file__).resolve().parents[1] / "data" / "v1"
CONTRACT = {"game_id", "status", "hand_number", "dealer", "turn", "phase", "knocked_by", "discard_top",
            "stock_count", "kitty", "winner", "last_seq", "players", "hand"}


def three(scat_json: Scat) -> str:
    return str(scat_json("new", "--player", "you", "--player", "kay", "--bot", "ann", "--dealer", "ann",
                         "--deck", DECK)["game_id"])


def test_show_lists_the_moves_since_your_last_one_redacted_for_you(scat: Scat, scat_json: Scat) -> None:
    game = three(scat_json)
    scat_json("draw", game, "--as", "you", "stock")  # 8C
    scat_json("discard", game, "--as", "you", "2C")
    scat_json("draw", game, "--as", "kay", "stock")  # 3H: hidden from you
    scat_json("discard", game, "--as", "kay", "4D")  # ann plays after kay
    view = scat_json("show", game, "--as", "you")
    assert CONTRACT <= set(view)
    moves = view["since_last_move"]
    assert [m["type"] for m in moves[:4]] == ["CardDrawn", "CardDiscarded", "CardDrawn", "CardDiscarded"]
    assert moves[0]["data"] == {"player": "kay", "source": "stock", "card": "??"}  # kay's draw, redacted
    assert moves[0]["text"] == "kay drew from the stock"
    assert "3H" not in json.dumps(moves)
    human = scat("show", game, "--as", "you").stdout
    lines = human.splitlines()
    assert lines[0] == "Since your last move:"
    assert lines[1] == "· kay drew from the stock and discarded 4D"
    assert lines[2].startswith("· ann drew ")
    assert lines[3].startswith(f"Game {game} · hand 1")
    # kay sees his own draw; he has not moved since, so nothing is new for him but ann's turn
    kay = scat_json("show", game, "--as", "kay")["since_last_move"]
    assert [m["data"]["player"] for m in kay] == ["ann", "ann"]


def test_show_without_as_has_no_moves_list_and_the_public_view_is_unchanged(scat_json: Scat) -> None:
    game = three(scat_json)
    view = scat_json("show", game)
    assert "since_last_move" not in view and "hand" not in view


def test_long_runs_of_moves_are_told_one_line_per_hand_with_the_detail_in_the_log(
    scat: Scat, scat_json: Scat, cli_db: str
) -> None:
    game = scat_json("new", "--player", "you", "--player", "kay", "--bot", "ann", "--bot", "bob", "--seed", "7",
                     "--dealer", "bob")["game_id"]
    assert scat("resign", game, "--as", "you").exit_code == 0  # you watch kay and the bots play on
    games = open_database(migrated(cli_db))
    try:
        while (state := games.playing.look(game)).hand_number < 4 and state.status != "finished":
            assert state.turn is not None and state.players[state.turn].name == "kay"
            move = heuristic_move(state, state.turn)
            assert move is not None
            games.playing.act(game, move)
    finally:
        games.store.engine.dispose()
    out = scat("show", game, "--as", "you").stdout
    assert out.startswith("Since your last move:\n")
    told = [line for line in out.splitlines() if line.startswith("· ")]
    summaries = [line for line in told if line.startswith("· hand ")]
    assert len(summaries) >= 2 and all("turns; " in line and "(dealer " in line for line in summaries)
    assert any("lost: " in line for line in summaries)
    log = scat("log", game).stdout.splitlines()
    assert len(log) > 2 * len(told)


def test_a_finished_game_shows_its_result_once_each_hand_standings_duration_and_winner_r26(
    scat: Scat, scat_json: Scat
) -> None:
    game = scat_json("new", "--bot", "ann", "--bot", "bob", "--bot", "cy", "--seed", "3")["game_id"]
    view = scat_json("show", game)
    result = view["result"]
    winner = next(p for p in view["players"] if p["name"] == view["winner"])
    assert result["winner"] == view["winner"] and result["rules_version"] == 3
    assert result["winner_pennies"] == winner["pennies"] and view["kitty"] == 0  # R26 (version 2)
    assert sum(p["pennies"] for p in view["players"]) == 9
    assert result["hands_played"] == len(result["hands"]) == view["hand_number"]
    assert [s["place"] for s in result["standings"]] == [1, 2, 3] and result["standings"][0]["winner"]
    assert all(h["ended_by"] in ("showdown", "declaration", "throw_down", "resignation") for h in result["hands"])
    assert result["duration_seconds"] >= 0 and result["started_at"] <= result["ended_at"]
    out = scat("show", game).stdout
    assert out.count("Game over:") == 1 and out.count(" won ") == 1
    assert f"after {result['hands_played']} hands in " in out
    for hand in result["hands"]:
        assert f"  hand {hand['number']} (dealer {hand['dealer']}): " in out
    assert "out in hand " in out and "winner" in out


def test_a_rules_version_1_game_shows_its_version_and_the_kitty_taken(scat: Scat, scat_json: Scat) -> None:
    assert scat("import", str(V1 / "standard.jsonl")).exit_code == 0
    game = json.loads((V1 / "games.json").read_text())["standard"]["game_id"]
    view = scat_json("show", game)
    assert view["rules_version"] == 1 and view["kitty"] > 0
    own = next(p["pennies"] for p in view["players"] if p["name"] == view["winner"])
    assert view["result"]["winner_pennies"] == own  # rules version 1: the kitty stays the kitty
    out = scat("show", game[:5]).stdout
    assert "· rules version 1" in out.splitlines()[0]
    assert f"{view['winner']} won and took the kitty of {view['kitty']}" in out


def test_card_hints_on_a_terminal_are_typeable_and_show_the_symbol_too(
    scat: Scat, scat_json: Scat, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = three(scat_json)
    scat_json("draw", game, "--as", "you", "stock")
    monkeypatch.setattr("scat_cli.render.stdout_is_terminal", lambda: True)
    out = scat("show", game, "--as", "you").stdout
    hint = next(line for line in out.splitlines() if "CARD one of" in line)
    plain = hint.replace("\x1b[0m", "").replace("\x1b[1m", "").replace("\x1b[1;31m", "").replace("\x1b[1;36m", "")
    assert "CARD one of 2C (2♣) 5D (5♦) 9H (9♥) 8C (8♣)" in plain
    assert f"scat discard {game} --as you CARD" in plain


def test_in_a_pipe_hints_use_the_plain_notation_only(scat: Scat, scat_json: Scat) -> None:
    game = three(scat_json)
    scat_json("draw", game, "--as", "you", "stock")
    out = scat("show", game, "--as", "you").stdout
    assert "CARD one of 2C 5D 9H 8C" in out and not {"♣", "♦", "♥", "♠"} & set(out)
    assert cards_in(out) >= {"2C", "5D", "9H", "8C"}


def test_r21_a_31_after_a_knock_still_names_the_knocker_who_paid() -> None:
    hand = HandOutcome(number=2, dealer="ann", first_seq=10, last_seq=20, turns=4, knocked_by="bob",
                       ended_by="declaration", by="you", values={"you": 31}, lives_lost={"ann": 1, "bob": 1})
    line = outcome_text(hand, ["you", "ann", "bob"])
    assert "bob knocked" in line and "you declared 31" in line
    assert line.index("bob knocked") < line.index("you declared 31")
    assert "bob 1 life (the knocker too, R21)" in line
