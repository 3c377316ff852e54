"""R11-R17: turns, drawing and discarding, knocking, the last round and reshuffles."""

from __future__ import annotations

from typing import Any

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import Declare31, Discard, Draw, Knock
from scat_core.domain.errors import RuleViolation, ScatError
from scat_core.domain.evolve import fold
from tests.support.decks import cards
from tests.support.domain import SEED, create, given, play, take_turn
from tests.support.shuffle import documented_shuffle

ABC = ("A", "B", "C")
# C deals, so A plays first, then B, then C (R9, R11).
HANDS = {"A": "KC 9C 2H", "B": "QD 8D 3S", "C": "JH 7H 4S"}  # worth 19, 18, 17


def game(**options: Any) -> list[ev.Event]:
    return create(ABC, dealer="C", hands=HANDS, discard="5D", stock="6S 10S 2S 3H 4H", **options)


def test_r12_a_turn_starts_by_drawing_the_top_of_the_stock() -> None:
    state = given(game()).when(Draw("A", "stock")).then(
        [ev.CardDrawn(player="A", source="stock", card="6S")]
    )
    assert state.hands[0] == cards("KC 9C 2H 6S")
    assert (state.phase, state.name(state.turn), state.stock[0]) == ("discard", "A", "10S")


def test_r12_a_turn_may_start_by_drawing_the_top_of_the_discard_pile() -> None:
    state = given(game()).when(Draw("A", "discard")).then(
        [ev.CardDrawn(player="A", source="discard", card="5D")]
    )
    assert state.hands[0] == cards("KC 9C 2H 5D")
    assert state.discard == ()
    assert state.stock[0] == "6S"


def test_r12_a_turn_ends_with_a_discard_and_passes_to_the_left() -> None:
    state = given(play(game(), Draw("A", "stock"))).when(Discard("A", "2H")).then(
        [ev.CardDiscarded(player="A", card="2H")]
    )
    assert state.hands[0] == cards("KC 9C 6S")
    assert state.discard == ("5D", "2H")
    assert (state.phase, state.name(state.turn)) == ("draw", "B")


def test_r12_a_draw_from_anywhere_but_the_stock_or_the_discard_pile_is_refused() -> None:
    for source in ("Discard", "deck", ""):
        given(game()).when(Draw("A", source)).then_refused(ScatError, match="stock")  # type: ignore[arg-type]


def test_r12_drawing_twice_in_a_turn_is_refused() -> None:
    given(play(game(), Draw("A", "stock"))).when(Draw("A", "discard")).then_refused(
        RuleViolation, "R12", match="drawn already"
    )


def test_r12_discarding_before_drawing_is_refused() -> None:
    given(game()).when(Discard("A", "2H")).then_refused(RuleViolation, "R12", match="draw a card first")


def test_r12_discarding_a_card_not_in_the_hand_is_refused() -> None:
    given(play(game(), Draw("A", "stock"))).when(Discard("A", "QD")).then_refused(
        RuleViolation, "R12", match="do not hold QD"
    )


@pytest.mark.parametrize("command", [Draw("B", "stock"), Draw("C", "discard"), Knock("B"), Discard("B", "QD")])
def test_r11_playing_out_of_turn_is_refused(command: object) -> None:
    given(game()).when(command).then_refused(RuleViolation, "R11", match="not your turn: the player to act is A")  # type: ignore[arg-type]


def test_r11_the_player_in_the_middle_of_his_turn_is_still_the_one_to_play() -> None:
    given(play(game(), Draw("A", "stock"))).when(Draw("B", "stock")).then_refused(RuleViolation, "R11")


def test_r13_a_card_taken_from_the_discard_pile_may_not_be_discarded_in_the_same_turn() -> None:
    given(play(game(), Draw("A", "discard"))).when(Discard("A", "5D")).then_refused(
        RuleViolation, "R13", match="5D"
    )


def test_r13_another_card_may_be_discarded_after_taking_the_discard_top() -> None:
    given(play(game(), Draw("A", "discard"))).when(Discard("A", "2H")).then(
        [ev.CardDiscarded(player="A", card="2H")]
    )


def test_r13_a_card_drawn_from_the_stock_may_be_discarded_at_once() -> None:
    given(play(game(), Draw("A", "stock"))).when(Discard("A", "6S")).then(
        [ev.CardDiscarded(player="A", card="6S")]
    )


def test_r13_the_card_taken_last_turn_may_be_discarded_on_a_later_turn() -> None:
    history = play(game(), Draw("A", "discard"), Discard("A", "2H"))
    history = take_turn(take_turn(history))  # B and C
    given(play(history, Draw("A", "stock"))).when(Discard("A", "5D")).then(
        [ev.CardDiscarded(player="A", card="5D")]
    )


def test_r14_knocking_on_the_very_first_turn_of_the_hand_is_allowed() -> None:
    state = given(game()).when(Knock("A")).then([ev.Knocked(player="A")])
    assert state.hands[0] == cards("KC 9C 2H")  # he keeps his hand
    assert (state.knocker, state.phase, state.name(state.turn)) == (0, "draw", "B")


def test_r14_knocking_takes_the_place_of_drawing_so_not_after_a_draw() -> None:
    given(play(game(), Draw("A", "stock"))).when(Knock("A")).then_refused(RuleViolation, "R12")


def test_r14_r16_there_is_at_most_one_knock_per_hand() -> None:
    given(play(game(), Knock("A"))).when(Knock("B")).then_refused(
        RuleViolation, "R16", match="A has knocked already"
    )


