"""Redaction checks on domain states and events: no viewer is shown a card he may not know (no CLI involved)."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from scat_core.domain import events as ev
from scat_core.domain.state import GameState
from scat_core.domain.views import redact, redact_state

CARD_STRING = re.compile(r'"(10[CDHS]|[2-9JQKA][CDHS])"')


def cards_named(value: Any) -> set[str]:
    """Every card named anywhere in a view or an event: any JSON string, key or value, that
    is exactly a card."""
    text = value.model_dump_json() if isinstance(value, BaseModel) else json.dumps(value)
    return set(CARD_STRING.findall(text))


def hidden_from(state: GameState, seat: int | None) -> set[str]:
    """The cards `seat` (None: the public) may not know: the stock, the others' hands, the cards set aside."""
    hidden = set(state.stock) | set(state.set_aside)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(hand)
    return hidden


def check_views(state: GameState, last_reveal: dict[str, Any]) -> None:
    """No state redacted for a viewer shows a hidden card; what is revealed is the last showdown or declaration.

    (The JSON views are built from these redacted states: tests/cli/test_view_json.py.)
    """
    if state.status == "finished":
        return
    viewers: list[str | None] = [None, *[player.name for player in state.players]]
    for viewer in viewers:
        seat = None if viewer is None else state.seat_of(viewer)
        seen = redact_state(state, viewer)
        assert {name: list(hand) for name, hand in seen.revealed.items()} == last_reveal.get("hands", {})
        assert seen.revealed_values == last_reveal.get("values", {})
        shown = {card for hand in seen.hands for card in hand} | {*seen.stock, *seen.discard, *seen.set_aside}
        leaked = shown & hidden_from(state, seat)
        assert not leaked, f"{viewer or 'the public'} sees {sorted(leaked)}"


def check_redaction(event: ev.Event, before: GameState, after: GameState) -> None:
    """A redacted event shows nobody a card he may not know (reveals are the rules' own)."""
    if isinstance(event, (ev.ShowdownHeld, ev.ThirtyOneDeclared)):
        return  # R18, R21: the hands are shown to everybody
    public = redact(event, before, None)
    viewers = [None] if public is event else [None, *[player.name for player in before.players]]
    for viewer in viewers:  # an event shown unredacted to the public is shown so to all
        seat = None if viewer is None else before.seat_of(viewer)
        shown = cards_named(redact(event, before, viewer))
        if isinstance(event, ev.CardDrawn) and event.source == "discard":
            shown.discard(event.card)  # it was the face-up discard top
        leaked = shown & hidden_from(after, seat)
        assert not leaked, f"{type(event).__name__} shows {viewer or 'the public'} {sorted(leaked)}"
