"""What a viewer may know of a game: redaction, and the public facts anyone watching knows.

Redaction gives a state and its events as a viewer may know them (the JSON of a view is the
front end's). The public facts (seats, pennies, who is out, the kitty, the hand; R6, R24-R27)
are stated once here, folded from events that may be redacted (no event these rules read
carries a card). The full fold (`evolve`) keeps the same facts; a property test checks they
agree after every event of random games.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal, assert_never

from . import events as ev
from .cards import hand_value
from .shuffle import deal_order, discard_position, receiver
from .state import GameState, Player

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


# The events that change seats, pennies, who is out or the kitty; a deal changes only the
# hand number and the dealer (the last one tells both); every other event changes nothing.
PUBLIC_TYPES: tuple[str, ...] = (
    "GameCreated", "SeatTaken", "GameCancelled", "PennyPaid", "PlayerEliminated", "Resigned", "GameWon",
    "GameAbandoned",
)


@dataclass(frozen=True, slots=True)
class PublicSeat:
    """A player as the public sees him: pennies (R7, R24), out (R25) and resigned (R27)."""

    name: str
    is_bot: bool
    pennies: int
    out: bool = False
    resigned: bool = False
    timed_out: bool = False  # resigned by a claim of his turn out of move time (R28)


@dataclass(frozen=True, slots=True)
class PublicState:
    """What anyone watching the table knows: seats in seat order, pennies, kitty, hand, dealer, winner."""

    game_id: str = ""
    status: Literal["new", "pending", "active", "finished", "cancelled"] = "new"
    seats: tuple[PublicSeat, ...] = ()
    kitty: int = 0
    hand_number: int = 0
    dealer: str | None = None
    winner: str | None = None
    no_dole: bool = False  # R25 option: out with the last penny
    rules_version: int = 2  # R26: in version 2 the winner's final pennies include the kitty

    def index(self, name: str) -> int:
        """The seat number of `name` (case-insensitive)."""
        key = name.casefold()
        return next(index for index, seat in enumerate(self.seats) if seat.name.casefold() == key)

    def seat(self, name: str) -> PublicSeat:
        """The seat of `name` (case-insensitive)."""
        return self.seats[self.index(name)]

    def in_seat_order(self, names: Iterable[str]) -> list[str]:
        """`names` in the order the players sit (the order every list of players is told in)."""
        order = {seat.name.casefold(): index for index, seat in enumerate(self.seats)}
        return sorted(names, key=lambda name: order.get(name.casefold(), len(order)))

    def deal_order(self, dealer: str) -> list[str]:
        """Active players clockwise from the dealer's left, the order cards are dealt (R9)."""
        out = [seat.out for seat in self.seats]
        return [self.seats[index].name for index in deal_order(out, self.index(dealer))]

    def seated(self, seat: PublicSeat) -> tuple[PublicSeat, ...]:
        """The seats with `seat` in place of the one of the same name."""
        at = self.index(seat.name)
        return self.seats[:at] + (seat,) + self.seats[at + 1 :]


def public_evolve(table: PublicState, event: ev.Event) -> PublicState:
    """`table` after `event` (which may be redacted); pure, and `table` itself when nothing public changes."""
    match event:
        case ev.GameCreated():
            lives = event.options.lives  # R7: everyone starts with as many pennies as lives
            seats = tuple(PublicSeat(p.name, p.is_bot, lives) for p in event.players)
            waits = event.open_seats or (event.consent and any(not p.is_bot and p.name != event.creator
                                                               for p in event.players))
            return PublicState(game_id=event.game_id, seats=seats, dealer=event.dealer, no_dole=event.options.no_dole,
                               rules_version=event.rules_version, status="pending" if waits else "new")
        case ev.SeatTaken():  # an open seat taken: he sits after the others, with every player's lives (R7)
            lives = table.seats[0].pennies if table.seats else 0
            return replace(table, seats=(*table.seats, PublicSeat(event.player, False, lives)))
        case ev.GameCancelled():
            return replace(table, status="cancelled")
        case ev.HandDealt():
            dealer = table.seat(event.dealer).name
            return replace(table, status="active", hand_number=event.hand_number, dealer=dealer)
        case ev.PennyPaid():  # R24: a life lost is a penny into the kitty
            seat = table.seat(event.player)
            return replace(table, seats=table.seated(replace(seat, pennies=seat.pennies - 1)), kitty=table.kitty + 1)
        case ev.PlayerEliminated():  # R25
            return replace(table, seats=table.seated(replace(table.seat(event.player), out=True)))
        case ev.Resigned():  # R27: out, his pennies his
            timed_out = event.cause is not None  # R28: out of time, not resigned by choice
            return replace(table, seats=table.seated(replace(table.seat(event.player), out=True, resigned=True,
                                                             timed_out=timed_out)))
        case ev.GameWon():
            if table.rules_version < 2:
                return replace(table, status="finished", winner=event.winner)
            winner = table.seat(event.winner)  # R26 (version 2): the kitty is the winner's
            return replace(table, status="finished", winner=event.winner, kitty=table.kitty - event.kitty,
                           seats=table.seated(replace(winner, pennies=winner.pennies + event.kitty)))
        case ev.GameAbandoned():
            return replace(table, status="finished", winner=None)
        case (
            ev.SeatAccepted() | ev.HandViewed() | ev.StockReshuffled() | ev.CardDrawn() | ev.CardDiscarded()
            | ev.Knocked()
            | ev.ThirtyOneDeclared() | ev.ThrowDownCalled() | ev.StockRanOut() | ev.ShowdownHeld() | ev.MessageSaid()
            | ev.MoveSigned()
        ):
            return table  # seats, pennies and kitty are as they were (lives lost are paid by PennyPaid)
        case _:
            assert_never(event)


def public_of(state: GameState) -> PublicState:
    """The public part of a full game state."""
    return PublicState(
        game_id=state.game_id,
        status=state.status,
        seats=tuple(PublicSeat(p.name, p.is_bot, p.pennies, p.out, p.resigned, p.timed_out) for p in state.players),
        kitty=state.kitty,
        hand_number=state.hand_number,
        dealer=state.name(state.dealer) if state.dealer >= 0 else None,
        winner=state.winner,
        no_dole=state.options.no_dole,
        rules_version=state.rules_version,
    )


def with_public(state: GameState, table: PublicState) -> GameState:
    """`state` with its public part taken from `table` (its cards, options and seats as they were;
    a seat taken since, by `scat join`, added after the others)."""
    players = tuple(
        replace(player, pennies=seat.pennies, out=seat.out, resigned=seat.resigned, timed_out=seat.timed_out)
        for player, seat in zip(state.players, table.seats, strict=False)
    ) + tuple(Player(seat.name, index, seat.is_bot, seat.pennies, seat.out, seat.resigned, seat.timed_out)
              for index, seat in enumerate(table.seats) if index >= len(state.players))
    seats = {player.name.casefold(): player.seat for player in players}
    dealer = -1 if table.dealer is None else seats[table.dealer.casefold()]
    return state.evolved(dict(players=players, seats=seats, kitty=table.kitty, status=table.status,
                              hand_number=table.hand_number, dealer=dealer, winner=table.winner))
