"""evolve(state, event) -> state: pure, one function per event type; fold is a reduce.

Each handler writes the changes its event makes into the fields of a state nobody else
holds yet: `evolve` copies the state once and applies one event, `fold` copies it once and
applies them all. The state given is never changed, so this is invisible to callers. How a
fresh copy's fields are written is `speed_tricks`' choice (its instance dict, or the public
dataclass API). The
dispatch is a dict keyed by event class: each entry's handler type-checked against its class
by mypy (`_on`), and the keys checked against the `AnyEvent` union at import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableMapping
from typing import Any, TypeVar, get_args

from . import events as ev
from .shuffle import deal, deal_order
from .speed_tricks import fresh_copy, writable_fields
from .state import GameState, Player

Fields = MutableMapping[str, Any]


def _created(state: GameState, s: Fields, event: ev.GameCreated) -> None:
    lives = event.options.lives
    players = tuple(
        Player(seat.name, index, seat.is_bot, lives) for index, seat in enumerate(event.players)
    )
    s["game_id"] = event.game_id
    s["players"] = players
    s["seats"] = {player.name.casefold(): player.seat for player in players}
    s["options"] = event.options
    s["protected"] = event.protected
    s["rules_version"] = event.rules_version
    s["seed_commitment"] = event.seed_commitment
    s["seed_chosen"] = event.seed_chosen
    s["signed_moves"] = event.signed_moves
    s["first_deck_stacked"] = event.first_deck_stacked
    s["signed"] = event.signed
    s["name_looks"] = event.name_looks
    s["dealer"] = next(p.seat for p in players if p.name == event.dealer)
    awaiting = tuple(p.name for p in players if not p.is_bot and p.name != event.creator) if event.consent else ()
    s.update(creator=event.creator, awaiting=awaiting, open_seats=event.open_seats, expires=event.expires,
             rematch_of=event.rematch_of)
    if awaiting or event.open_seats:
        s["status"] = "pending"  # R28: nothing is dealt until every seat is taken and accepted


#: What every deal resets (R9, R10): a new hand starts with nobody having played or looked.
_NEW_HAND: Fields = {
    "status": "active",
    "set_aside": (),
    "phase": "draw",
    "knocker": None,
    "taken_from_discard": None,
    "had_turn": frozenset(),
    "turns": 0,
    "looked": frozenset(),
    "reshuffles": 0,
}


def _dealt(state: GameState, s: Fields, event: ev.HandDealt) -> None:
    dealer = s["seats"][event.dealer.casefold()]
    players = s["players"]
    order = deal_order([player.out for player in players], dealer)
    dealt = deal(event.deck, len(order))  # R9, R10
    hands: list[tuple[str, ...]] = [()] * len(players)
    for seat, hand in zip(order, dealt.hands, strict=True):
        hands[seat] = hand
    s.update(_NEW_HAND)
    s["dealer"] = dealer
    s["hand_number"] = event.hand_number
    s["hands"] = tuple(hands)
    s["discard"] = (dealt.discard,)
    s["stock"] = dealt.stock
    s["turn"] = order[0]


def _with_hand(hands: tuple[tuple[str, ...], ...], seat: int, hand: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    changed = list(hands)
    changed[seat] = hand
    return tuple(changed)


def _look(s: Fields, seat: int) -> None:
    """The player at `seat` has seen his hand (R23)."""
    looked = s["looked"]
    if seat not in looked:
        s["looked"] = looked | {seat}


def _signed(state: GameState, s: Fields, event: ev.MoveSigned | ev.MessageSaid) -> None:
    """A signature changes nothing in the game (the move that follows does), nor does a message."""


def _viewed(state: GameState, s: Fields, event: ev.HandViewed) -> None:
    _look(s, state.seats[event.player.casefold()])


def _reshuffled(state: GameState, s: Fields, event: ev.StockReshuffled) -> None:
    s["stock"] = event.stock
    s["discard"] = s["discard"][-1:]
    s["reshuffles"] += 1


def _drawn(state: GameState, s: Fields, event: ev.CardDrawn) -> None:
    seat = s["seats"][event.player.casefold()]
    card = event.card
    hands = list(s["hands"])
    hands[seat] = (*hands[seat], card)
    s["hands"] = tuple(hands)
    if event.source == "stock":
        s["stock"] = s["stock"][1:]
    else:
        s["discard"] = s["discard"][:-1]
        s["taken_from_discard"] = card
    s["phase"] = "discard"
    _look(s, seat)


def _knocker_reached(state: GameState, seat: int, following: int) -> bool:
    """Whether play passing from `seat` to `following` reaches or passes the knocker's seat (R16).

    The knocker may have resigned since (R27): the final round then ends when it passes his seat.
    """
    knocker = state.knocker
    if knocker is None:
        return False
    count = len(state.players)
    for step in range(1, count + 1):
        candidate = (seat + step) % count
        if candidate == knocker:
            return True
        if candidate == following:
            return False
    return False


def _discarded(state: GameState, s: Fields, event: ev.CardDiscarded) -> None:
    seat = s["seats"][event.player.casefold()]
    card = event.card
    hands = list(s["hands"])
    held = hands[seat]
    at = held.index(card) if card in held else len(held)  # a card is held once (R1)
    following = state.left_of(seat)
    hand_ends = _knocker_reached(state, seat, following)  # R16
    hands[seat] = held[:at] + held[at + 1 :]
    s["hands"] = tuple(hands)
    s["discard"] = (*s["discard"], card)
    s["taken_from_discard"] = None
    had_turn = s["had_turn"]
    if seat not in had_turn:
        s["had_turn"] = had_turn | {seat}
    s["turns"] += 1
    if hand_ends:
        s["phase"], s["turn"] = "settling", None
    else:
        s["phase"], s["turn"] = "draw", following


def _knocked(state: GameState, s: Fields, event: ev.Knocked) -> None:
    seat = s["seats"][event.player.casefold()]
    s["knocker"] = seat
    had_turn = s["had_turn"]
    if seat not in had_turn:
        s["had_turn"] = had_turn | {seat}
    s["turns"] += 1
    _look(s, seat)
    s["turn"] = state.left_of(seat)
    s["phase"] = "draw"


def _declared(state: GameState, s: Fields, event: ev.ThirtyOneDeclared) -> None:
    _look(s, s["seats"][event.player.casefold()])
    s["phase"], s["turn"] = "settling", None
    s["revealed"] = {event.player: event.hand}
    s["revealed_values"] = {event.player: 31}


def _thrown_down(state: GameState, s: Fields, event: ev.ThrowDownCalled) -> None:
    _look(s, s["seats"][event.player.casefold()])
    s["phase"], s["turn"] = "settling", None


def _showdown(state: GameState, s: Fields, event: ev.ShowdownHeld) -> None:
    s["phase"], s["turn"] = "settling", None
    s["revealed"] = dict(event.hands)
    s["revealed_values"] = dict(event.values)


def _with_player(players: tuple[Player, ...], seat: int, **changes: Any) -> tuple[Player, ...]:
    changed = list(players)
    old = players[seat]
    changed[seat] = Player(
        old.name,
        old.seat,
        old.is_bot,
        changes.get("pennies", old.pennies),
        changes.get("out", old.out),
        changes.get("resigned", old.resigned),
        changes.get("timed_out", old.timed_out),
    )
    return tuple(changed)


def _resigned(state: GameState, s: Fields, event: ev.Resigned) -> None:
    seat = s["seats"][event.player.casefold()]
    in_turn = state.turn == seat
    was_active = len(state.active_seats())
    hand, discard = state.hands[seat], state.discard
    taken = state.taken_from_discard if in_turn else None
    if taken is not None:  # mid-turn, the face-up card he took goes back: the pile is never emptied
        hand, discard = tuple(card for card in hand if card != taken), (*discard, taken)
    s["players"] = _with_player(state.players, seat, out=True, resigned=True, timed_out=event.cause is not None)
    s["hands"] = _with_hand(state.hands, seat, ())
    s["discard"] = discard
    s["set_aside"] = state.set_aside + hand  # face down until the next deal (R27)
    if in_turn:  # his turn is skipped: the next active player is to draw
        following = state.left_of(seat)
        hand_ends = len(state.active_seats()) < 2 or _knocker_reached(state, seat, following)
        s["taken_from_discard"] = None
        if hand_ends:
            s["phase"], s["turn"] = "settling", None
        else:
            s["phase"], s["turn"] = "draw", following
    elif was_active == 2:  # one player remains: the game ends (R26)
        s["phase"], s["turn"] = "settling", None


def _paid(state: GameState, s: Fields, event: ev.PennyPaid) -> None:
    seat = s["seats"][event.player.casefold()]
    players = s["players"]
    s["players"] = _with_player(players, seat, pennies=players[seat].pennies - 1)
    s["kitty"] += 1


def _eliminated(state: GameState, s: Fields, event: ev.PlayerEliminated) -> None:
    seat = s["seats"][event.player.casefold()]
    hands = s["hands"]
    s["players"] = _with_player(s["players"], seat, out=True)
    s["hands"] = _with_hand(hands, seat, ())
    s["discard"] = hands[seat] + s["discard"]  # his cards go under the discard pile until the next deal


def _stock_ran_out(state: GameState, s: Fields, event: ev.StockRanOut) -> None:
    """R17b: the dead hand's showdown follows in the same command."""
    s["phase"], s["turn"] = "settling", None


