"""Cards, their notation and hand values (R1-R5).

A card is its canonical notation string: rank then suit, e.g. "AS", "10H", "QD", "7C".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from .errors import BadInput

if TYPE_CHECKING:  # cards stay importable without pydantic (the CLI's light start-up)
    from .options import GameOptions

SUITS = ("C", "D", "H", "S")
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
#: Each suit's symbol (R1), the one place they are written: parsing and every front end use it.
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_SYMBOL_TO_SUIT = {symbol: suit for suit, symbol in SUIT_SYMBOLS.items()}

#: The 52 cards of one deck (R1), in a fixed order: by suit, then rank.
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
_DECK_SET = frozenset(DECK)

#: Rank order for straights (R5): 2 is 2, ..., J 11, Q 12, K 13, A 14 (ace high only).
RANK_ORDER = {rank: index + 2 for index, rank in enumerate(RANKS)}
#: Points of a rank (R2): ace 11, court cards 10, others their pips.
RANK_POINTS = {rank: (11 if rank == "A" else 10 if rank in "JQK" else int(rank)) for rank in RANKS}

_INFO: dict[str, tuple[str, str, int, int]] = {
    card: (card[:-1], card[-1], RANK_ORDER[card[:-1]], RANK_POINTS[card[:-1]]) for card in DECK
}
_CARD_RE = re.compile(rf"^(10|[2-9]|T|J|Q|K|A)([{''.join(SUITS)}{''.join(SUIT_SYMBOLS.values())}])$")


def rank(card: str) -> str:
    """The rank of a card ("A", "10", ...)."""
    return _INFO[card][0]


def suit(card: str) -> str:
    """The suit letter of a card ("C", "D", "H" or "S")."""
    return _INFO[card][1]


def points(card: str) -> int:
    """The point value of a card (R2)."""
    return _INFO[card][3]


def is_card(text: str) -> bool:
    """Whether `text` is a card in canonical notation."""
    return text in _DECK_SET


def parse_card(text: str) -> str:
    """Parse one card in the CLI notation (case-insensitive, T for 10, suit symbols)."""
    cleaned = text.strip().upper().replace("\ufe0f", "")
    match = _CARD_RE.match(cleaned)
    if not match:
        raise BadInput(f"{text.strip()!r} is not a card: write rank then suit, like AS, 10H, QD or 7C")
    rank_text, suit_text = match.groups()
    return ("10" if rank_text == "T" else rank_text) + _SYMBOL_TO_SUIT.get(suit_text, suit_text)


def parse_cards(text: str) -> list[str]:
    """Parse a list of cards separated by spaces or commas."""
    return [parse_card(part) for part in re.split(r"[\s,]+", text.strip()) if part]


def parse_deck(text: str | Sequence[str]) -> list[str]:
    """Parse a whole deck: exactly the 52 distinct cards, top first (R1, R10)."""
    cards = parse_cards(text) if isinstance(text, str) else [parse_card(c) for c in text]
    validate_deck(cards)
    return cards


def validate_deck(cards: Sequence[str]) -> None:
    """Raise BadInput unless `cards` holds each of the 52 cards exactly once."""
    seen: set[str] = set()
    duplicates = [card for card in cards if card in seen or seen.add(card)]  # type: ignore[func-returns-value]
    missing = [card for card in DECK if card not in seen]
    unknown = [card for card in cards if card not in _DECK_SET]
    if unknown or duplicates or missing or len(cards) != 52:
        parts = []
        if unknown:
            parts.append("not cards: " + " ".join(unknown[:5]))
        if duplicates:
            parts.append("given twice: " + " ".join(duplicates[:5]))
        if missing:
            parts.append("missing: " + " ".join(missing[:5]) + (" ..." if len(missing) > 5 else ""))
        raise BadInput(f"a deck must be the 52 cards once each ({len(cards)} given; {'; '.join(parts)})")


def format_card(card: str, symbols: bool = False) -> str:
    """Format a card, with its suit as a symbol when `symbols` is set."""
    return card[:-1] + SUIT_SYMBOLS[card[-1]] if symbols else card


def format_cards(cards: Iterable[str], symbols: bool = False) -> str:
    """Format cards separated by spaces."""
    return " ".join(format_card(card, symbols) for card in cards)


def hand_value(cards: Sequence[str], options: GameOptions | None = None) -> int:
    """The value of a hand (R3) under a game's `options` (R4, R5 when enabled; default: none)."""
    if options is None:
        return _hand_value(tuple(cards), False, False)
    return _hand_value(tuple(cards), options.three_of_a_kind, options.straight_flush)


@lru_cache(maxsize=1 << 17)
def _hand_value(cards: tuple[str, ...], three_of_a_kind: bool, straight_flush: bool) -> int:
    totals = {"C": 0, "D": 0, "H": 0, "S": 0}
    for card in cards:
        info = _INFO[card]
        totals[info[1]] += info[3]
    best = max(totals.values())
    if len(cards) != 3:
        return best
    if three_of_a_kind and _INFO[cards[0]][0] == _INFO[cards[1]][0] == _INFO[cards[2]][0]:
        best = max(best, 30)
    if straight_flush and _INFO[cards[0]][1] == _INFO[cards[1]][1] == _INFO[cards[2]][1]:
        orders = sorted(_INFO[card][2] for card in cards)
        if orders[1] == orders[0] + 1 and orders[2] == orders[1] + 1:
            best = max(best, 31 if orders[0] == 12 else 30)
    return best
