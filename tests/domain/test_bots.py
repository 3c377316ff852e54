"""Bots: the heuristic player beats a uniformly random one, and plays deterministically."""

from __future__ import annotations

import random

from scat_core.domain.bots import heuristic_move, knock_threshold, next_bot_command, random_move
from scat_core.domain.commands import CreateGame, Declare31, Discard, Draw, Knock
from scat_core.domain.decide import decide
from scat_core.domain.evolve import fold
from scat_core.domain.legal import play_moves
from scat_core.domain.options import GameOptions
from tests.support.decks import stacked_deck
from tests.support.domain import CHANCE, GAME_ID, create, heuristic, play, play_out, seats, take_turn, uniform

HEADS_UP_GAMES = 400  # the benchmark plays the full 1,000


def heads_up(game: int) -> str | None:
    """One game of the heuristic bot H against a uniformly random player R, seats alternating."""
    rng = random.Random(game)
    names, policies = (("H", "R"), [heuristic, uniform(rng)]) if game % 2 else (("R", "H"), [uniform(rng), heuristic])
    _, state = play_out(names, policies, f"heads-up-{game}")
    return state.winner


def test_the_heuristic_bot_beats_a_uniformly_random_player_in_at_least_75_percent_of_heads_up_games() -> None:
    wins = sum(heads_up(game) == "H" for game in range(HEADS_UP_GAMES))
    assert wins / HEADS_UP_GAMES >= 0.75, f"{wins} of {HEADS_UP_GAMES}"


def test_bot_games_are_deterministic_given_the_seed() -> None:
    options = GameOptions(three_of_a_kind=True, straight_flush=True, min_knock=18)
    first = play_out(("A", "B", "C", "D"), [heuristic] * 4, "99", options=options)
    again = play_out(("A", "B", "C", "D"), [heuristic] * 4, "99", options=options)
    assert first == again
    other = play_out(("A", "B", "C", "D"), [heuristic] * 4, "100", options=options)
    assert other[0][2:] != first[0][2:]


def test_the_heuristic_bot_always_makes_the_same_move_in_the_same_state() -> None:
    history = create(("A", "B", "C"), dealer="C", hands={"A": "KC 9C 2H", "B": "QD 8D 3S", "C": "JH 7H 4S"})
    state = fold(history)
    assert heuristic_move(state, 0) == heuristic_move(fold(history), 0)
    assert heuristic_move(state, 1) is None  # not his turn and no 31


def test_r20_the_heuristic_bot_declares_31_at_once_even_out_of_turn() -> None:
    state = fold(create(("A", "B", "C"), dealer="C", hands={"A": "2C 3D 4H", "B": "AH KH QH", "C": "5S 6D 9C"}))
    assert heuristic_move(state, 1) == Declare31("B")
    assert next_bot_command(state) is None  # nobody is a bot in this game


def test_next_bot_command_moves_bots_only_and_lets_a_bot_with_31_declare_first() -> None:
    deck = stacked_deck(["2C 3D 4H", "AH KH QH", "5S 6D 9C"], discard="7C")
    command = CreateGame(GAME_ID, seats("A", "B", "C", bots=["B", "C"]), dealer="C", first_deck=deck)
    state = fold(decide(fold([]), command, CHANCE))
    assert next_bot_command(state) == Declare31("B")  # A, a human, is to play
    deck = stacked_deck(["2C 3D 4H", "AH KH 2H", "5S 6D 9C"], discard="7C")
    command = CreateGame(GAME_ID, seats("A", "B", "C", bots=["B", "C"]), dealer="C", first_deck=deck)
    state = fold(decide(fold([]), command, CHANCE))
    assert next_bot_command(state) is None  # the human A must act first


def test_the_heuristic_bot_takes_the_discard_top_when_it_improves_the_hand_and_never_throws_it_back() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "KC 9C 2H", "B": "QD 8D 3S"}, discard="AC")
    state = fold(history)
    assert heuristic_move(state, 0) == Draw("A", "discard")
    state = fold(play(history, Draw("A", "discard")))
    assert heuristic_move(state, 0) == Discard("A", "2H")  # keeps the clubs: 30


def test_the_heuristic_bot_draws_from_the_stock_when_the_discard_top_does_not_help() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "KC 9C 2H", "B": "QD 8D 3S"}, discard="3D")
    assert heuristic_move(fold(history), 0) == Draw("A", "stock")


def test_the_heuristic_bot_knocks_on_a_strong_hand_within_the_options() -> None:
    hands = {"A": "AC KC 2H", "B": "QD 8D 3S"}  # A holds 21
    assert knock_threshold(fold(create(("A", "B"), dealer="B", hands=hands))) == 23
    strong = {"A": "AC KC 3C", "B": "QD 8D 3S"}  # 24
    assert heuristic_move(fold(create(("A", "B"), dealer="B", hands=strong)), 0) == Knock("A")
    assert heuristic_move(fold(create(("A", "B"), dealer="B", hands=strong, min_knock=25)), 0) != Knock("A")
    history = create(("A", "B"), dealer="B", hands=strong, no_first_round_knock=True)
    assert heuristic_move(fold(history), 0) != Knock("A")  # R15b


def test_the_knock_threshold_is_lower_with_more_players_and_rises_as_the_hand_goes_on() -> None:
    two = fold(create(("A", "B"), dealer="B"))
    six = fold(create(("A", "B", "C", "D", "E", "F"), dealer="F"))
    assert knock_threshold(six) < knock_threshold(two)
    later = fold(take_turn(take_turn(create(("A", "B"), dealer="B"))))
    assert knock_threshold(later) == knock_threshold(two) + 1
    assert all(17 <= knock_threshold(state) <= 27 for state in (two, six, later))


def test_play_moves_are_exactly_the_moves_of_play_the_rules_allow() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AC KC 3C", "B": "QD 8D 3S"}, discard="9H", min_knock=20)
    state = fold(history)
    assert play_moves(state, 0) == [Draw("A", "stock"), Draw("A", "discard"), Knock("A")]
    assert play_moves(state, 1) == []
    state = fold(play(history, Draw("A", "discard")))
    assert play_moves(state, 0) == [Discard("A", "AC"), Discard("A", "KC"), Discard("A", "3C")]  # R13
    assert random_move(state, 1, random.Random(0)) is None
    assert random_move(state, 0, random.Random(0)) in play_moves(state, 0)
    weak = fold(create(("A", "B"), dealer="B", hands={"A": "2C 3D 4H", "B": "QD 8D 3S"}, min_knock=20))
    assert Knock("A") not in play_moves(weak, 0)  # R15
