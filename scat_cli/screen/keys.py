"""The play screen's keys: which the service's moves offer now, and the command each key sends.

Nothing here decides a rule: the keys offered are the moves the service returned with the view
(`Shown.moves`, from the domain's legal moves), and a key pressed for a move not offered is sent
all the same, so the service refuses it naming the rule, as the plain command would.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scat_cli.presenter import viewer_view

if TYPE_CHECKING:
    from scat_core.domain.commands import PlayerCommand
    from scat_core.service.values import Shown

#: The keys of moves, each once: draw from the stock or the discard pile, discard the card at a
#: place in your hand, knock, declare 31, throw down, look (R23), resign (asks first); in a game
#: waiting for its players (R28), accept or decline your seat.
MOVE_KEYS = ("s", "d", "1", "2", "3", "4", "k", "e", "t", "l", "r", "a", "x")
#: The keys of a seat in a game waiting for its players, by the `Games` method each calls.
SEAT_KEYS = {"a": "accept", "x": "decline"}


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
    """The keys of the moves the service offers the viewer now, in the order the hints list them, then resign."""
    hand = hand_of(shown)
    top = shown.state.discard[-1] if shown.state.discard else "?"
    keys: list[Key] = []
    for move in shown.moves:
        if move.name == "look":
            keys.append(Key("l", "look at your hand (R23)"))
        elif move.name == "throw-down":
            keys.append(Key("t", "throw down, unseen (R23)"))
        elif move.name == "declare":
            keys.append(Key("e", "declare 31 (R21)"))
        elif move.name == "draw" and move.argument == "stock":
            keys.append(Key("s", "draw from the stock"))
        elif move.name == "draw":
            keys.append(Key("d", f"take {top} from the discard pile"))
        elif move.name == "knock":
            keys.append(Key("k", "knock"))
        elif move.name == "discard" and move.argument in hand:
            keys.append(Key(str(hand.index(move.argument) + 1), f"discard {move.argument}"))
    seat = shown.state.seat_of(shown.viewer) if shown.viewer else None
    if shown.state.status == "pending" and seat is not None and not shown.state.players[seat].is_bot:
        mine = shown.state.players[seat].name
        if mine in shown.state.awaiting:
            keys.append(Key("a", "accept your seat (R28)"))
        keys.append(Key("x", "withdraw the game" if mine == shown.state.creator else "decline your seat"))
    playing = shown.state.status == "active" and not shown.read_only and shown.viewer is not None
    if playing and [move.name for move in shown.moves] != ["watch"]:  # "watch": he is out
        keys.append(Key("r", "resign (R27)"))
    return keys


def command_for(key: str, shown: Shown) -> PlayerCommand | str:
    """The command `key` sends for the viewer, or why it sends none (a place in the hand holding no card)."""
    from scat_core.domain import commands as cmd

    name = you(shown) or ""
    if key in ("1", "2", "3", "4"):
        hand = hand_of(shown)
        place = int(key)
        if place > len(hand):
            held = f"you hold {len(hand)} cards" if hand else "your hand is not shown"
            return f"no card {place} to discard: {held}"
        return cmd.Discard(name, hand[place - 1])
    made: dict[str, PlayerCommand] = {
        "s": cmd.Draw(name, "stock"), "d": cmd.Draw(name, "discard"), "k": cmd.Knock(name),
        "e": cmd.Declare31(name), "t": cmd.ThrowDown(name), "r": cmd.Resign(name),
    }
    return made[key]
