"""Hidden-card checks: which cards a viewer may not know, and whether printed text, views or events name one.

A hidden card is one in another player's hand, in the stock or set aside (R27) that no event
has shown to everyone (a discard, a card taken from the discard pile, a showdown, a declaration).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from scat_core.domain import events as ev
from scat_core.domain.evolve import evolve
from scat_core.domain.state import GameState
from tests.support.cli import Scat
from tests.support.redaction import hidden_from

CARD = re.compile(r"(?<![\w?])(?:10|[2-9JQKA])[CDHS](?![\w?])")


YOU = "you"


def cards_in(text: str) -> set[str]:
    """Every card named in printed `text`."""
    return set(CARD.findall(text))


def hidden_from_you(state: GameState, shown_publicly: Iterable[str] = ()) -> set[str]:
    """Cards in other players' hands, the stock or set aside (R27), except those everyone has been shown."""
    revealed = {card for cards in state.revealed.values() for card in cards}
    return hidden_from(state, state.seat_of(YOU)) - revealed - set(shown_publicly)


def public_cards(event: ev.Event, after: GameState) -> set[str]:
    """The cards an event shows to everyone."""
    if isinstance(event, ev.CardDiscarded) or (isinstance(event, ev.CardDrawn) and event.source == "discard"):
        return {event.card}
    if isinstance(event, ev.ShowdownHeld):
        return {card for cards in event.hands.values() for card in cards}
    if isinstance(event, ev.ThirtyOneDeclared):
        return set(event.hand)
    if isinstance(event, ev.HandDealt):
        return set(after.discard[-1:])
    return set()


def publicly_shown(history: Iterable[ev.Event]) -> set[str]:
    """Every card some event of `history` showed to everyone (`show` tells the moves since yours)."""
    state, shown = GameState(), set()
    for event in history:
        state = evolve(state, event)
        shown |= public_cards(event, state)
    return shown


def check_view(scat: Scat, state: GameState, *args: str, shown: Iterable[str] = ()) -> None:
    """`show`/`replay` output (human and JSON) names no card hidden from you in `state`."""
    forbidden = hidden_from_you(state, shown)
    for extra in ((), ("--json",)):
        result = scat(*args, *extra)
        assert result.exit_code == 0, result.output
        leaked = cards_in(result.stdout) & forbidden
        assert not leaked, f"{' '.join(args)} shows {leaked} at event {state.version}:\n{result.stdout}"


def check_log(scat: Scat, game: str, history: list[ev.Event]) -> None:
    """Each line of `log --as you` names only cards you could see at that event."""
    lines = scat("log", game, "--as", YOU).stdout.splitlines()
    assert len(lines) == len(history)
    state = GameState()
    for line, event in zip(lines, history, strict=True):
        state = evolve(state, event)
        leaked = cards_in(line) & hidden_from_you(state, public_cards(event, state))
        assert not leaked, f"log line shows {leaked}: {line}"
