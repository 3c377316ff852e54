"""R1-R5: the deck, card notation and hand values."""

from __future__ import annotations

import pytest

from scat_core.domain.cards import (
    DECK,
    format_card,
    format_cards,
    hand_value,
    parse_card,
    parse_cards,
    parse_deck,
    points,
)
from scat_core.domain.errors import BadInput
from scat_core.domain.options import GameOptions
from tests.support.decks import cards


def value(text: str, **options: bool) -> int:
    return hand_value(cards(text), GameOptions(**options))


def test_r1_the_deck_is_52_distinct_cards_of_four_suits_and_thirteen_ranks() -> None:
    assert len(DECK) == 52 == len(set(DECK))
    assert {card[-1] for card in DECK} == {"C", "D", "H", "S"}
    assert {card[:-1] for card in DECK} == {
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"
    }


@pytest.mark.parametrize(
    ("card", "expected"),
    [("AS", 11), ("KH", 10), ("QD", 10), ("JC", 10), ("10S", 10), ("9H", 9), ("2C", 2)],
)
def test_r2_an_ace_is_worth_11_court_cards_10_and_the_others_their_pips(card: str, expected: int) -> None:
    assert points(card) == expected


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("KS 10S 4H", 20),  # the example of R3: not 4
        ("AS KS QS", 31),  # the maximum
        ("AH 10H JH", 31),
        ("2C 3D 4H", 4),  # three suits: the best single card
        ("AC 2D 3H", 11),
        ("9D 9C 8D", 17),
        ("2S 3S 4S", 9),
        ("AD KH QS", 11),
    ],
)
def test_r3_a_hand_is_worth_the_best_sum_of_one_suit(hand: str, expected: int) -> None:
    assert value(hand) == expected


def test_r3_no_hand_is_worth_more_than_31() -> None:
    best = max(
        hand_value((a, b, c), GameOptions(three_of_a_kind=True, straight_flush=True))
        for i, a in enumerate(DECK)
        for j, b in enumerate(DECK[i + 1 :], start=i + 1)
        for c in DECK[j + 1 :]
        if a[-1] == b[-1] == c[-1] or a[:-1] == b[:-1] == c[:-1]
    )
    assert best == 31


@pytest.mark.parametrize(("hand", "plain"), [("7C 7D 7H", 7), ("AC AD AH", 11), ("10C 10D 10S", 10)])
def test_r4_three_of_a_kind_is_worth_30_only_with_the_option(hand: str, plain: int) -> None:
    assert value(hand) == plain
    assert value(hand, three_of_a_kind=True) == 30
    assert value(hand, straight_flush=True) == plain


def test_r4_three_of_a_kind_does_not_lower_a_better_hand_or_count_pairs() -> None:
    assert value("7C 7D 8D", three_of_a_kind=True) == 15


@pytest.mark.parametrize(
    ("hand", "plain", "with_option"),
    [
        ("5H 6H 7H", 18, 30),
        ("2C 3C 4C", 9, 30),
        ("9S 10S JS", 29, 30),
        ("JD QD KD", 30, 30),
        ("QH KH AH", 31, 31),  # A-K-Q of one suit is worth 31
        ("AS 2S 3S", 16, 16),  # Decision: the ace is high only, A-2-3 is no straight
        ("KC AC 2C", 23, 23),  # no wrapping round the ace
        ("5H 6H 8H", 19, 19),  # not consecutive
        ("5H 6D 7H", 12, 12),  # not one suit
    ],
)
def test_r5_a_suited_run_is_worth_30_with_the_option_ace_high_only(hand: str, plain: int, with_option: int) -> None:
    assert value(hand) == plain
    assert value(hand, straight_flush=True) == with_option
    assert value(hand, three_of_a_kind=True) == plain


def test_r5_the_value_does_not_depend_on_the_order_of_the_cards() -> None:
    assert value("7H 5H 6H", straight_flush=True) == 30
    assert value("AH QH KH", straight_flush=True) == 31


def test_r3_without_options_a_hand_is_valued_as_under_the_default_options() -> None:
    hand = cards("7H 5H 6H")
    assert hand_value(hand) == hand_value(hand, GameOptions()) == 18
    assert not GameOptions().values_beyond_suits
    assert GameOptions(three_of_a_kind=True).values_beyond_suits
    assert GameOptions(straight_flush=True).values_beyond_suits


def test_r3_r4_r5_a_hand_is_worth_the_best_of_every_enabled_valuation() -> None:
    assert value("4D 4H 4S", three_of_a_kind=True, straight_flush=True) == 30
    assert value("3D 4D 5D", three_of_a_kind=True, straight_flush=True) == 30
    assert value("AD KD 9C", three_of_a_kind=True, straight_flush=True) == 21


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("AS", "AS"), ("as", "AS"), ("aS", "AS"), ("10h", "10H"), ("10H", "10H"),
        ("TH", "10H"), ("th", "10H"), ("qd", "QD"), ("7c", "7C"), (" 7C ", "7C"),
        ("A♠", "AS"), ("10♥", "10H"), ("T♥", "10H"), ("k♦", "KD"), ("2♣", "2C"),
        ("A♠\ufe0f", "AS"),  # an emoji variation selector after the symbol
    ],
)
def test_cards_are_read_case_insensitively_with_t_for_ten_and_suit_symbols(text: str, card: str) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "A", "S", "1S", "11H", "AX", "ZS", "10", "SA", "A S", "AS,", "0H", "ace"])
def test_anything_that_is_not_a_card_is_refused_with_a_clear_error(text: str) -> None:
    with pytest.raises(BadInput, match="is not a card") as caught:
        parse_card(text)
    assert "AS" in str(caught.value)  # it shows how a card is written
    assert type(caught.value) is BadInput  # exit 2 in the CLI's table (tests/cli/test_error_table.py)


def test_lists_of_cards_are_separated_by_spaces_or_commas() -> None:
    assert parse_cards("AS, 10h KD,qc  T♥") == ["AS", "10H", "KD", "QC", "10H"]
    assert parse_cards("  ") == []
    with pytest.raises(BadInput, match="'XX' is not a card"):
        parse_cards("AS XX KD")


def test_cards_are_written_rank_then_suit_with_optional_symbols() -> None:
    assert format_card("10H") == "10H"
    assert format_card("10H", symbols=True) == "10♥"
    assert format_cards(["AS", "QD", "2C"], symbols=True) == "A♠ Q♦ 2♣"
    assert all(parse_card(format_card(card, symbols=True)) == card for card in DECK)


def test_r1_a_deck_must_hold_each_of_the_52_cards_once() -> None:
    assert parse_deck(" ".join(DECK)) == list(DECK)
    with pytest.raises(BadInput, match="51 given"):
        parse_deck(list(DECK[:-1]))
    with pytest.raises(BadInput, match="given twice: AS; missing: 2C"):
        parse_deck(list(DECK[1:]) + ["AS"])
    with pytest.raises(BadInput, match="is not a card"):
        parse_deck(list(DECK[1:]) + ["1C"])


def test_a_cards_rank_and_suit_are_read_from_its_notation() -> None:
    from scat_core.domain.cards import rank, suit

    assert [(rank(card), suit(card)) for card in ("10H", "AS", "2C", "QD")] == [
        ("10", "H"), ("A", "S"), ("2", "C"), ("Q", "D")
    ]
