"""R9, R10: the deal layout, stated once in `deal`, and its inverse `stack`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scat_core.domain import shuffle
from scat_core.domain.cards import DECK
from scat_core.domain.evolve import fold
from tests.support.domain import create


@given(players=st.integers(2, 9), deck=st.permutations(DECK))
def test_r9_r10_stacking_the_hands_a_deck_deals_gives_back_the_deck(players: int, deck: list[str]) -> None:
    laid = shuffle.deal(deck, players)
    assert len(laid.hands) == players and all(len(hand) == shuffle.HAND_SIZE for hand in laid.hands)
    assert shuffle.stack(laid.hands, laid.discard, laid.stock) == deck


@given(players=st.integers(2, 9), deck=st.permutations(DECK))
def test_r9_r10_each_card_of_the_deck_goes_where_receiver_says(players: int, deck: list[str]) -> None:
    laid = shuffle.deal(deck, players)
    for position, card in enumerate(deck):
        to = shuffle.receiver(position, players)
        if to is not None:
            assert card in laid.hands[to]
        elif position == shuffle.discard_position(players):
            assert card == laid.discard
        else:
            assert card in laid.stock


def test_r9_one_card_at_a_time_from_the_dealers_left() -> None:
    laid = shuffle.deal(["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3", "up", "s1", "s2"], 3)
    assert laid.hands == (("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3"))
    assert (laid.discard, laid.stock) == ("up", ("s1", "s2"))


def test_r9_r8_the_deal_order_skips_players_who_are_out_and_starts_left_of_an_out_dealer() -> None:
    assert shuffle.deal_order([False, False, False, False], 1) == [2, 3, 0, 1]
    assert shuffle.deal_order([False, True, False, False], 0) == [2, 3, 0]
    assert shuffle.deal_order([False, True, False, False], 1) == [2, 3, 0]  # the dealer was just eliminated


def test_stack_refuses_a_hand_of_the_wrong_size() -> None:
    with pytest.raises(ValueError, match="every hand is 3 cards"):
        shuffle.stack([["AS", "KS"]], "QS")


def test_r9_a_stacked_first_deck_deals_the_hands_in_the_order_of_the_game_state() -> None:
    state = fold(create(["ann", "bob", "cy"], "bob", {"ann": "2C 3C 4C", "bob": "5D 6D 7D", "cy": "8H 9H 10H"}))
    assert state.play_order() == shuffle.deal_order([False] * 3, state.dealer) == [2, 0, 1]
    assert state.hands == (("2C", "3C", "4C"), ("5D", "6D", "7D"), ("8H", "9H", "10H"))
