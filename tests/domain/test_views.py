"""Views: a player sees his own hand, the discard top and counts; never others' cards or the stock."""

from __future__ import annotations

from scat_core.domain import events as ev
from scat_core.domain.commands import Discard, Draw, Knock
from scat_core.domain.evolve import fold
from scat_core.domain.views import HIDDEN, redact
from tests.support.domain import CHANCE, create, play, take_turn

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C
HANDS = {"A": "AS KS 4S", "B": "KH QH 2C", "C": "10D 2S 3C"}


def game() -> list[ev.Event]:
    return create(ABC, dealer="C", hands=HANDS, discard="9H", stock="5H 6H 7H")


def test_a_dealt_deck_shows_a_player_only_his_own_cards_and_the_discard_top() -> None:
    history = game()
    before, deal = fold(history[:1]), history[1]
    assert isinstance(deal, ev.HandDealt)
    mine = redact(deal, before, "a")
    assert isinstance(mine, ev.HandDealt)
    assert [card for card in mine.deck if card != HIDDEN] == ["AS", "KS", "4S", "9H"]
    assert mine.deck[0] == "AS" and mine.deck[9] == "9H" and len(mine.deck) == 52
    public = redact(deal, before, None)
    assert isinstance(public, ev.HandDealt)
    assert [card for card in public.deck if card != HIDDEN] == ["9H"]


def test_a_later_deal_skips_players_who_are_out_when_hiding_cards() -> None:
    history = create(ABC, dealer="C", hands={"A": "10S 2H 3D", "B": "KH QH 2C", "C": "KD QD 2S"}, lives=1)
    history = play(history, Knock("A"))
    history = take_turn(history)
    history = play(history, Draw("C", "stock"))
    history = play(history, Discard("C", fold(history).hands[2][-1]))  # A alone lowest: out (R19b, R25)
    at = max(i for i, e in enumerate(history) if isinstance(e, ev.HandDealt))
    before, deal = fold(history[:at]), history[at]
    assert before.players[0].out and isinstance(deal, ev.HandDealt) and deal.dealer == "B"
    deck = CHANCE.deck(2)
    for viewer, visible in (("B", [deck[1], deck[3], deck[5], deck[6]]), ("A", [deck[6]])):
        shown = redact(deal, before, viewer)
        assert isinstance(shown, ev.HandDealt)
        assert [card for card in shown.deck if card != HIDDEN] == visible


def test_cards_drawn_from_the_stock_are_hidden_from_all_but_the_drawer() -> None:
    history = play(game(), Draw("A", "stock"))
    before, drawn = fold(history[:-1]), history[-1]
    assert redact(drawn, before, "A") == drawn
    assert redact(drawn, before, "b") == ev.CardDrawn(player="A", source="stock", card=HIDDEN)
    assert redact(drawn, before, None) == ev.CardDrawn(player="A", source="stock", card=HIDDEN)


def test_cards_taken_from_the_discard_pile_and_discards_are_public() -> None:
    history = play(game(), Draw("A", "discard"), Discard("A", "4S"))
    for event in history[-2:]:
        assert redact(event, fold(history[: history.index(event)]), None) == event


def test_r17_a_reshuffled_stock_is_hidden_from_everybody() -> None:
    event = ev.StockReshuffled(stock=("2C", "3C", "4C"))
    for viewer in ("A", None):
        assert redact(event, fold(game()), viewer) == ev.StockReshuffled(stock=(HIDDEN, HIDDEN, HIDDEN))


