"""The deal (R9, R10), stated once: who is dealt to, and which card of a deck goes where.

A deck is top first. Every active player, clockwise from the dealer's left, is dealt one card
at a time until each holds `HAND_SIZE` (R9); the next card starts the discard pile and the
rest is the stock (R10). `deal` splits a deck so; `stack` is its inverse, the top of a deck
that deals given hands. Evolve, the views, the transcript and the tests all go through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

#: Cards in a hand between turns (R3, R9).
HAND_SIZE: Final = 3


@dataclass(frozen=True, slots=True)
class Deal:
    """A deck dealt: the hands in deal order, the first discard and the stock (top first)."""

    hands: tuple[tuple[str, ...], ...]
    discard: str
    stock: tuple[str, ...]


def deal_order(out: Sequence[bool], dealer: int) -> list[int]:
    """The seats dealt to, in order: the active ones clockwise from the dealer's left (R9, R11).

    `out[seat]` says whether that seat is out of the game; the dealer himself may be (R8).
    """
    count = len(out)
    return [seat for seat in (*range(dealer + 1, count), *range(dealer + 1)) if not out[seat]]


def discard_position(players: int) -> int:
    """The position in the deck of the card that starts the discard pile (R10)."""
    return HAND_SIZE * players


def receiver(position: int, players: int) -> int | None:
    """The index in deal order of the player dealt the deck's card at `position` (None: not dealt)."""
    return position % players if position < HAND_SIZE * players else None


def deal(deck: Sequence[str], players: int) -> Deal:
    """`deck` dealt to `players` players (R9, R10); hidden cards are dealt like any other."""
    dealt = HAND_SIZE * players
    hands = tuple(tuple(deck[index:dealt:players]) for index in range(players))
    return Deal(hands, deck[dealt], tuple(deck[dealt + 1 :]))


def stack(hands: Sequence[Sequence[str]], discard: str, stock: Sequence[str] = ()) -> list[str]:
    """The top of a deck dealing `hands` (in deal order), then `discard`, then `stock` (inverse of `deal`)."""
    if any(len(hand) != HAND_SIZE for hand in hands):
        raise ValueError(f"every hand is {HAND_SIZE} cards")
    return [hand[round_] for round_ in range(HAND_SIZE) for hand in hands] + [discard, *stock]
