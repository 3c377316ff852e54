"""Turning command-line words into cards and draw sources (notation of cli.md)."""

from __future__ import annotations

from enum import StrEnum

from scat_core.domain.cards import parse_card, parse_deck


class Source(StrEnum):
    """Where a card is drawn from (R12)."""

    stock = "stock"
    discard = "discard"


def card_argument(text: str) -> str:
    """One card as typed (AS, 10h, td, Q♦); BadInput (exit 2) when it is not a card."""
    return parse_card(text)


def deck_option(text: str | None) -> list[str] | None:
    """The 52 cards of a stacked deck, top first, separated by spaces or commas."""
    return None if text is None else parse_deck(text)
