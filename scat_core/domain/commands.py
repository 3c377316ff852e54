"""Commands: what a player (or the shell, for a new game) asks for, in the imperative.

Each command a player sends has a class-level `verb`, its name everywhere outside the domain: the
CLI command and the `move` of the HTTP body (`POST /games/{id}/moves`, scat_cli/server/move_wire.py).
The body's other fields are the command's own fields, typed as here (a field's Annotated pydantic
metadata checks and normalises it on the wire), so a new move is a class here, in the
PlayerCommand union, and its rule in decide.py (listed by legal.legal_moves): the wire, the
server's endpoint, the client and the signed form of the move (signed_moves.move_fields) follow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import AfterValidator, StringConstraints

from .cards import parse_card
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
    #: Who creates it (a server's account; his seat is accepted by creating it), or None.
    creator: str | None = None
    #: Its other humans must accept their seats first (R28: a server's games); nothing is dealt before.
    consent: bool = False
    #: Seats any account may take (`scat join`) before the first deal.
    open_seats: int = 0
    #: Seconds its invitations stay open (None with consent: INVITATION_DAYS days).
    expires: int | None = None
    #: The finished game this one is the rematch of.
    rematch_of: str | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the top card of the stock or of the discard pile (R12)."""

    verb: ClassVar[str] = "draw"
    player: str
    source: Literal["stock", "discard"]


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card from the hand (R12, R13)."""

    verb: ClassVar[str] = "discard"
    player: str
    #: A card in the CLI's notation, normalised (10H, AS) as it arrives on the wire.
    card: Annotated[str, StringConstraints(max_length=8), AfterValidator(parse_card)]


@dataclass(frozen=True, slots=True)
class Knock:
    """Knock instead of drawing (R14-R16)."""

    verb: ClassVar[str] = "knock"
    player: str


@dataclass(frozen=True, slots=True)
class Declare31:
    """Declare a hand worth 31 (R20-R22)."""

    verb: ClassVar[str] = "declare"
    player: str


@dataclass(frozen=True, slots=True)
class ThrowDown:
    """Call a throw down without having looked at the hand (R23)."""

    verb: ClassVar[str] = "throw-down"
    player: str


@dataclass(frozen=True, slots=True)
class ViewHand:
    """Show a player his own hand (recorded in throw-down games, R23)."""

    verb: ClassVar[str] = "view-hand"
    player: str


@dataclass(frozen=True, slots=True)
class Resign:
    """Leave the game for good, at any time, in turn or not (R27)."""

    verb: ClassVar[str] = "resign"
    player: str


@dataclass(frozen=True, slots=True)
class ClaimTime:
    """Claim the turn of the player to act once his move time has run out (R28).

    `claimer` is another player still in the game, or None for the server itself; the times
    are data decided by the shell: `now` (recorded as the claim's time) and when that turn began.
    """

    verb: ClassVar[str] = "claim"

    claimer: str | None
    now: datetime
    turn_began_at: datetime


@dataclass(frozen=True, slots=True)
class AbandonGame:
    """Give the game up without a winner, in any rules version: `player`, a human of the game when
    no other human is still in it (the bots he plays with cannot end it for him), or None, the
    owner of a local database, when no human is still in it (a bots-only game)."""

    verb: ClassVar[str] = "abandon"
    player: str | None


@dataclass(frozen=True, slots=True)
class Say:
    """Say one line to the table: a player of the game (also one out of it, and after its end), up to
    MAX_MESSAGE characters of printable text. Not a move: no turn, no clock."""

    verb: ClassVar[str] = "say"
    player: str
    text: str


@dataclass(frozen=True, slots=True)
class AcceptSeat:
    """Accept one's seat in a game that waits for its players (R28); the last acceptance deals."""

    verb: ClassVar[str] = "accept"
    player: str


@dataclass(frozen=True, slots=True)
class DeclineSeat:
    """Decline one's seat, or, for its creator, withdraw the game: either way it is cancelled."""

    verb: ClassVar[str] = "decline"
    player: str


@dataclass(frozen=True, slots=True)
class JoinGame:
    """Take the first open seat of a game that waits for its players (joining is accepting)."""

    verb: ClassVar[str] = "join"
    player: str


@dataclass(frozen=True, slots=True)
class ExpireInvitations:
    """Cancel a game whose invitations were not all answered in time: `now` and when it was created
    are data the shell decides (as a claim's times, R28)."""

    now: datetime
    created_at: datetime


PlayerCommand = Draw | Discard | Knock | Declare31 | ThrowDown | ViewHand | Resign
#: The moves a player sends (a look at his hand, ViewHand, the server records as it shows the
#: hand; a claim of another's turn, ClaimTime, has times the shell decides): each a `verb`.
MOVES: tuple[type[PlayerCommand], ...] = tuple(kind for kind in get_args(PlayerCommand) if kind is not ViewHand)
#: The commands a player gives at a game's table that are no move of play, each a `verb` of the wire.
TABLE_COMMANDS = (Say, AbandonGame, AcceptSeat, DeclineSeat, JoinGame)
TableCommand = Say | AbandonGame | AcceptSeat | DeclineSeat | JoinGame
Command = CreateGame | PlayerCommand | ClaimTime | TableCommand | ExpireInvitations