def _seat_accepted(state: GameState, s: Fields, event: ev.SeatAccepted) -> None:
    key = event.player.casefold()
    s["awaiting"] = tuple(name for name in state.awaiting if name.casefold() != key)


def _seat_taken(state: GameState, s: Fields, event: ev.SeatTaken) -> None:
    seat = len(state.players)
    s["players"] = (*state.players, Player(event.player, seat, False, state.options.lives))
    s["seats"] = {**state.seats, event.player.casefold(): seat}
    s["open_seats"] = state.open_seats - 1


def _cancelled(state: GameState, s: Fields, event: ev.GameCancelled) -> None:
    s.update(status="cancelled", phase="finished", turn=None, seed=event.seed, seed_salt=event.seed_salt,
             cancelled=event.reason, awaiting=())


def _abandoned(state: GameState, s: Fields, event: ev.GameAbandoned) -> None:
    s.update(status="finished", phase="finished", turn=None, winner=None, seed=event.seed, seed_salt=event.seed_salt,
             abandoned=True)


def _won(state: GameState, s: Fields, event: ev.GameWon) -> None:
    s.update(status="finished", phase="finished", turn=None, winner=event.winner, seed=event.seed,
             seed_salt=event.seed_salt)
    if state.rules_version >= 2:  # R26 (rules version 2): the winner's final pennies include the kitty
        seat = s["seats"][event.winner.casefold()]
        players = s["players"]
        s["players"] = _with_player(players, seat, pennies=players[seat].pennies + event.kitty)
        s["kitty"] -= event.kitty


