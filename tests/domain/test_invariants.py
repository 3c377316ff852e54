"""The invariants of rules.md: the checker passes honest states and names every broken one."""

from __future__ import annotations

from dataclasses import replace

from scat_core.domain.commands import Draw, Knock
from scat_core.domain.evolve import fold
from scat_core.domain.invariants import invariant_problems
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from tests.support.domain import create, play

ABC = ("A", "B", "C")


def dealt() -> GameState:
    return fold(create(ABC, dealer="C", hands={"A": "AS KS 4S", "B": "KH QH 2C", "C": "10D 2S 3C"}, discard="9H"))


def test_honest_states_break_no_invariant() -> None:
    assert invariant_problems(GameState()) == []
    assert invariant_problems(dealt()) == []
    history = create(ABC, dealer="C", hands={"A": "AS KS 4S", "B": "KH QH 2C", "C": "10D 2S 3C"})
    assert invariant_problems(fold(play(history, Draw("A", "stock")))) == []
    assert invariant_problems(fold(play(history, Knock("A")))) == []


def test_a_card_in_two_places_or_missing_is_named() -> None:
    state = dealt()
    twice = state.evolved({"stock": ("AS", *state.stock[1:])})
    [problem] = invariant_problems(twice)
    assert "exactly one place" in problem and "AS" in problem


def test_pennies_that_are_not_conserved_are_named() -> None:
    state = dealt()
    assert "pennies are not conserved" in invariant_problems(state.evolved({"kitty": 1}))[0]
    players = (replace(state.players[0], pennies=-1), *state.players[1:])
    assert "pennies are not conserved" in invariant_problems(state.evolved({"players": players, "kitty": 4}))[0]


def test_a_player_with_the_wrong_number_of_cards_is_named() -> None:
    state = dealt()
    short = state.evolved(
        {"hands": (state.hands[0][:2], *state.hands[1:]), "discard": (*state.discard, state.hands[0][2])}
    )
    assert invariant_problems(short) == ["A holds 2 cards"]
    four = state.evolved({"hands": (state.hands[0], state.hands[1] + state.stock[:1], state.hands[2]),
                          "stock": state.stock[1:]})
    assert invariant_problems(four) == ["B holds 4 cards"]  # only the player to act may


def test_a_player_who_is_out_but_holds_cards_is_named() -> None:
    state = dealt()
    players = (state.players[0], replace(state.players[1], out=True), state.players[2])
    assert invariant_problems(state.evolved({"players": players})) == ["B is out but holds 3 cards"]


def test_two_players_with_4_cards_while_settling_are_named() -> None:
    state = dealt()
    hands = (state.hands[0] + state.stock[:1], state.hands[1] + state.stock[1:2], state.hands[2])
    broken = state.evolved({"hands": hands, "stock": state.stock[2:], "phase": "settling", "turn": None})
    assert "more than one player holds 4 cards" in invariant_problems(broken)


def test_nobody_or_somebody_out_to_act_during_a_hand_is_named() -> None:
    state = dealt()
    assert invariant_problems(state.evolved({"turn": None})) == ["nobody active is to act during a hand"]
    assert invariant_problems(state.evolved({"phase": "settling"})) == ["A is to act while the hand is settling"]


def test_the_invariants_use_the_games_own_number_of_lives() -> None:
    state = fold(create(ABC, dealer="C", lives=5))
    assert state.options == GameOptions(lives=5)
    assert invariant_problems(state) == []
