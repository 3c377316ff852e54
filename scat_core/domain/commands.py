"""Commands: what a player (or the shell, for a new game) asks for, in the imperative."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from .events import RULES_VERSION, PlayerSeat, RulesVersion
from .options import GameOptions


@dataclass(frozen=True, slots=True)
class CreateGame:
    """Create a game and deal its first hand."""

    game_id: str
    players: tuple[PlayerSeat, ...]
    options: GameOptions = field(default_factory=GameOptions)
    dealer: str | None = None
    first_deck: tuple[str, ...] | None = None
    protected: bool = False
    rules_version: RulesVersion = RULES_VERSION  # new games: the current version; audits: the game's own
    #: The seed was given by the creator (--seed): he can know every hand. None only when
    #: re-deciding a game recorded before scat recorded it (GameCreated v3 or older, names not
    #: normalised then).
    seed_chosen: bool | None = False
    #: Its humans are a server's accounts, who sign each of their moves.
    signed_moves: bool = False
    #: Its heads are signed from the first event on (the service's stores all sign): GameCreated.signed.
    signed: bool = False


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the top card of the stock or of the discard pile (R12)."""

    player: str
    source: Literal["stock", "discard"]


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card from the hand (R12, R13)."""

    player: str
    card: str


@dataclass(frozen=True, slots=True)
class Knock:
    """Knock instead of drawing (R14-R16)."""

    player: str


@dataclass(frozen=True, slots=True)
class Declare31:
    """Declare a hand worth 31 (R20-R22)."""

    player: str


@dataclass(frozen=True, slots=True)
class ThrowDown:
    """Call a throw down without having looked at the hand (R23)."""

    player: str


@dataclass(frozen=True, slots=True)
class ViewHand:
    """Show a player his own hand (recorded in throw-down games, R23)."""

    player: str


@dataclass(frozen=True, slots=True)
class Resign:
    """Leave the game for good, at any time, in turn or not (R27)."""

    player: str


@dataclass(frozen=True, slots=True)
class ClaimTime:
    """Claim the turn of the player to act once his move time has run out (R28).

    `claimer` is another player still in the game, or None for the server itself; the times
    are data decided by the shell: `now` (recorded as the claim's time) and when that turn began.
    """

    claimer: str | None
    now: datetime
    turn_began_at: datetime


PlayerCommand = Draw | Discard | Knock | Declare31 | ThrowDown | ViewHand | Resign
Command = CreateGame | PlayerCommand | ClaimTime