E = TypeVar("E")
Handler = Callable[[GameState, Fields, Any], None]


def _on(kind: type[E], handler: Callable[[GameState, Fields, E], None]) -> tuple[type, Handler]:
    """One entry of the dispatch table; mypy checks that `handler` takes a `kind`."""
    return kind, handler


#: The handler of every event type, keyed by the event's class (one dict lookup; an
#: isinstance on a pydantic class goes through its metaclass and costs ten times more).
HANDLERS: dict[type, Handler] = dict(
    [
        _on(ev.GameCreated, _created),
        _on(ev.SeatAccepted, _seat_accepted),
        _on(ev.SeatTaken, _seat_taken),
        _on(ev.GameCancelled, _cancelled),
        _on(ev.HandDealt, _dealt),
        _on(ev.HandViewed, _viewed),
        _on(ev.StockReshuffled, _reshuffled),
        _on(ev.CardDrawn, _drawn),
        _on(ev.CardDiscarded, _discarded),
        _on(ev.Knocked, _knocked),
        _on(ev.ThirtyOneDeclared, _declared),
        _on(ev.ThrowDownCalled, _thrown_down),
        _on(ev.StockRanOut, _stock_ran_out),
        _on(ev.ShowdownHeld, _showdown),
        _on(ev.Resigned, _resigned),
        _on(ev.PennyPaid, _paid),
        _on(ev.PlayerEliminated, _eliminated),
        _on(ev.GameWon, _won),
        _on(ev.GameAbandoned, _abandoned),
        _on(ev.MessageSaid, _signed),
        _on(ev.MoveSigned, _signed),
    ]
)


def event_classes() -> frozenset[type]:
    """Every class of the `events.AnyEvent` union."""
    return frozenset(get_args(ev.AnyEvent))


if frozenset(HANDLERS) != event_classes():  # exhaustive, checked at import (and by a test)
    raise TypeError(f"evolve handles {sorted(c.__name__ for c in HANDLERS)}, not the Event union")


def apply(state: GameState, event: ev.Event) -> None:
    """Apply `event` to `state` IN PLACE: only for a state nobody else holds (a fresh copy)."""
    s = writable_fields(state)
    turn, hand = s["turn"], s["hand_number"]
    HANDLERS[type(event)](state, s, event)
    s["version"] += 1
    if s["turn"] != turn or s["hand_number"] != hand:  # a new turn: its move time starts here (R28)
        s["turn_began"] = s["version"]


def copy_of(state: GameState) -> GameState:
    """A new state equal to `state`, for `apply` to change."""
    return fresh_copy(state)


def evolve(state: GameState, event: ev.Event) -> GameState:
    """The state after `event`; pure, never mutates `state`."""
    new = copy_of(state)
    apply(new, event)
    return new


def fold(events: Iterable[ev.Event], state: GameState | None = None) -> GameState:
    """The state that `events` build, starting from `state` (an empty game by default).

    The same as evolving event by event, without a copy of the state per event: one new
    state is updated in place (nobody else holds it) and returned; `state` is untouched.
    """
    current = copy_of(GameState() if state is None else state)
    for event in events:
        apply(current, event)
    return current
