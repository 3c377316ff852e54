"""R16, R18, R19, R19a-c: the showdown after a knock, exact cases from stacked decks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import Discard, Draw, Knock
from scat_core.domain.evolve import fold
from tests.support.decks import cards
from tests.support.domain import CHANCE, Scenario, create, given, play, take_turn

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C


def last_turn_after_knock(hands: Mapping[str, str], knocker: str, **options: Any) -> tuple[Scenario, str]:
    """Hands dealt by C; play until `knocker` knocks and the player to his right has drawn
    from the stock. Returns the scenario and the card that player will discard (the one
    he drew), so nobody's hand changes before the showdown."""
    history = create(ABC, dealer="C", hands=hands, **options)
    while fold(history).name(fold(history).turn) != knocker:
        history = take_turn(history)
    history = play(history, Knock(knocker))
    right = ABC[(ABC.index(knocker) - 1) % 3]
    while fold(history).name(fold(history).turn) != right:
        history = take_turn(history)
    history = play(history, Draw(right, "stock"))
    state = fold(history)
    return given(history).when(Discard(right, state.hands[ABC.index(right)][-1])), right


def settled(
    right: str, drawn: str, caller: str, hands: Mapping[str, str], values: Mapping[str, int],
    lost: Mapping[str, int],
) -> list[ev.Event]:
    """The events of the last discard and the showdown of hand 1 (dealt by C)."""
    order = ["A", "B", "C"]
    return [
        ev.CardDiscarded(player=right, card=drawn),
        ev.ShowdownHeld(
            caller=caller,
            hands={name: cards(hands[name]) for name in order},
            values={name: values[name] for name in order},
            lives_lost=dict(lost),
        ),
        *[ev.PennyPaid(player=name) for name in order for _ in range(lost.get(name, 0))],
        ev.HandDealt(hand_number=2, dealer="A", deck=tuple(CHANCE.deck(2))),
    ]


def check(hands: dict[str, str], knocker: str, values: dict[str, int], lost: dict[str, int], **options: Any) -> None:
    scenario, right = last_turn_after_knock(hands, knocker, **options)
    assert scenario.command is not None
    drawn = scenario.command.card  # type: ignore[union-attr]
    state = scenario.then(settled(right, drawn, knocker, hands, values, lost))
    for name in ABC:
        assert state.players[ABC.index(name)].pennies == 3 - lost.get(name, 0)
    assert state.kitty == sum(lost.values())
    assert state.revealed == {name: cards(hands[name]) for name in ABC}  # R18
    assert state.revealed_values == values


@pytest.mark.parametrize("knocker", ["A", "B"])
def test_r19_the_player_with_the_lowest_value_loses_one_life(knocker: str) -> None:
    hands = {"A": "AS KS 4S", "B": "KH QH 2C", "C": "10D 2S 3C"}
    check(hands, knocker, {"A": 25, "B": 20, "C": 10}, {"C": 1})


def test_r19a_a_knocker_tying_for_lowest_loses_nothing_and_the_others_tied_lose_one() -> None:
    hands = {"A": "9S 6S 2H", "B": "10H 5H 3D", "C": "KD QD 2S"}
    check(hands, "A", {"A": 15, "B": 15, "C": 20}, {"B": 1})


def test_r19a_a_knocker_in_a_three_way_tie_for_lowest_loses_nothing() -> None:
    hands = {"A": "9S 6S 2H", "B": "10H 5H 3D", "C": "8D 7D 2C"}
    check(hands, "B", {"A": 15, "B": 15, "C": 15}, {"A": 1, "C": 1})


@pytest.mark.parametrize("knocker", ["A", "C"])
def test_r19b_a_knocker_alone_with_the_lowest_value_loses_two_lives(knocker: str) -> None:
    hands = {"A": "KH QH 2C", "B": "KD QD 2S", "C": "KC QC 2D"}
    hands[knocker] = "10S 4H 3D"
    values = {name: 10 if name == knocker else 20 for name in ABC}
    check(hands, knocker, values, {knocker: 2})


def test_r19c_two_players_tied_for_lowest_none_the_knocker_each_lose_one_life() -> None:
    hands = {"A": "AS KS 4S", "B": "10H 2C 3D", "C": "10D 2S 3H"}
    check(hands, "A", {"A": 25, "B": 10, "C": 10}, {"B": 1, "C": 1})


