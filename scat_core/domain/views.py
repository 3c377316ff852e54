"""Projections of a game: the public view and a player's own view, and event redaction."""

from __future__ import annotations

from typing import Any, assert_never

from . import events as ev
from .cards import hand_value
from .deal import discard_position, receiver
from .decide import value_of
from .state import GameState

HIDDEN = "??"


def public_view(state: GameState) -> dict[str, Any]:
    """What everybody may see: the contract's fields of `scat show --json`."""
    finished = state.status == "finished"
    view: dict[str, Any] = {
        "game_id": state.game_id,
        "status": "finished" if finished else "active",
        "hand_number": state.hand_number,
        "dealer": state.name(state.dealer) if state.dealer >= 0 else None,
        "turn": state.name(state.turn),
        # The contract's three phases; `stage` also tells a replay stopped before the first
        # deal ("new") or inside the settling of a hand ("settling"), where nobody is to act.
        "phase": state.phase if state.phase in ("discard", "finished") else "draw",
        "stage": state.phase,
        "knocked_by": state.name(state.knocker),
        "discard_top": state.discard[-1] if state.discard else None,
        "stock_count": len(state.stock),
        "set_aside_count": len(state.set_aside),  # a resigned player's cards, face down (R27)
        "kitty": state.kitty,
        "rules_version": state.rules_version,
        "winner": state.winner,
        "last_seq": state.version,
        "options": state.options.model_dump(),
        "players": [
            {
                "name": player.name,
                "seat": player.seat + 1,  # counted from 1, as the seats are shown
                "pennies": player.pennies,
                "on_dole": player.on_dole,
                "out": player.out,
                "resigned": player.resigned,
                "is_bot": player.is_bot,
                "cards": len(state.hands[player.seat]) if state.hands else 0,
            }
            for player in state.players
        ],
        # #14 item 4: chance chosen by the creator, who could then know every hand (None: not recorded).
        "seed_chosen": state.seed_chosen,
        "first_deck_stacked": state.first_deck_stacked,
        "revealed": {name: list(cards) for name, cards in state.revealed.items()},
        "revealed_values": dict(state.revealed_values),
    }
    if finished:
        view["hands"] = {p.name: list(state.hands[p.seat]) for p in state.players if state.hands}
        view["seed"] = state.seed
    return view


def kept_value(state: GameState, seat: int) -> int:
    """The value of the hand at `seat`; mid-turn, of the best 3 cards he may keep (R3, R13)."""
    hand = state.hands[seat]
    if len(hand) <= 3:
        return value_of(state, seat)
    return max(
        hand_value([card for card in hand if card != thrown], state.options)
        for thrown in hand
        if thrown != state.taken_from_discard
    )


def player_view(state: GameState, name: str) -> dict[str, Any]:
    """The public view plus the player's own hand and its value, once he has looked (R23)."""
    view = public_view(state)
    seat = state.seat_of(name)
    if seat is None or not state.hands:
        return view
    view["you"] = state.players[seat].name
    if state.hand_unseen(seat):
        view["hand_hidden"] = True  # face down until looked at, which is recorded
        return view
    view["hand"] = list(state.hands[seat])
    view["hand_value"] = kept_value(state, seat) if state.hands[seat] else None
    view["taken_from_discard"] = state.taken_from_discard if state.turn == seat else None
    return view


def redact(event: ev.Event, before: GameState, viewer: str | None) -> ev.Event:
    """The event as `viewer` (None: the public) could see it while the game runs.

    `before` is the state just before the event. Dealt decks show only the viewer's own cards
    and the discard top; cards drawn from the stock and reshuffled stocks are hidden from all
    but the drawer.
    """
    viewer_key = viewer.casefold() if viewer else None
    match event:
        case ev.HandDealt():
            return event.model_copy(update={"deck": _visible_deal(event, before, viewer_key)})
        case ev.StockReshuffled():
            return event.model_copy(update={"stock": tuple(HIDDEN for _ in event.stock)})
        case ev.CardDrawn():
            hidden = event.source == "stock" and event.player.casefold() != viewer_key
            return event.model_copy(update={"card": HIDDEN}) if hidden else event
        case (
            ev.GameCreated() | ev.HandViewed() | ev.CardDiscarded() | ev.Knocked() | ev.ThirtyOneDeclared()
            | ev.ThrowDownCalled() | ev.ShowdownHeld() | ev.Resigned() | ev.PennyPaid() | ev.PlayerEliminated()
            | ev.GameWon()
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
    the stock, the discard pile under its top card); counts stay, so every view and every
    legal move of the viewer computed from it is the same as from the true state.
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
        "seed": None,
        "seed_salt": None,
    })
