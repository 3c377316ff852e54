"""Redaction: a state and its events as a viewer may know them (the JSON of a view is the front end's)."""

from __future__ import annotations

from typing import assert_never

from . import events as ev
from .cards import hand_value
from .deal import discard_position, receiver
from .state import GameState

HIDDEN = "??"


def kept_value(state: GameState, seat: int) -> int:
    """The value of the hand at `seat`; mid-turn, of the best 3 cards he may keep (R3, R13)."""
    hand = state.hands[seat]
    if len(hand) <= 3:
        return hand_value(hand, state.options)  # decide's value_of, without loading the rules' module
    return max(
        hand_value([card for card in hand if card != thrown], state.options)
        for thrown in hand
        if thrown != state.taken_from_discard
    )


def redact(event: ev.Event, before: GameState, viewer: str | None) -> ev.Event:
    """The event as `viewer` (None: the public) could see it while the game runs.

    `before` is the state just before the event. Dealt decks show only the viewer's own cards
    and the discard top; cards drawn from the stock and reshuffled stocks are hidden from all
    but the drawer.
    """
    seat = before.seat_of(viewer) if viewer else None  # `--as " josé "` is José, as everywhere else
    viewer_key = before.players[seat].name.casefold() if seat is not None else viewer.casefold() if viewer else None
    match event:
        case ev.HandDealt():
            return event.model_copy(update={"deck": _visible_deal(event, before, viewer_key)})
        case ev.StockReshuffled():
            return event.model_copy(update={"stock": tuple(HIDDEN for _ in event.stock)})
        case ev.CardDrawn():
            hidden = event.source == "stock" and event.player.casefold() != viewer_key
            return event.model_copy(update={"card": HIDDEN}) if hidden else event
        case (
            ev.GameCreated() | ev.SeatAccepted() | ev.SeatTaken() | ev.GameCancelled() | ev.HandViewed()
            | ev.CardDiscarded() | ev.Knocked() | ev.ThirtyOneDeclared() | ev.ThrowDownCalled() | ev.StockRanOut()
            | ev.ShowdownHeld() | ev.Resigned() | ev.PennyPaid() | ev.PlayerEliminated() | ev.GameWon()
            | ev.GameAbandoned() | ev.MessageSaid() | ev.MoveSigned()
        ):
            return event  # public as recorded (a 31 and a showdown show hands by the rules: R18, R21)
        case _:
            assert_never(event)


def _visible_deal(event: ev.HandDealt, before: GameState, viewer_key: str | None) -> tuple[str, ...]:
    dealer = before.seats[event.dealer.casefold()]
    order = before.play_order(dealer)
    mine = before.seats.get(viewer_key) if viewer_key else None
    players, shown = len(order), []
    for position, card in enumerate(event.deck):  # R9, R10
        to = receiver(position, players)
        visible = (mine is not None and to is not None and order[to] == mine) or position == discard_position(players)
        shown.append(card if visible else HIDDEN)
    return tuple(shown)


def redact_state(state: GameState, viewer: str | None) -> GameState:
    """The state as `viewer` (None: the public) may know it while the game runs; all once over.

    Every card he may not see becomes `HIDDEN` (other hands, his own while face down (R23),
    the stock, the discard pile under its top card, the cards a resigned player set aside
    (R27)); counts stay, so every view and every legal move of the viewer computed from it is
    the same as from the true state, but a move hanging on the worth of his face-down hand
    (`legal.legal_moves(..., as_seen=True)` leaves it out).
    """
    if state.status == "finished":
        return state
    seat = state.seat_of(viewer) if viewer else None

    def shown(index: int, hand: tuple[str, ...]) -> tuple[str, ...]:
        if index == seat and not state.hand_unseen(index):
            return hand
        return tuple(HIDDEN for _ in hand)

    return state.evolved({
        "hands": tuple(shown(index, hand) for index, hand in enumerate(state.hands)),
        "stock": tuple(HIDDEN for _ in state.stock),
        "discard": tuple(HIDDEN for _ in state.discard[:-1]) + state.discard[-1:],
        "set_aside": tuple(HIDDEN for _ in state.set_aside),  # face down until the next deal (R27)
        "seed": None,
        "seed_salt": None,
    })
