"""The state of a game: an immutable value, only ever the fold of its events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .cards import DECK
from .names import normalize_name
from .options import GameOptions
from .shuffle import deal_order
from .speed_tricks import replaced

Phase = Literal["new", "draw", "discard", "settling", "finished"]
OutReason = Literal["lives", "resigned", "out_of_time"]
#: R17b (rules version 3): a hand's stock may be rebuilt this many times (R17); its third stock is its last.
STOCK_REBUILDS = 2


@dataclass(frozen=True, slots=True)
class Player:
    """A seated player and his pennies (R6, R7, R25)."""

    name: str
    seat: int
    is_bot: bool
    pennies: int
    out: bool = False
    resigned: bool = False  # out by resigning (R27), or resigned by a claim (R28), not by losing his lives (R25)
    timed_out: bool = False  # resigned by a claim of his turn out of move time (R28), not by choice

    @property
    def out_reason(self) -> OutReason | None:
        """Why the player is out: his lives (R25), resigned (R27), or out of move time (R28); None: in."""
        if not self.out:
            return None
        return "out_of_time" if self.timed_out else "resigned" if self.resigned else "lives"

    @property
    def on_dole(self) -> bool:
        """Whether the player has no pennies left but plays on (R25)."""
        return self.pennies == 0 and not self.out


@dataclass(frozen=True)
class GameState:
    """Everything known about a game after some events; hands by seat, stock top first."""

    game_id: str = ""
    status: Literal["new", "pending", "active", "finished", "cancelled"] = "new"
    players: tuple[Player, ...] = ()
    seats: dict[str, int] = field(default_factory=dict)  # casefolded name -> seat
    options: GameOptions = field(default_factory=GameOptions)
    protected: bool = False
    rules_version: int = 3  # the rules version the game was created under (rules.md)
    seed_commitment: str = ""
    seed_chosen: bool | None = False  # the creator chose the seed (--seed); None: not recorded
    signed_moves: bool = False  # the humans are a server's accounts, who sign their moves
    first_deck_stacked: bool = False  # hand 1 came from a deck given at creation (--deck)
    signed: bool = False  # every head is signed from the first event on (GameCreated.signed)
    name_looks: int = 1  # how its players' names are told apart (GameCreated.name_looks)
    dealer: int = -1
    hand_number: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    stock: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()  # bottom first: the top card is the last
    set_aside: tuple[str, ...] = ()  # resigned players' cards, face down until the next deal (R27)
    phase: Phase = "new"
    turn: int | None = None
    knocker: int | None = None
    taken_from_discard: str | None = None  # R13: the card drawn from the discard pile this turn
    had_turn: frozenset[int] = frozenset()  # R15b
    turns: int = 0  # turns completed in this hand (a knock is a turn)
    looked: frozenset[int] = frozenset()  # R23
    reshuffles: int = 0  # R17, in this hand
    revealed: dict[str, tuple[str, ...]] = field(default_factory=dict)  # last showdown or 31
    revealed_values: dict[str, int] = field(default_factory=dict)
    kitty: int = 0
    winner: str | None = None
    abandoned: bool = False  # finished without a winner (GameAbandoned)
    creator: str | None = None  # who created it (a server's account), if recorded
    awaiting: tuple[str, ...] = ()  # the seated humans who have not accepted yet (a pending game, R28)
    open_seats: int = 0  # seats not taken yet (a pending game)
    expires: int | None = None  # seconds its invitations stay open
    rematch_of: str | None = None  # the game this one is the rematch of
    cancelled: str | None = None  # why it was cancelled: "declined", "withdrawn" or "expired"
    seed: str | None = None
    seed_salt: str | None = None
    version: int = 0  # how many events made this state
    turn_began: int = 0  # the seq of the event that made it the player to act's turn (R28)

    def evolved(self, changes: dict[str, object]) -> GameState:
        """A copy with `changes` applied (a fast `dataclasses.replace`; self is untouched)."""
        return replaced(self, changes)

    def seat_of(self, name: str) -> int | None:
        """The seat of the player called `name` (case-insensitive, and as normalised by `new`), or None."""
        seat = self.seats.get(name.casefold())
        if seat is None and name:  # `--as " ａnn"` names ann, as `new --player " ａnn"` made her
            seat = self.seats.get(normalize_name(name).casefold())
        return seat

    def active_seats(self) -> list[int]:
        """The seats of players still in the game, in seat order."""
        return [player.seat for player in self.players if not player.out]

    def left_of(self, seat: int) -> int:
        """The next active player clockwise after `seat`, which may itself be out (R6, R8)."""
        count = len(self.players)
        for step in range(1, count + 1):
            candidate = (seat + step) % count
            if not self.players[candidate].out:
                return candidate
        raise ValueError("no active player")

    def play_order(self, dealer: int | None = None) -> list[int]:
        """Active seats clockwise from the left of `dealer` (default: this hand's): R9, R11."""
        return deal_order([player.out for player in self.players], self.dealer if dealer is None else dealer)

    def right_of(self, seat: int) -> int:
        """The previous active player counter-clockwise before `seat` (R6)."""
        count = len(self.players)
        for step in range(1, count + 1):
            candidate = (seat - step) % count
            if not self.players[candidate].out:
                return candidate
        raise ValueError("no active player")

    def name(self, seat: int | None) -> str | None:
        """The name of the player at `seat`, or None."""
        return None if seat is None else self.players[seat].name

    def hand_unseen(self, seat: int) -> bool:
        """Whether the player at `seat` has not yet looked at this hand in a throw-down game (R23)."""
        return self.options.throw_down and self.in_hand and seat not in self.looked

    def waits_for(self, player: str) -> bool:
        """Whether the game waits for `player`: he is to act, or is invited to accept his seat (R28);
        or it is over or cancelled (nothing more to wait for). What `scat wait` waits for."""
        seat = self.seat_of(player)
        if self.status == "pending":
            return seat is not None and self.players[seat].name in self.awaiting
        return self.status in ("finished", "cancelled") or (self.in_hand and seat is not None and self.turn == seat)

    def draws_before_dead_hand(self) -> int | None:
        """How many more cards can be drawn from the stock before the hand is dead (R17b: its third
        stock, the dealt one and two rebuilt from the discard pile, runs out), as the cards lie now;
        None in games of rules versions 1 and 2 (their hands have no such end) and between hands.

        A rebuilt stock is the discard pile but its top card (R17): every card not held, set aside or
        on top; mid-turn, the fourth card held goes back to the pile first.
        """
        if self.rules_version < 3 or not self.in_hand:
            return None
        held = sum(len(hand) for hand in self.hands) - (1 if self.phase == "discard" else 0)
        rebuilt = max(0, len(DECK) - held - len(self.set_aside) - 1)
        return len(self.stock) + max(0, STOCK_REBUILDS - self.reshuffles) * rebuilt

    @property
    def in_hand(self) -> bool:
        """Whether a hand is being played (someone is to draw or discard)."""
        return self.phase in ("draw", "discard")
