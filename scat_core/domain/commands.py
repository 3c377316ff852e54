"""Commands: what a player (or the shell, for a new game) asks for, in the imperative.

Each command a player sends has a class-level `verb`, its name everywhere outside the domain: the
CLI command and the `move` of the HTTP body (`POST /games/{id}/moves`, scat_cli/server/move_wire.py).
The body's other fields are the command's own fields, typed as here (a field's Annotated pydantic
metadata checks and normalises it on the wire), and a class-level `rule`, the rule that allows it.
A new move is a class here, in the PlayerCommand union, its refusal in decide.py and its line in
legal.legal_moves (the one list of `LegalMove`s every front end and bot offers or picks from): the
wire, the server's endpoint, the client, the moves a service's answer offers and the signed form
of the move (`move_fields`) follow; the CLI names it in scat_cli/presenter.py.

Which moves a player signs is here too: in a game created with `signed_moves` (a server whose
seats are accounts) every human move is preceded in the log by a MoveSigned event of its player
naming that very move (`move_fields`, the form signed); `signature_problem` is the audit's rule
over the events alone (the signature itself is checked by the archive, which has the keys:
scat_core/records/signing.py). A look at one's hand is not signed, nor are bots' moves
and scat's own claims.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Annotated, ClassVar, Literal, get_args

from pydantic import AfterValidator, StringConstraints

from . import events as ev
from .cards import parse_card
from .events import RULES_VERSION, PlayerSeat, RulesVersion
from .names import NAME_LOOKS
from .options import GameOptions
from .state import GameState


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
    #: How its players' names are told apart (names.look_alike): new games NAME_LOOKS; audits the game's own.
    name_looks: int = NAME_LOOKS


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the top card of the stock or of the discard pile (R12)."""

    verb: ClassVar[str] = "draw"
    rule: ClassVar[str] = "R12"  # the rule that allows it
    player: str
    source: Literal["stock", "discard"]


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card from the hand (R12, R13)."""

    verb: ClassVar[str] = "discard"
    rule: ClassVar[str] = "R12"  # the rule that allows it
    player: str
    #: A card in the CLI's notation, normalised (10H, AS) as it arrives on the wire.
    card: Annotated[str, StringConstraints(max_length=8), AfterValidator(parse_card)]


@dataclass(frozen=True, slots=True)
class Knock:
    """Knock instead of drawing (R14-R16)."""

    verb: ClassVar[str] = "knock"
    rule: ClassVar[str] = "R14"  # the rule that allows it
    player: str


@dataclass(frozen=True, slots=True)
class Declare31:
    """Declare a hand worth 31 (R20-R22)."""

    verb: ClassVar[str] = "declare"
    rule: ClassVar[str] = "R20"  # the rule that allows it
    player: str


@dataclass(frozen=True, slots=True)
class ThrowDown:
    """Call a throw down without having looked at the hand (R23)."""

    verb: ClassVar[str] = "throw-down"
    rule: ClassVar[str] = "R23"  # the rule that allows it
    player: str


@dataclass(frozen=True, slots=True)
class ViewHand:
    """Show a player his own hand (recorded in throw-down games, R23)."""

    verb: ClassVar[str] = "view-hand"
    rule: ClassVar[str] = "R23"  # the rule that allows it
    player: str


@dataclass(frozen=True, slots=True)
class Resign:
    """Leave the game for good, at any time, in turn or not (R27)."""

    verb: ClassVar[str] = "resign"
    rule: ClassVar[str] = "R27"  # the rule that allows it
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
#: Each command a player gives, by its verb.
PLAYER_COMMANDS: dict[str, type[PlayerCommand]] = {kind.verb: kind for kind in get_args(PlayerCommand)}
#: The moves a player sends (a look at his hand, ViewHand, the server records as it shows the
#: hand; a claim of another's turn, ClaimTime, has times the shell decides): each a `verb`.
MOVES: tuple[type[PlayerCommand], ...] = tuple(kind for kind in get_args(PlayerCommand) if kind is not ViewHand)
#: The commands a player gives at a game's table that are no move of play, each a `verb` of the wire.
TABLE_COMMANDS = (Say, AbandonGame, AcceptSeat, DeclineSeat, JoinGame)
TableCommand = Say | AbandonGame | AcceptSeat | DeclineSeat | JoinGame
Command = CreateGame | PlayerCommand | ClaimTime | TableCommand | ExpireInvitations


@dataclass(frozen=True, slots=True)
class LegalMove:
    """One move a player may make now (legal.legal_moves makes them): the command that makes it and
    the rule that allows it. Its kind is the command's class; a front end names each kind once, in
    its own words (the CLI: scat_cli/presenter.py)."""

    command: PlayerCommand
    rule: str

    @classmethod
    def of(cls, command: PlayerCommand) -> LegalMove:
        """`command` as a legal move, under the rule of its kind."""
        return cls(command, command.rule)

    @property
    def kind(self) -> type[PlayerCommand]:
        """The class of its command: what kind of move it is."""
        return type(self.command)

    @property
    def player(self) -> str:
        """Who makes it."""
        return self.command.player

    @property
    def arguments(self) -> tuple[str, ...]:
        """The command's fields but its player, in order: a draw's source, a discard's card."""
        return tuple(str(getattr(self.command, part.name)) for part in fields(self.command) if part.name != "player")

    @property
    def card(self) -> str | None:
        """The card it names (a discard's), or None."""
        card = getattr(self.command, "card", None)
        return card if isinstance(card, str) else None


def move_fields(command: Command) -> dict[str, str] | None:
    """The signed form of a human's command ({"type", "player", ...}: its class's name and its fields,
    e.g. a draw's source, a discard's card); None for one nobody signs."""
    if isinstance(command, ClaimTime):
        return {"type": "ClaimTime", "player": command.claimer} if command.claimer is not None else None
    if isinstance(command, PlayerCommand | TableCommand) and not isinstance(command, ViewHand):
        if command.player is None:  # a local database's owner abandoning a game of bots: nobody signs
            return None
        return {"type": type(command).__name__, **{part.name: getattr(command, part.name) for part in fields(command)}}
    return None


def signer_of(state: GameState, command: Command) -> str | None:
    """The human who must sign `command` in `state` (None: nobody signs it: a look, a bot, scat itself)."""
    move = move_fields(command)
    if move is None or not state.signed_moves:
        return None
    if isinstance(command, JoinGame):  # no seat yet: the account joining signs it
        return command.player
    seat = state.seat_of(move["player"])
    return None if seat is None or state.players[seat].is_bot else state.players[seat].name


def signature_problem(state: GameState, command: Command, signed: ev.MoveSigned | None, seq: int) -> str | None:
    """Why the command whose first event is at `seq` is not signed as it must be (`signed`: the
    MoveSigned just before it, if any), or None when it is (or needs no signature)."""
    signer = signer_of(state, command)
    if signer is None:
        return f"event {seq - 1} signs a move nobody signs here" if signed is not None else None
    if signed is None:
        return f"event {seq} is {signer}'s move without his signature"
    if signed.player.casefold() != signer.casefold() or signed.move != move_fields(command):
        return f"event {seq - 1} signs another move than the one at event {seq}"
    return None
