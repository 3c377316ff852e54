"""Events: everything that happens in a game, immutable, in the past tense.

Every event has a `type` and a `schema_version`. Stored events are read back through
`from_record`, which upcasts an old schema version to the current one (never rewriting the
stored row).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Final, Literal, TypeAlias, get_args

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from .options import GameOptions
from .shuffle import ALGORITHM as SHUFFLE_ALGORITHM

#: The rules version new games are created under (rules.md: "rules versions"); 1, 2 or 3.
RULES_VERSION: Final = 3
RulesVersion = Literal[1, 2, 3]


class EventBase(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class PlayerSeat(BaseModel):
    """A player as seated when the game was created (R6)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str
    is_bot: bool = False


class GameCreated(EventBase):
    """A game was created: seats, options, rules version, first dealer and the commitment to the seed."""

    type: Literal["GameCreated"] = "GameCreated"
    schema_version: Literal[6] = 6
    game_id: str
    players: tuple[PlayerSeat, ...]
    options: GameOptions
    dealer: str
    dealer_drawn: bool
    seed_commitment: str
    shuffle: str = SHUFFLE_ALGORITHM
    protected: bool = False
    first_deck_stacked: bool = False
    rules_version: RulesVersion = RULES_VERSION
    #: The creator chose the seed (--seed), so he could know every deal; None: not recorded (v3 and before).
    seed_chosen: bool | None = False
    #: Its humans are a server's accounts: each of their moves is signed by its player's key (v4 and before: False).
    signed_moves: bool = False
    #: Made by a scat that signs every head of the game from this first event on (docs/audit.md: "What an
    #: audit proves"): a head without a signature is then damage, not an older unsigned game.
    #: Left out of the record when False, so the games made before it hash and audit as before.
    signed: bool = False
    #: Who created it (on a server, the account that did; None: not recorded, v5 and before, or local).
    creator: str | None = None
    #: Its humans but the creator must accept their seats before the first deal (R28: a server's games).
    consent: bool = False
    #: Seats any account may take (`scat join`), filled in the order joined after the named players.
    open_seats: int = 0
    #: Seconds an invitation stays open: unanswered by then, the game is cancelled (None: no consent asked).
    expires: int | None = None
    #: The finished game this one is the rematch of (`scat rematch`), or None.
    rematch_of: str | None = None
    #: How its players' names are told apart (names.look_alike): 1 by scat's own skeleton (the games
    #: made before it, which leave it out of the record), 2 by Unicode's confusables as well.
    name_looks: int = 1

    @model_serializer(mode="wrap")
    def _without_signed_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
        """`signed` is recorded only when true, `name_looks` only when not 1 (games made before them
        serialize as they did)."""
        data = handler(self)
        if isinstance(data, dict) and data.get("signed") is False:
            del data["signed"]
        if isinstance(data, dict) and data.get("name_looks") == 1:
            del data["name_looks"]
        return data


class SeatAccepted(EventBase):
    """A seated human accepted his seat in a game that waits for its players (R28)."""

    type: Literal["SeatAccepted"] = "SeatAccepted"
    schema_version: Literal[1] = 1
    player: str


class SeatTaken(EventBase):
    """Someone took an open seat of a waiting game (joining is accepting): he sits after the others."""

    type: Literal["SeatTaken"] = "SeatTaken"
    schema_version: Literal[1] = 1
    player: str


class GameCancelled(EventBase):
    """A game that waited for its players ended before its first deal: a seated human declined, its
    creator withdrew it, or its invitations expired (`by` None). No winner; counted by nothing; its
    seed is revealed, as at every end."""

    type: Literal["GameCancelled"] = "GameCancelled"
    schema_version: Literal[1] = 1
    by: str | None
    reason: Literal["declined", "withdrawn", "expired"]
    seed: str
    seed_salt: str


class HandDealt(EventBase):
    """A hand was dealt from `deck` (top first): R8-R10, replayable without any RNG."""

    type: Literal["HandDealt"] = "HandDealt"
    schema_version: Literal[1] = 1
    hand_number: int
    dealer: str
    deck: tuple[str, ...]
    stacked: bool = False


class HandViewed(EventBase):
    """A player was shown his own hand (recorded in throw-down games, R23)."""

    type: Literal["HandViewed"] = "HandViewed"
    schema_version: Literal[1] = 1
    player: str


class StockReshuffled(EventBase):
    """The discard pile but its top card became the new stock, in this order (R17)."""

    type: Literal["StockReshuffled"] = "StockReshuffled"
    schema_version: Literal[1] = 1
    stock: tuple[str, ...]