def test_r19c_the_knocker_is_not_protected_when_he_is_not_among_the_lowest() -> None:
    hands = {"A": "AS KS 4S", "B": "10H 2C 3D", "C": "10D 2S 3H"}
    check(hands, "C", {"A": 25, "B": 10, "C": 10}, {"B": 1})  # C knocked: R19a, B loses


def test_r18_hands_are_valued_with_the_games_options_at_the_showdown() -> None:
    hands = {"A": "7C 7D 7H", "B": "5S 6S 7S", "C": "KD QD 2S"}
    check(hands, "C", {"A": 7, "B": 18, "C": 20}, {"A": 1})
    check(hands, "C", {"A": 30, "B": 18, "C": 20}, {"B": 1}, three_of_a_kind=True)
    check(hands, "C", {"A": 7, "B": 30, "C": 20}, {"A": 1}, straight_flush=True)
    check(hands, "C", {"A": 30, "B": 30, "C": 20}, {"C": 2}, three_of_a_kind=True, straight_flush=True)


def test_r18_the_showdown_values_the_hands_as_they_are_after_the_last_turns() -> None:
    # A knocks; B improves from 10 to 21 by taking the discard top; C is then lowest.
    hands = {"A": "AS KS 4S", "B": "10H 2C 3D", "C": "KD 5D 2S"}
    history = create(ABC, dealer="C", hands=hands, discard="AH")
    history = play(history, Knock("A"), Draw("B", "discard"), Discard("B", "2C"), Draw("C", "stock"))
    drawn = fold(history).hands[2][-1]
    produced, _ = given(history).when(Discard("C", drawn)).then_starts_with([ev.CardDiscarded(player="C", card=drawn)])
    showdown = produced[1]
    assert isinstance(showdown, ev.ShowdownHeld)
    assert showdown.hands["B"] == cards("10H 3D AH")
    assert showdown.values == {"A": 25, "B": 21, "C": 15}
    assert showdown.lives_lost == {"C": 1}


def test_rules_v1_r18_the_showdown_values_a_31_like_any_other_hand() -> None:
    # Rules version 1 (R20): nothing is declared automatically; at a showdown 31 is just the highest.
    hands = {"A": "AS KS 4S", "B": "AH KH QH", "C": "10D 2S 3C"}
    check(hands, "A", {"A": 25, "B": 31, "C": 10}, {"C": 1}, rules_version=1)


def test_rules_v2_r20_r21_a_31_at_the_showdown_is_settled_as_declared_the_knocker_pays_too() -> None:
    # Rules version 2 (R20): every active player without 31 loses one life (R21), the knocker too.
    hands = {"A": "AS KS 4S", "B": "AH KH QH", "C": "10D 2S 3C"}
    check(hands, "A", {"A": 25, "B": 31, "C": 10}, {"A": 1, "C": 1}, rules_version=2)


@pytest.mark.parametrize(("rules_version", "lost"), [(1, {"A": 2}), (2, {"A": 1, "B": 1})])
def test_r20_the_last_player_after_the_knock_draws_his_31_rules_v1_lowest_loses_v2_settled_as_declared(
    rules_version: Any, lost: dict[str, int]
) -> None:
    # A knocks on 17; B plays; C (to A's right) draws QS to AS KS and must discard to end the hand (R16).
    # Version 1: A is alone lowest (R19b). Version 2 (R20): C's 31 is settled as declared (R21).
    hands = {"A": "9S 8S 2D", "B": "KH QH 3C", "C": "AS KS QD"}
    history = create(ABC, dealer="C", hands=hands, stock="5D QS", rules_version=rules_version)
    history = play(history, Knock("A"), Draw("B", "stock"), Discard("B", "5D"), Draw("C", "stock"))
    produced = given(history).when(Discard("C", "QD")).then_starts_with([ev.CardDiscarded(player="C", card="QD")])[0]
    showdown = produced[1]
    assert isinstance(showdown, ev.ShowdownHeld)
    assert showdown.values == {"A": 17, "B": 20, "C": 31}
    assert showdown.lives_lost == lost
    paid = [e.player for e in produced if isinstance(e, ev.PennyPaid)]
    assert paid == [name for name in ABC for _ in range(lost.get(name, 0))]


def test_rules_v2_r20_two_players_with_31_at_a_showdown_both_lose_nothing() -> None:
    hands = {"A": "AS KS QS", "B": "AH KH QH", "C": "10D 2S 3C"}
    check(hands, "C", {"A": 31, "B": 31, "C": 10}, {"C": 1}, rules_version=2)
