"""Stacked decks: a deck is the 52 cards, top first, dealing the hands wanted.

The layout (R9, R10) is the domain's own (`shuffle.stack`): `stacked_deck` builds such a deck from
the hands wanted, in deal order; `stacked` is the same deck as `scat new --deck` takes it.
"""

from __future__ import annotations

from collections.abc import Sequence

from scat_core.domain import shuffle
from scat_core.domain.cards import DECK, parse_cards


def cards(text: str | Sequence[str]) -> tuple[str, ...]:
    """Cards from "AS KS QS" (any CLI notation) or an already-split sequence."""
    return tuple(parse_cards(text) if isinstance(text, str) else parse_cards(" ".join(text)))


def deal_order(names: Sequence[str], dealer: str) -> list[str]:
    """The players in deal order: clockwise starting left of the dealer (R9, R11)."""
    return [names[seat] for seat in shuffle.deal_order([False] * len(names), list(names).index(dealer))]


def stacked_deck(
    hands: Sequence[str | Sequence[str]], discard: str | None = None, stock: str | Sequence[str] = ()
) -> tuple[str, ...]:
    """A 52-card deck, top first, dealing `hands` (in deal order), then `discard`, then `stock`.

    The cards not named follow in the fixed order of `cards.DECK` (the discard top too, when
    it is not named: the first card of that order not named elsewhere).
    """
    parsed = [cards(hand) for hand in hands]
    stock_cards = cards(stock)
    if discard is None:
        named = {card for hand in parsed for card in hand} | set(stock_cards)
        discard = next(card for card in DECK if card not in named)
    top = shuffle.stack(parsed, cards(discard)[0], stock_cards)
    assert len(set(top)) == len(top), f"a card is named twice: {top}"
    return tuple(top) + tuple(card for card in DECK if card not in top)


def stacked(hands: Sequence[Sequence[str]], discard: str, stock: Sequence[str] = ()) -> str:
    """`stacked_deck` as the text `scat new --deck` takes: `hands[i]` are the 3 cards of the
    i-th player dealt to (from the dealer's left, R9), then the first discard, then `stock`."""
    return " ".join(stacked_deck(hands, discard, stock))