class CardDrawn(EventBase):
    """A player drew a card from the stock or the discard pile (R12)."""

    type: Literal["CardDrawn"] = "CardDrawn"
    schema_version: Literal[1] = 1
    player: str
    source: Literal["stock", "discard"]
    card: str


class CardDiscarded(EventBase):
    """A player discarded a card onto the discard pile (R12, R13)."""

    type: Literal["CardDiscarded"] = "CardDiscarded"
    schema_version: Literal[1] = 1
    player: str
    card: str


class Knocked(EventBase):
    """A player knocked (R14-R16)."""

    type: Literal["Knocked"] = "Knocked"
    schema_version: Literal[1] = 1
    player: str


class ThirtyOneDeclared(EventBase):
    """A player declared 31 and showed his hand (R20-R22)."""

    type: Literal["ThirtyOneDeclared"] = "ThirtyOneDeclared"
    schema_version: Literal[1] = 1
    player: str
    hand: tuple[str, ...]


class ThrowDownCalled(EventBase):
    """A player who had not looked at his hand called a throw down (R23)."""

    type: Literal["ThrowDownCalled"] = "ThrowDownCalled"
    schema_version: Literal[1] = 1
    player: str


class StockRanOut(EventBase):
    """The last card of the hand's third stock was drawn and that turn is over: the hand is dead
    and ends in a showdown (R17b, rules version 3)."""

    type: Literal["StockRanOut"] = "StockRanOut"
    schema_version: Literal[1] = 1


class ShowdownHeld(EventBase):
    """Every active hand was revealed and valued; the lowest lose lives (R18, R19).

    `caller`: who knocked or threw down, or None for a dead hand nobody knocked in (R17b, rules
    version 3; a showdown of an older game always names its caller, and records as it did).
    """

    type: Literal["ShowdownHeld"] = "ShowdownHeld"
    schema_version: Literal[1] = 1
    caller: str | None
    hands: dict[str, tuple[str, ...]]
    values: dict[str, int]
    lives_lost: dict[str, int]