def test_r15_with_min_knock_a_hand_worth_less_than_n_may_not_knock() -> None:
    given(game(min_knock=20)).when(Knock("A")).then_refused(
        RuleViolation, "R15", match="worth 19: knocking needs at least 20"
    )


def test_r15_with_min_knock_a_hand_worth_exactly_n_may_knock() -> None:
    given(game(min_knock=19)).when(Knock("A")).then([ev.Knocked(player="A")])


def test_r15b_with_no_first_round_knock_nobody_knocks_before_everyone_has_had_a_turn() -> None:
    history = game(no_first_round_knock=True)
    given(history).when(Knock("A")).then_refused(RuleViolation, "R15b")
    history = take_turn(take_turn(history))  # A and B
    given(history).when(Knock("C")).then_refused(RuleViolation, "R15b")  # C has not had his turn
    history = take_turn(history)  # C
    given(history).when(Knock("A")).then([ev.Knocked(player="A")])


def test_r15b_without_the_option_the_first_player_may_knock() -> None:
    given(game(no_first_round_knock=False)).when(Knock("A")).then([ev.Knocked(player="A")])


def test_r16_after_a_knock_every_other_player_has_exactly_one_turn_then_the_showdown() -> None:
    history = play(game(), Knock("A"), Draw("B", "stock"), Discard("B", "6S"), Draw("C", "stock"))
    state = fold(history)
    assert state.name(state.turn) == "C"
    produced, state = given(history).when(Discard("C", "10S")).then_starts_with(
        [ev.CardDiscarded(player="C", card="10S")]
    )
    assert isinstance(produced[1], ev.ShowdownHeld) and produced[1].caller == "A"
    assert state.hand_number == 2


def test_r16_after_a_knock_in_the_middle_the_hand_ends_when_the_knockers_right_has_discarded() -> None:
    history = play(game(), Draw("A", "stock"), Discard("A", "6S"), Knock("B"))
    history = play(history, Draw("C", "stock"), Discard("C", "10S"))
    state = fold(history)
    assert (state.hand_number, state.name(state.turn)) == (1, "A")  # C's discard did not end it
    history = play(history, Draw("A", "stock"))
    produced, _ = given(history).when(Discard("A", "2S")).then_starts_with([ev.CardDiscarded(player="A", card="2S")])
    assert isinstance(produced[1], ev.ShowdownHeld) and produced[1].caller == "B"


def test_r16_the_knocker_takes_no_further_turn_and_others_may_not_knock() -> None:
    history = play(game(), Knock("A"))
    given(history).when(Knock("B")).then_refused(RuleViolation, "R16")
    given(history).when(Draw("A", "stock")).then_refused(RuleViolation, "R11", match="the player to act is B")


def test_r16_heads_up_the_other_player_has_one_turn_after_a_knock() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "KC 9C 2H", "B": "QD 8D 3S"}, discard="5D", stock="6S")
    history = play(history, Knock("A"), Draw("B", "stock"))
    produced, _ = given(history).when(Discard("B", "6S")).then_starts_with([ev.CardDiscarded(player="B", card="6S")])
    assert isinstance(produced[1], ev.ShowdownHeld)


def _empty_the_stock() -> list[ev.Event]:
    """A and B (B deals) draw every card of the stock and throw it away again."""
    history = create(("A", "B"), dealer="B", hands={"A": "2C 3D 4H", "B": "2D 3H 4S"}, discard="5C")
    for _ in range(45):  # 52 - 6 dealt - 1 discard top
        history = take_turn(history)
    return history


def test_r17_drawing_from_an_empty_stock_first_shuffles_the_discard_pile_but_its_top_into_a_new_stock() -> None:
    history = _empty_the_stock()
    before = fold(history)
    assert before.stock == () and len(before.discard) == 46
    player = before.name(before.turn)
    assert player == "B"
    new_stock = tuple(documented_shuffle(SEED, "restock/1/1", before.discard[:-1]))  # bottom first
    state = given(history).when(Draw("B", "stock")).then(
        [ev.StockReshuffled(stock=new_stock), ev.CardDrawn(player="B", source="stock", card=new_stock[0])]
    )
    assert sorted(new_stock) == sorted(before.discard[:-1])
    assert new_stock != before.discard[:-1]  # shuffled, not just reused
    assert state.discard == before.discard[-1:]
    assert state.stock == new_stock[1:]
    assert state.reshuffles == 1


def test_r17_drawing_the_discard_top_from_an_empty_stock_does_not_reshuffle() -> None:
    history = _empty_the_stock()
    top = fold(history).discard[-1]
    given(history).when(Draw("B", "discard")).then([ev.CardDrawn(player="B", source="discard", card=top)])


def test_r17_a_second_reshuffle_in_the_same_hand_uses_the_next_label_of_the_seed() -> None:
    history = _empty_the_stock()
    history = take_turn(history)  # the first reshuffle
    for _ in range(44):
        history = take_turn(history)
    before = fold(history)
    assert before.stock == ()
    player = before.name(before.turn)
    assert player is not None
    produced, state = given(history).when(Draw(player, "stock")).then_starts_with(
        [ev.StockReshuffled(stock=tuple(documented_shuffle(SEED, "restock/1/2", before.discard[:-1])))]
    )
    assert state.reshuffles == 2


def test_r20_a_player_who_drew_into_31_may_not_declare_while_holding_4_cards() -> None:
    history = create(ABC, dealer="C", hands={"A": "AS KS 2H", **{k: v for k, v in HANDS.items() if k != "A"}},
                     discard="QS")
    history = play(history, Draw("A", "discard"))
    given(history).when(Declare31("A")).then_refused(RuleViolation, "R20", match="4 cards")
