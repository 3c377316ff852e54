"""evolve(state, event) -> state: pure, one function per event type; fold is a reduce."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from . import events as ev
from .deal import deal
from .state import GameState, Player

Changes = dict[str, Any]


def _created(state: GameState, event: ev.GameCreated) -> Changes:
    players = tuple(
        Player(name=seat.name, seat=index, is_bot=seat.is_bot, pennies=event.options.lives)
        for index, seat in enumerate(event.players)
    )
    return dict(
        game_id=event.game_id,
        players=players,
        seats={player.name.casefold(): player.seat for player in players},
        options=event.options,
        protected=event.protected,
        rules_version=event.rules_version,
        seed_commitment=event.seed_commitment,
        seed_chosen=event.seed_chosen,
        first_deck_stacked=event.first_deck_stacked,
        dealer=next(p.seat for p in players if p.name == event.dealer),
    )


def _dealt(state: GameState, event: ev.HandDealt) -> Changes:
    dealer = state.seats[event.dealer.casefold()]
    order = state.play_order(dealer)
    dealt = deal(event.deck, len(order))  # R9, R10
    hands: list[tuple[str, ...]] = [() for _ in state.players]
    for seat, hand in zip(order, dealt.hands, strict=True):
        hands[seat] = hand
    return dict(
        status="active",
        dealer=dealer,
        hand_number=event.hand_number,
        hands=tuple(hands),
        discard=(dealt.discard,),
        stock=dealt.stock,
        set_aside=(),
        phase="draw",
        turn=order[0],
        knocker=None,
        taken_from_discard=None,
        had_turn=frozenset(),
        turns=0,
        looked=frozenset(),
        reshuffles=0,
    )


def _with_hand(state: GameState, seat: int, hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    return state.hands[:seat] + (hand,) + state.hands[seat + 1 :]


def _viewed(state: GameState, event: ev.HandViewed) -> Changes:
    return dict(looked=state.looked | {state.seats[event.player.casefold()]})


def _reshuffled(state: GameState, event: ev.StockReshuffled) -> Changes:
    return dict(stock=event.stock, discard=state.discard[-1:], reshuffles=state.reshuffles + 1)


def _drawn(state: GameState, event: ev.CardDrawn) -> Changes:
    seat = state.seats[event.player.casefold()]
    hands = _with_hand(state, seat, state.hands[seat] + (event.card,))
    looked = state.looked | {seat}
    if event.source == "stock":
        return dict(hands=hands, stock=state.stock[1:], phase="discard", looked=looked)
    return dict(
        hands=hands,
        discard=state.discard[:-1],
        phase="discard",
        looked=looked,
        taken_from_discard=event.card,
    )


def _knocker_reached(state: GameState, seat: int, following: int) -> bool:
    """Whether play passing from `seat` to `following` reaches or passes the knocker's seat (R16).

    The knocker may have resigned since (R27): the final round then ends when it passes his seat.
    """
    if state.knocker is None:
        return False
    count = len(state.players)
    for step in range(1, count + 1):
        candidate = (seat + step) % count
        if candidate == state.knocker:
            return True
        if candidate == following:
            return False
    return False


def _discarded(state: GameState, event: ev.CardDiscarded) -> Changes:
    seat = state.seats[event.player.casefold()]
    held = state.hands[seat]
    at = held.index(event.card) if event.card in held else len(held)  # a card is held once (R1)
    hand = held[:at] + held[at + 1 :]
    following = state.left_of(seat)
    hand_ends = _knocker_reached(state, seat, following)  # R16
    return dict(
        hands=_with_hand(state, seat, hand),
        discard=state.discard + (event.card,),
        taken_from_discard=None,
        had_turn=state.had_turn | {seat},
        turns=state.turns + 1,
        phase="settling" if hand_ends else "draw",
        turn=None if hand_ends else following,
    )


def _knocked(state: GameState, event: ev.Knocked) -> Changes:
    seat = state.seats[event.player.casefold()]
    return dict(
        knocker=seat,
        had_turn=state.had_turn | {seat},
        turns=state.turns + 1,
        looked=state.looked | {seat},
        turn=state.left_of(seat),
        phase="draw",
    )


def _declared(state: GameState, event: ev.ThirtyOneDeclared) -> Changes:
    seat = state.seats[event.player.casefold()]
    return dict(
        phase="settling",
        turn=None,
        looked=state.looked | {seat},
        revealed={event.player: event.hand},
        revealed_values={event.player: 31},
    )


def _thrown_down(state: GameState, event: ev.ThrowDownCalled) -> Changes:
    seat = state.seats[event.player.casefold()]
    return dict(phase="settling", turn=None, looked=state.looked | {seat})


def _showdown(state: GameState, event: ev.ShowdownHeld) -> Changes:
    return dict(phase="settling", turn=None, revealed=dict(event.hands), revealed_values=dict(event.values))


def _resigned(state: GameState, event: ev.Resigned) -> Changes:
    seat = state.seats[event.player.casefold()]
    players = list(state.players)
    players[seat] = replace(players[seat], out=True, resigned=True)
    hand, discard = state.hands[seat], state.discard
    taken = state.taken_from_discard if state.turn == seat else None
    if taken is not None:  # mid-turn, the face-up card he took goes back: the pile is never emptied
        hand, discard = tuple(card for card in hand if card != taken), discard + (taken,)
    changes: Changes = dict(
        players=tuple(players),
        hands=_with_hand(state, seat, ()),
        discard=discard,
        set_aside=state.set_aside + hand,  # face down until the next deal (R27)
    )
    if state.turn == seat:  # his turn is skipped: the next active player is to draw
        after = state.evolved(changes)
        following = after.left_of(seat)
        hand_ends = len(after.active_seats()) < 2 or _knocker_reached(after, seat, following)
        changes.update(
            taken_from_discard=None,
            phase="settling" if hand_ends else "draw",
            turn=None if hand_ends else following,
        )
    elif len(state.active_seats()) == 2:  # one player remains: the game ends (R26)
        changes.update(phase="settling", turn=None)
    return changes


def _paid(state: GameState, event: ev.PennyPaid) -> Changes:
    seat = state.seats[event.player.casefold()]
    players = list(state.players)
    players[seat] = replace(players[seat], pennies=players[seat].pennies - 1)
    return dict(players=tuple(players), kitty=state.kitty + 1)


def _eliminated(state: GameState, event: ev.PlayerEliminated) -> Changes:
    seat = state.seats[event.player.casefold()]
    players = list(state.players)
    players[seat] = replace(players[seat], out=True)
    # An eliminated player's cards go under the discard pile until the next deal.
    return dict(
        players=tuple(players),
        hands=_with_hand(state, seat, ()),
        discard=state.hands[seat] + state.discard,
    )


def _won(state: GameState, event: ev.GameWon) -> Changes:
    changes: Changes = dict(
        status="finished", phase="finished", turn=None, winner=event.winner, seed=event.seed,
        seed_salt=event.seed_salt,
    )
    if state.rules_version >= 2:  # R26 (rules version 2): the winner's final pennies include the kitty
        seat = state.seats[event.winner.casefold()]
        players = list(state.players)
        players[seat] = replace(players[seat], pennies=players[seat].pennies + event.kitty)
        changes.update(players=tuple(players), kitty=state.kitty - event.kitty)
    return changes


_HANDLERS: dict[str, Callable[[GameState, Any], Changes]] = {
    "GameCreated": _created,
    "HandDealt": _dealt,
    "HandViewed": _viewed,
    "StockReshuffled": _reshuffled,
    "CardDrawn": _drawn,
    "CardDiscarded": _discarded,
    "Knocked": _knocked,
    "ThirtyOneDeclared": _declared,
    "ThrowDownCalled": _thrown_down,
    "ShowdownHeld": _showdown,
    "Resigned": _resigned,
    "PennyPaid": _paid,
    "PlayerEliminated": _eliminated,
    "GameWon": _won,
}


def evolve(state: GameState, event: ev.Event) -> GameState:
    """The state after `event`; pure, never mutates `state`."""
    changes = _HANDLERS[event.type](state, event)
    changes["version"] = state.version + 1
    return state.evolved(changes)


def fold(events: Iterable[ev.Event], state: GameState | None = None) -> GameState:
    """The state that `events` build, starting from `state` (an empty game by default).

    The same as evolving event by event, without a copy of the state per event: one new
    state is updated in place (nobody else holds it) and returned; `state` is untouched.
    """
    current = object.__new__(GameState)
    fields = current.__dict__
    fields.update((GameState() if state is None else state).__dict__)
    handlers = _HANDLERS
    for event in events:
        fields.update(handlers[event.type](current, event))
        fields["version"] += 1
    return current