class Resigned(EventBase):
    """A player resigned (R27), or was resigned when his move time ran out (R28): out at once, cards set aside."""

    type: Literal["Resigned"] = "Resigned"
    schema_version: Literal[1] = 1
    player: str
    #: Why, when he did not resign himself: "move time" (R28, claimed). None: he resigned (R27).
    cause: Literal["move time"] | None = None
    #: Who claimed his turn (R28): a player's name, or None for the server (or no claim).
    claimed_by: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _cause_absent_is_none(cls, data: Any) -> Any:
        """A record without a cause (every resignation before R28) reads with every field set, as decide makes it."""
        if isinstance(data, dict) and ("cause" not in data or "claimed_by" not in data):
            return {"cause": None, "claimed_by": None, **data}
        return data

    @model_serializer(mode="wrap")
    def _without_unset_cause(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A plain resignation serializes (and hashes) exactly as before R28."""
        data = handler(self)
        if isinstance(data, dict) and data.get("cause", "") is None:
            del data["cause"], data["claimed_by"]
        return data


class PennyPaid(EventBase):
    """A player lost a life and paid one penny into the kitty (R24)."""

    type: Literal["PennyPaid"] = "PennyPaid"
    schema_version: Literal[1] = 1
    player: str


class PlayerEliminated(EventBase):
    """A player had to lose a life on the dole (or paid his last with no-dole) and is out (R25)."""

    type: Literal["PlayerEliminated"] = "PlayerEliminated"
    schema_version: Literal[1] = 1
    player: str


class GameWon(EventBase):
    """One player remains: he wins and takes the kitty; the seed is revealed (R26)."""

    type: Literal["GameWon"] = "GameWon"
    schema_version: Literal[1] = 1
    winner: str
    kitty: int
    seed: str
    seed_salt: str


class GameAbandoned(EventBase):
    """The game was given up without a winner (valid in every rules version): by `by`, the one
    human still in it, or by the owner of a local database when no human is (None). The seed is
    revealed, as at a win, so every deal can be checked."""

    type: Literal["GameAbandoned"] = "GameAbandoned"
    schema_version: Literal[1] = 1
    by: str | None
    seed: str
    seed_salt: str


class MessageSaid(EventBase):
    """A player of the game said one line to the table: not a move (no turn, no clock), and
    possible at any time, out of the game or after it ended."""

    type: Literal["MessageSaid"] = "MessageSaid"
    schema_version: Literal[1] = 1
    player: str
    text: str


class MoveSigned(EventBase):
    """The player signed the move whose events follow (a server whose seats are accounts): the
    move, the position he saw it at (`at_seq` and its tag, `at_tag`), his key and his Ed25519 signature
    (scat_core/records/signing.py says what is signed). It changes nothing in the game."""

    type: Literal["MoveSigned"] = "MoveSigned"
    schema_version: Literal[1] = 1
    player: str
    move: dict[str, str]
    at_seq: int
    at_tag: str
    key_id: str
    public_key: str
    signature: str


#: Every event type: the one list. A new type added here makes mypy name each place that must
#: handle it (`match` with `assert_never`: redact, describe, the audit's command mapping); evolve's
#: dispatch table is checked against it at import.
AnyEvent: TypeAlias = (
    GameCreated
    | SeatAccepted
    | SeatTaken
    | GameCancelled
    | HandDealt
    | HandViewed
    | StockReshuffled
    | CardDrawn
    | CardDiscarded
    | Knocked
    | ThirtyOneDeclared
    | ThrowDownCalled
    | StockRanOut
    | ShowdownHeld
    | Resigned
    | PennyPaid
    | PlayerEliminated
    | GameWon
    | GameAbandoned
    | MessageSaid
    | MoveSigned
)
#: The events that end a game and reveal its seed: the last of a finished game's log but for talk.
ENDINGS = (GameWon, GameAbandoned, GameCancelled)
#: What may follow the end of a game: a message and its signature (talk changes nothing in a game).
TALK = (MessageSaid, MoveSigned)


def ending_of(events: Sequence[AnyEvent]) -> GameWon | GameAbandoned | GameCancelled | None:
    """The event that ended the game of `events` (its last but for the talk after it), or None if it runs."""
    for event in reversed(events):
        if isinstance(event, ENDINGS):
            return event
        if not isinstance(event, TALK):
            return None
    return None
Event = Annotated[AnyEvent, Field(discriminator="type")]
#: Type name -> event class, derived from the union.
EVENT_TYPES: dict[str, type[AnyEvent]] = {cls.model_fields["type"].default: cls for cls in get_args(AnyEvent)}

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
#: (type, from_version) -> function turning that version's data into the next version's.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    """Register a function that upcasts `event_type` data from `from_version` to the next."""

    def register(function: Upcaster) -> Upcaster:
        UPCASTERS[(event_type, from_version)] = function
        return function

    return register


@upcaster("GameCreated", 1)
def _game_created_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """v1 predates the named shuffle algorithm (it used the first, the current one) and protected games."""
    return {**data, "shuffle": data.get("shuffle", SHUFFLE_ALGORITHM), "protected": False, "first_deck_stacked": False}


@upcaster("GameCreated", 2)
def _game_created_v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """v2 predates rules versions: every game it recorded was played under rules version 1."""
    return {**data, "rules_version": 1}


@upcaster("GameCreated", 3)
def _game_created_v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """v3 did not record whether the creator chose the seed: unknown (None)."""
    return {**data, "seed_chosen": None}


@upcaster("GameCreated", 4)
def _game_created_v4_to_v5(data: dict[str, Any]) -> dict[str, Any]:
    """v4 predates accounts: no game it recorded had signed moves."""
    return {**data, "signed_moves": False}


@upcaster("GameCreated", 5)
def _game_created_v5_to_v6(data: dict[str, Any]) -> dict[str, Any]:
    """v5 predates invitations: every game it recorded was dealt at once, by nobody recorded."""
    return {**data, "creator": None, "consent": False, "open_seats": 0, "expires": None, "rematch_of": None}


def current_version(event_type: str) -> int:
    """The schema version this code writes for `event_type`."""
    return int(EVENT_TYPES[event_type].model_fields["schema_version"].default)


def to_record(event: BaseModel) -> tuple[str, int, dict[str, Any]]:
    """Split an event into (type, schema_version, data) for storage."""
    data = event.model_dump(mode="json", exclude={"type", "schema_version"})
    return event.type, event.schema_version, data  # type: ignore[attr-defined]


def from_record(event_type: str, schema_version: int, data: dict[str, Any]) -> Event:
    """Rebuild an event from storage, upcasting old schema versions to the current one."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")
    target = current_version(event_type)
    if schema_version > target:
        raise ValueError(f"{event_type} v{schema_version} is newer than this program (v{target})")
    while schema_version < target:
        step = UPCASTERS.get((event_type, schema_version))
        if step is None:
            raise ValueError(f"no upcaster for {event_type} v{schema_version}")
        data = step(data)
        schema_version += 1
    return EVENT_TYPES[event_type].model_validate({**data, "type": event_type, "schema_version": schema_version})
