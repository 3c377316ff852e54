"""The play screen's keys: which the service's moves offer now, and the command each key sends.

Nothing here decides a rule: the keys offered are the moves the service returned with the view
(`Shown.moves`, the domain's legal moves), each on its key of scat_cli/presenter.py, and a key
pressed for a move not offered is sent all the same, so the service refuses it naming the rule,
as the plain command would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scat_cli.presenter import MOVE_WORDS, keyed, viewer_view, words_of

if TYPE_CHECKING:
    from scat_core.domain.commands import PlayerCommand
    from scat_core.service.values import Shown

#: The keys of a seat in a game waiting for its players, by the `Games` method each calls.
SEAT_KEYS = {"a": "accept", "x": "decline"}
#: The keys of moves, each once: those of presenter.py (draw from the stock or the discard pile,
#: discard the card at a place in your hand, knock, declare 31, throw down, look, resign, which
#: asks first), then, in a game waiting for its players (R28), accept or decline your seat.
MOVE_KEYS = (*(key.key for words in MOVE_WORDS.values() for key in words.keys), *SEAT_KEYS)


@dataclass(frozen=True)
class Key:
    """One key on the screen and what it does now."""

    key: str
    label: str


def hand_of(shown: Shown) -> list[str]:
    """The viewer's cards as the view shows them (none while face down, R23, or for the public)."""
    hand = viewer_view(shown.state, shown.viewer).get("hand")
    return list(hand) if hand else []


def you(shown: Shown) -> str | None:
    """The viewer's name as seated (the name typed may differ in case), or None for the public."""
    view = viewer_view(shown.state, shown.viewer)
    return str(view["you"]) if view.get("you") else shown.viewer


def offered(shown: Shown) -> list[Key]:
    """The keys of the moves the service offers the viewer now, in the order the hints list them (then
    resign); in a game waiting for its players, those of his seat."""
    hand = hand_of(shown)
    top = shown.state.discard[-1] if shown.state.discard else "?"
    keys: list[Key] = []
    for move in shown.moves:
        key = words_of(move.kind).key_for(move, hand)
        if key is not None:  # None: a card not in the hand shown
            keys.append(Key(key.key, key.label.format(top=top, card=move.card)))
    seat = shown.state.seat_of(shown.viewer) if shown.viewer else None
    if shown.state.status == "pending" and seat is not None and not shown.state.players[seat].is_bot:
        mine = shown.state.players[seat].name
        if mine in shown.state.awaiting:
            keys.append(Key("a", "accept your seat (R28)"))
        keys.append(Key("x", "withdraw the game" if mine == shown.state.creator else "decline your seat"))
    return keys


def command_for(key: str, shown: Shown) -> PlayerCommand | str:
    """The command `key` sends for the viewer, or why it sends none (a place in the hand holding no card)."""
    return command_of_key(key, you(shown) or "", hand_of(shown))


def command_of_key(key: str, name: str, hand: list[str]) -> PlayerCommand | str:
    """The command `key` sends for the player `name` holding `hand` (as shown: none while face down),
    or why it sends none; LookupError for a key of no move."""
    found = keyed(key)
    if found is None:
        raise LookupError(f"no move is on the key {key!r}")
    kind: Any = found[0]  # a kind of command, made from its fields in order: the player, then the arguments
    row = found[1]
    if row.place is None:
        command: PlayerCommand = kind(name, *row.arguments)
        return command
    if row.place > len(hand):
        held = f"you hold {len(hand)} cards" if hand else "your hand is not shown"
        return f"no card {row.place} to discard: {held}"
    placed: PlayerCommand = kind(name, hand[row.place - 1])
    return placed
