"""R20-R22: declaring 31."""

from __future__ import annotations

from scat_core.domain import events as ev
from scat_core.domain.commands import Declare31, Discard, Draw, Knock
from scat_core.domain.decide import value_of
from scat_core.domain.errors import RuleViolation
from scat_core.domain.evolve import fold
from tests.support.decks import cards
from tests.support.domain import CHANCE, create, given, play

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C


def next_deal() -> ev.HandDealt:
    return ev.HandDealt(hand_number=2, dealer="A", deck=tuple(CHANCE.deck(2)))


def test_r20_r21_31_may_be_declared_straight_after_the_deal_and_everybody_else_loses_one() -> None:
    history = create(ABC, dealer="C", hands={"A": "2C 3D 4H", "B": "AH KH QH", "C": "5S 6D 9C"})
    state = given(history).when(Declare31("B")).then(
        [
            ev.ThirtyOneDeclared(player="B", hand=cards("AH KH QH")),
            ev.PennyPaid(player="A"),
            ev.PennyPaid(player="C"),
            next_deal(),
        ]
    )
    assert [player.pennies for player in state.players] == [2, 3, 2]
    assert state.revealed == {"B": cards("AH KH QH")} and state.revealed_values == {"B": 31}
    assert state.hand_number == 2


def test_r20_31_may_be_declared_out_of_turn_while_another_player_holds_4_cards() -> None:
    history = create(ABC, dealer="C", hands={"A": "2C 3D 4H", "B": "AH KH JH", "C": "5S 6D 9C"})
    history = play(history, Draw("A", "stock"))
    given(history).when(Declare31("B")).then(
        [
            ev.ThirtyOneDeclared(player="B", hand=cards("AH KH JH")),
            ev.PennyPaid(player="A"),
            ev.PennyPaid(player="C"),
            next_deal(),
        ]
    )


def test_r20_r21_after_a_knock_31_may_be_declared_and_the_knocker_loses_exactly_one() -> None:
    history = create(ABC, dealer="C", hands={"A": "2C 3D 4H", "B": "5S 6D 9C", "C": "AD 10D QD"})
    history = play(history, Knock("A"), Draw("B", "stock"))
    given(history).when(Declare31("C")).then(
        [
            ev.ThirtyOneDeclared(player="C", hand=cards("AD 10D QD")),
            ev.PennyPaid(player="A"),  # the knocker: one life, not two (R21)
            ev.PennyPaid(player="B"),
            next_deal(),
        ]
    )


def test_r20_a_player_who_drew_into_31_must_discard_before_declaring() -> None:
    history = create(ABC, dealer="C", hands={"A": "AS KS 2H", "B": "5S 6D 9C", "C": "2C 3D 4H"}, discard="QS")
    history = play(history, Draw("A", "discard"))
    given(history).when(Declare31("A")).then_refused(RuleViolation, "R20", match="4 cards")
    history = play(history, Discard("A", "2H"))
    state = fold(history)
    assert state.name(state.turn) == "B"
    produced, _ = given(history).when(Declare31("A")).then_starts_with(
        [ev.ThirtyOneDeclared(player="A", hand=cards("AS KS QS"))]
    )
    assert produced[1:3] == [ev.PennyPaid(player="B"), ev.PennyPaid(player="C")]


def test_r20_declaring_a_hand_not_worth_31_is_refused() -> None:
    history = create(ABC, dealer="C", hands={"A": "KS QS JS", "B": "5S 6D 9C", "C": "AH AD AC"},
                     three_of_a_kind=True, straight_flush=True)
    given(history).when(Declare31("A")).then_refused(RuleViolation, "R20", match="worth 30, not 31")
    given(history).when(Declare31("C")).then_refused(RuleViolation, "R20", match="worth 30, not 31")
    given(history).when(Declare31("B")).then_refused(RuleViolation, "R20", match="worth 9, not 31")


def test_r20_nothing_is_declared_for_a_player_who_makes_31_by_himself() -> None:
    history = create(ABC, dealer="C", hands={"A": "AS KS 2H", "B": "5S 6D 9C", "C": "2C 3D 4H"}, discard="QS")
    history = play(history, Draw("A", "discard"))
    state = given(history).when(Discard("A", "2H")).then([ev.CardDiscarded(player="A", card="2H")])
    assert value_of(state, 0) == 31 and state.name(state.turn) == "B"


def test_r21_a_knocker_who_declares_31_loses_nothing_and_everybody_else_one() -> None:
    history = create(ABC, dealer="C", hands={"A": "AS KS QS", "B": "5S 6D 9C", "C": "2C 3D 4H"})
    history = play(history, Knock("A"), Draw("B", "stock"))
    given(history).when(Declare31("A")).then(
        [
            ev.ThirtyOneDeclared(player="A", hand=cards("AS KS QS")),
            ev.PennyPaid(player="B"),
            ev.PennyPaid(player="C"),
            next_deal(),
        ]
    )


def test_r22_when_two_players_hold_31_the_first_declaration_wins_and_the_second_is_refused() -> None:
    history = create(ABC, dealer="C", hands={"A": "AS KS QS", "B": "AH KH QH", "C": "5S 6D 9C"})
    history = play(history, Declare31("B"))
    state = fold(history)
    assert state.hand_number == 2  # the hand ended with B's declaration
    assert [player.pennies for player in state.players] == [2, 3, 2]
    assert value_of(state, 0) != 31  # A's new hand (from the seed) is no 31
    given(history).when(Declare31("A")).then_refused(RuleViolation, "R20", match="not 31")


def test_r22_heads_up_the_second_declaration_is_refused_because_the_game_is_over() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "AH KH QH"}, lives=1, no_dole=True)
    history = play(history, Declare31("A"))
    assert history[-1] == ev.GameWon(winner="A", kitty=1, seed="seed", seed_salt="salt")
    given(history).when(Declare31("B")).then_refused(RuleViolation, match="the game is over: A won")
