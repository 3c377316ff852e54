"""The public facts of a game, stated once: seats, pennies, who is out, the kitty, the hand.

What anybody watching the table knows (R6, R24-R27), folded from events that may be
redacted (no event these rules read carries a card). The full fold (`evolve`) keeps the
same facts; a property test checks they agree after every event of random games.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal, assert_never

from . import events as ev
from .deal import deal_order
from .state import GameState, Player

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
