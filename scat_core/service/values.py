"""What the game service's use cases return to a front end: plain typed values a JSON API sends as they are.

Every state and event in them is already redacted for the viewer they were asked for
(scat_core.domain.views.redact_state / redact): a front end never holds a card its user may
not see. The HTTP backend returns these models, and its client validates them back. What
happened hand by hand, and a finished game's result, are values too, made here by pure
functions over (seq, event) pairs (`hand_outcomes`, `game_result`) that read only what the rules
reveal (names, numbers, the cards of showdowns and declarations), so redacted events will do;
the words are the front end's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from functools import cache, cached_property
from typing import TYPE_CHECKING, Annotated, Any, Literal, assert_never

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapSerializer,
    WrapValidator,
)

from scat_core.domain import events as ev
from scat_core.domain.audit_report import AuditReport
from scat_core.domain.commands import PLAYER_COMMANDS, LegalMove, PlayerCommand
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState

if TYPE_CHECKING:
    from scat_core.records.stored_log import StoredEvent


#: Told (games done, games in all) as `audit_all` and `export_all` go.
Progress = Callable[[int, int], None]

if TYPE_CHECKING:  # (only `SeenEvent.of` names it: a client, which never stores, does not import it)
    from scat_core.records.stored_log import StoredEvent


class _Value(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)  # each built on first use: a command pays for its own


class SeenEvent(_Value):
    """One stored event as its viewer may see it; the hashes only where they betray no card."""

    game_id: str
    seq: int
    type: str
    schema_version: int
    recorded_at: str
    data: dict[str, Any]
    prev_hash: str = ""
    hash: str = ""

    @classmethod
    def of(cls, stored: StoredEvent, event: ev.Event, hashes: bool = False) -> SeenEvent:
        """`stored` as shown by `event` (possibly redacted); its hashes only with `hashes`."""
        _, _, data = ev.to_record(event)
        return cls(game_id=stored.game_id, seq=stored.seq, type=stored.type, schema_version=stored.schema_version,
                   recorded_at=stored.recorded_at, data=data, prev_hash=stored.prev_hash if hashes else "",
                   hash=stored.hash if hashes else "")

    @cached_property
    def event(self) -> ev.Event:
        """The (possibly redacted) domain event."""
        return ev.from_record(self.type, self.schema_version, self.data)


def _move_sent(move: LegalMove) -> dict[str, Any]:
    """A legal move as sent: the body of `POST /games/{id}/moves` that makes it (its command's verb as
    `move`, then the command's fields) and the rule that allows it."""
    return {"move": move.kind.verb, **{part.name: getattr(move.command, part.name) for part in fields(move.command)},
            "rule": move.rule}


def _move_read(data: Any) -> LegalMove:
    """A legal move as received (see `_move_sent`), its command's fields checked as its class types them."""
    if isinstance(data, LegalMove):
        return data
    kind = PLAYER_COMMANDS.get(str(data.get("move"))) if isinstance(data, dict) else None
    if kind is None or not isinstance(data.get("rule", ""), str):
        raise ValueError("not a move: expected an object naming a player's command as `move`")
    command = _command_adapter(kind.verb).validate_python({part.name: data.get(part.name) for part in fields(kind)})
    return LegalMove(command, data.get("rule", kind.rule))


@cache
def _command_adapter(verb: str) -> TypeAdapter[PlayerCommand]:
    """What checks the fields of the command `verb` (built on first use, once)."""
    return TypeAdapter(PLAYER_COMMANDS[verb])


#: A move the viewer may make now (the domain's legal moves, e.g. draw stock or discard 7C), as sent.
Move = Annotated[LegalMove, PlainValidator(_move_read), PlainSerializer(_move_sent), WithJsonSchema({
    "type": "object", "title": "Move", "required": ["move", "player", "rule"],
    "description": "A move the viewer may make now: the body of `POST /games/{id}/moves` that makes it "
                   "(`move`, the command, and its fields) and the rule that allows it.",
    "properties": {"move": {"type": "string", "enum": list(PLAYER_COMMANDS)}, "player": {"type": "string"},
                   "rule": {"type": "string"}},
    "additionalProperties": True,  # the command's other fields (a draw's `source`, a discard's `card`)
})]


def _seats_moved(state: dict[str, Any], by: int) -> dict[str, Any]:
    """A game state's JSON object with its seat numbers moved by `by`: each player's `seat`, `seats`,
    `dealer`, `turn`, `knocker`, `had_turn` and `looked` (`hands` stays a list in seat order)."""
    def seat(value: Any) -> Any:
        return value + by if isinstance(value, int) and not isinstance(value, bool) else value

    moved = dict(state)
    if isinstance(moved.get("players"), list):
        moved["players"] = [{**player, "seat": seat(player["seat"])} if isinstance(player, dict) and "seat" in player
                            else player for player in moved["players"]]
    if isinstance(moved.get("seats"), dict):
        moved["seats"] = {name: seat(number) for name, number in moved["seats"].items()}
    for key in ("dealer", "turn", "knocker"):
        if key in moved:
            moved[key] = seat(moved[key])
    for key in ("had_turn", "looked"):
        if isinstance(moved.get(key), list):
            moved[key] = [seat(number) for number in moved[key]]
    return moved


def _state_sent(state: GameState, dump: SerializerFunctionWrapHandler) -> Any:
    """A game state as JSON: its seats counted from 1, as people count them (no dealer yet: 0)."""
    return _seats_moved(dump(state), 1)


def _state_read(data: Any, load: ValidatorFunctionWrapHandler) -> GameState:
    """A game state from JSON (see `_state_sent`), its seats counted from 0 again, as the domain counts them."""
    return load(_seats_moved(data, -1) if isinstance(data, dict) else data)


#: A game state in a value: seats count from 0 inside (the domain's), from 1 on the wire and in any
#: JSON dump (`model_dump(mode="json")`, `model_dump_json`): the one place the numbering changes.
WireState = Annotated[GameState, WrapSerializer(_state_sent, when_used="json"), WrapValidator(_state_read)]


class Position(_Value):
    """Where a running game stands: its last event's seq and position tag (what a player signs his
    move at; the tag hides the event's hash, which would betray a hidden card: records/signing.py)."""

    game_id: str
    seq: int
    tag: str


class Played(_Value):
    """What a command (`new`, a move) did, for its viewer: the state before and after, the
    events appended as he saw them, the result if it ended the game, and his moves now."""

    game_id: str
    viewer: str | None
    state: WireState
    before: WireState
    events: list[SeenEvent]
    tokens: dict[str, str] = Field(default_factory=dict)  # a new protected game's tokens, shown once
    result: GameResult | None = None
    moves: list[Move] = Field(default_factory=list)
    bots_interrupted: str | None = None  # why the bots' later moves could not be saved (the next command plays them)
    bots_owe: bool = False  # the bots played as many moves as one command may and play on at the next
    position: Position | None = None  # where the game now stands, if its moves are signed: the next move's to sign


class News(_Value):
    """What a player has not seen himself: the events since his last action, redacted for him."""

    state: WireState  # the game now
    before: WireState  # the game just before the first of `events`: its public parts only (no cards)
    events: list[SeenEvent]


class Shown(_Value):
    """`scat show`: the game as its viewer may know it, his news, the result once over, his moves."""

    game_id: str
    viewer: str | None
    state: WireState
    read_only: bool  # imported running, without its secret seed: shown, never played here
    news: News | None = None
    result: GameResult | None = None
    moves: list[Move] = Field(default_factory=list)
    move_deadline: str | None = None  # when the player to act runs out of move time (R28); None without one
    move_time_left: int | None = None  # seconds left then, rounded up: 0 once out of time (any other may claim)
    messages: list[SeenEvent] = Field(default_factory=list)  # the last few said at the table, oldest first


class Waited(_Value):
    """`scat wait`: the game as `show` gives it once the player's turn came, or when the wait timed out."""

    shown: Shown
    timed_out: bool


class Told(_Value):
    """What `wait --any` has told a player already, so that a loop of them tells each thing once:
    the turns (game -> the seq that began it), the games whose end was told, and the recorded time
    from which a game's end is news."""

    since: str
    turns: dict[str, int] = Field(default_factory=dict)
    ended: list[str] = Field(default_factory=list)


class WaitedAny(_Value):
    """`scat wait --any`: the first game that waits for the player (or ended), as `show` gives
    it to him, or None when the wait timed out; and `told` with it added."""

    shown: Shown | None
    told: Told

    @property
    def timed_out(self) -> bool:
        """Whether the wait ran out before any game waited for the player."""
        return self.shown is None


class History(_Value):
    """`scat log` / `scat replay`: the state at the end and each event as the viewer may see it."""

    game_id: str
    viewer: str | None
    state: WireState
    events: list[SeenEvent]
    read_only: bool = False
    moves: list[Move] = Field(default_factory=list)


class Listing(_Value):
    """One row of the games list, with whether it is read-only here and chose its chance (#14 item 4)."""

    game_id: str
    status: str
    players: list[str]
    bots: list[str]
    turn: str | None  # None for a read-only game: it waits for nobody here
    hand_number: int
    dealer: str | None
    created_at: str
    last_activity: str
    winner: str | None
    head_seq: int
    protected: bool
    read_only: bool
    seed_chosen: bool
    first_deck_stacked: bool
    move_deadline: str | None = None  # as in Shown (R28); a pending game's: when its invitations expire
    move_time_left: int | None = None
    awaiting: list[str] = Field(default_factory=list)  # a pending game's humans who have not accepted (R28)
    open_seats: int = 0  # its seats any account may take
    options: list[str] = Field(default_factory=list)  # its options as `new` spells them (the lobby's)
    ratings: dict[str, float] = Field(default_factory=dict)  # the lobby's: the rating of each who sits


class Dashboard(_Value):
    """`scat status`: what waits for a player, in four lists of his games (see `GameService.status`)."""

    player: str
    your_turn: list[Listing]  # longest waiting first
    invitations: list[Listing]  # pending games awaiting his acceptance (R28)
    waiting: list[Listing]  # waiting for others: their turn, or their acceptance
    finished: list[Listing]  # ended in the last 7 days (cancelled ones too), newest first


class Rating(_Value):
    """One player's rating (records/stats.py): the ordinal shown, the model's mu and sigma, his games."""

    name: str
    is_bot: bool
    rating: float
    mu: float
    sigma: float
    games: int


class Ratings(_Value):
    """`scat ratings`: every rated player, highest rating first."""

    players: list[Rating]


class GamesPage(_Value):
    """`scat games`: the newest games listed (at most the limit asked) and how many there are in all."""

    games: list[Listing]
    total: int  # every game the filters match, the page's included (counted up to answers.COUNTED)
    total_at_least: bool = False  # the count stopped at `total`: there are at least that many
    next: str | None = None  # the cursor of the next page (`after`), when there may be one


class Export(_Value):
    """A game's full stored history, one record per event (the last carries its head's signature)."""

    game_id: str
    records: list[dict[str, Any]]
    running: bool  # still running: the records show every hidden card


class SigningKey(_Value):
    """The public half of the key that signs this service's game heads (`scat key show`; a server's `GET /key`)."""

    algorithm: Literal["ed25519"] = "ed25519"
    key_id: str
    public_key: str


SkipReason = Literal["invalid id", "running", "running and protected", "history damaged"]


class Skipped(_Value):
    """A game `export --all` leaves out, and why (`detail`: what was damaged)."""

    game_id: str
    reason: SkipReason
    detail: str = ""


class Exports(_Value):
    """`export --all`: every game exported or skipped, in the order of the games list; or one page
    of them, `total` games in all, `next` the cursor of the next page (None: the last page)."""

    items: list[Export | Skipped]
    total: int | None = None
    next: str | None = None


class Audits(_Value):
    """`audit --all`: every game's verdict, oldest first; or one page of them, `total` games in all,
    `next` the cursor of the next page (None: the last page)."""

    reports: list[AuditReport]
    total: int | None = None
    next: str | None = None

    @property
    def ok(self) -> bool:
        """Whether every game passed."""
        return all(report.ok for report in self.reports)


#: The actions a player takes himself (looking at his hand is not one).
ACTIONS = (ev.CardDrawn, ev.CardDiscarded, ev.Knocked, ev.ThirtyOneDeclared, ev.ThrowDownCalled, ev.Resigned)

EndedBy = Literal["showdown", "dead_hand", "declaration", "throw_down", "resignation", "abandoned"]


@dataclass
class HandOutcome:
    """One hand (or the part of it given): who played, how it ended, who lost what."""

    number: int
    dealer: str
    first_seq: int
    last_seq: int
    turns: int = 0  # draws and knocks
    knocked_by: str | None = None
    ended_by: EndedBy | None = None  # None: the hand is still being played
    by: str | None = None  # the declarer, the caller of the throw down, or the knocker at a showdown (or dead hand)
    values: dict[str, int] = field(default_factory=dict)  # at the showdown, or the declarer's 31
    lives_lost: dict[str, int] = field(default_factory=dict)
    out: list[str] = field(default_factory=list)  # eliminated at the end of this hand (R25)
    resigned: list[str] = field(default_factory=list)  # R27, by choice
    out_of_time: list[str] = field(default_factory=list)  # R28: resigned by a claim of his turn


@dataclass(frozen=True)
class Standing:
    """A player's place at the end: the winner first, then by how long he stayed in."""

    place: int
    name: str
    is_bot: bool
    pennies: int
    winner: bool
    out_in_hand: int | None  # the hand he went out in (None: never out)
    resigned: bool
    out_of_time: bool = False  # resigned by a claim of his turn out of move time (R28), not by choice


@dataclass(frozen=True)
class GameResult:
    """A finished game: every hand's outcome, the standings, how long it took, the winner (R26)."""

    game_id: str
    rules_version: int
    winner: str | None  # None: the game was abandoned (GameAbandoned)
    winner_pennies: int  # rules version 2: his own and the kitty (R26)
    kitty: int  # the kitty the winner took
    hands_played: int
    started_at: str
    ended_at: str
    duration_seconds: int
    hands: list[HandOutcome]
    standings: list[Standing]
    seats: list[str]  # the players in seat order


def hand_outcomes(events: Sequence[tuple[int, ev.Event]], hand: int = 0, dealer: str = "") -> list[HandOutcome]:
    """The hands `events` touch, in order; `hand`/`dealer`: the hand under way before the first event."""
    hands: list[HandOutcome] = []
    current: HandOutcome | None = None
    for seq, event in events:
        if isinstance(event, ev.HandDealt):
            current = HandOutcome(event.hand_number, event.dealer, seq, seq)
            hands.append(current)
            continue
        if current is None:
            if isinstance(event, ev.GameCreated):
                continue
            current = HandOutcome(hand, dealer, seq, seq)
            hands.append(current)
        current.last_seq = seq
        _follow(current, event)
    return hands


def _follow(hand: HandOutcome, event: ev.Event) -> None:
    match event:
        case ev.CardDrawn():
            hand.turns += 1
        case ev.Knocked():
            hand.turns += 1
            hand.knocked_by = event.player
        case ev.ThirtyOneDeclared():
            hand.ended_by, hand.by, hand.values = "declaration", event.player, {event.player: 31}
        case ev.ThrowDownCalled():
            hand.ended_by, hand.by = "throw_down", event.player
        case ev.StockRanOut():
            hand.ended_by = "dead_hand"  # R17b
        case ev.ShowdownHeld():
            if hand.ended_by is None:
                hand.ended_by = "showdown"
            hand.by = event.caller
            hand.values = dict(event.values)
            hand.lives_lost = dict(event.lives_lost)
        case ev.PennyPaid():
            if hand.ended_by == "declaration":
                hand.lives_lost[event.player] = 1  # R21: one each
        case ev.PlayerEliminated():
            hand.out.append(event.player)
            if hand.ended_by == "declaration":
                hand.lives_lost[event.player] = 1
        case ev.Resigned():
            (hand.out_of_time if event.cause is not None else hand.resigned).append(event.player)
        case ev.GameWon():
            if hand.ended_by is None:
                hand.ended_by = "resignation"  # the last other player resigned (R27)
        case ev.GameAbandoned():
            if hand.ended_by is None:
                hand.ended_by, hand.by = "abandoned", event.by
        case (
            ev.GameCreated() | ev.SeatAccepted() | ev.SeatTaken() | ev.GameCancelled() | ev.HandDealt()
            | ev.HandViewed() | ev.StockReshuffled() | ev.CardDiscarded()
            | ev.MessageSaid() | ev.MoveSigned()
        ):
            pass  # nothing a hand's summary tells
        case _:
            assert_never(event)


def last_action_index(events: Sequence[ev.Event], player: str) -> int | None:
    """The index of the last action `player` took himself (drawing, discarding, knocking ...), or None."""
    key = player.casefold()
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if isinstance(event, ACTIONS) and event.player.casefold() == key:
            return index
    return None


def _seconds(start: str, end: str) -> int:
    def parse(moment: str) -> datetime:
        return datetime.strptime(moment.rstrip("Z")[:19], "%Y-%m-%dT%H:%M:%S")

    try:
        return max(0, int((parse(end) - parse(start)).total_seconds()))
    except ValueError:
        return 0


def game_result(records: Sequence[tuple[int, str, ev.Event]]) -> GameResult:
    """The result of a finished game from its (seq, recorded_at, event) triples."""
    created, ended = records[0][2], ev.ending_of([event for _, _, event in records])
    assert isinstance(created, ev.GameCreated) and ended is not None, "a whole, finished game"
    won = ended if isinstance(ended, ev.GameWon) else None
    winner = won.winner if won is not None else None
    hands = hand_outcomes([(seq, event) for seq, _, event in records])
    out_in: dict[str, int] = {}
    resigned: set[str] = set()
    timed_out: set[str] = set()
    for hand in hands:
        for name in [*hand.out, *hand.resigned, *hand.out_of_time]:
            out_in[name] = hand.number
        resigned.update(hand.resigned)
        timed_out.update(hand.out_of_time)
    # The pennies each paid (a life lost on the dole pays none, R25).
    paid = {seat.name: 0 for seat in created.players}
    for _, _, event in records:
        if isinstance(event, ev.PennyPaid):
            paid[event.player] += 1
    own = {name: created.options.lives - count for name, count in paid.items()}
    kitty = won.kitty if won is not None else sum(paid.values())
    winner_pennies = own[winner] + (kitty if created.rules_version >= 2 else 0) if winner is not None else 0
    order = sorted(
        created.players,
        key=lambda seat: (seat.name != winner, -out_in.get(seat.name, 10**9), -own[seat.name]),
    )
    standings = [
        Standing(
            place=place,
            name=seat.name,
            is_bot=seat.is_bot,
            pennies=winner_pennies if seat.name == winner else own[seat.name],
            winner=seat.name == winner,
            out_in_hand=out_in.get(seat.name),
            resigned=seat.name in resigned,
            out_of_time=seat.name in timed_out,
        )
        for place, seat in enumerate(order, start=1)
    ]
    # the time of the event that ended it: a message said after the end does not move it
    started = records[0][1]
    finished_at = next(recorded_at for _, recorded_at, event in reversed(records) if event is ended)
    return GameResult(
        game_id=created.game_id,
        rules_version=created.rules_version,
        winner=winner,
        winner_pennies=winner_pennies,
        kitty=kitty,
        hands_played=max((hand.number for hand in hands), default=0),
        started_at=started,
        ended_at=finished_at,
        duration_seconds=_seconds(started, finished_at),
        hands=hands,
        standings=standings,
        seats=[seat.name for seat in created.players],
    )


#: The format of a result kept in the games read model (`kept_result`); a row of another is not read.
RESULT_FORMAT = 1


@cache
def _results() -> TypeAdapter[GameResult]:
    return TypeAdapter(GameResult)


def kept_result(result: GameResult) -> str:
    """`result` as the games read model keeps it (JSON, tagged with RESULT_FORMAT)."""
    return json.dumps({"format": RESULT_FORMAT, "result": _results().dump_python(result, mode="json")},
                      separators=(",", ":"))


def result_kept(text: str) -> GameResult | None:
    """The result the games read model keeps (`kept_result`), or None when it is of another format
    or unreadable (the caller then reads it from the events)."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != RESULT_FORMAT:
            return None
        return _results().validate_python(data["result"])
    except (ValueError, TypeError, KeyError, RecursionError):  # pydantic's ValidationError is a ValueError
        return None


#: The format of a game's creation kept in the games read model (`kept_creation`); a row of another is not read.
CREATION_FORMAT = 1


@dataclass(frozen=True)
class Creation:
    """What a game was created with that the games list tells: whether its creator chose its chance
    (#14 item 4: the seed, the first deck), its options (the lobby's) and its creator."""

    seed_chosen: bool
    first_deck_stacked: bool
    options: GameOptions
    creator: str | None

    @classmethod
    def of(cls, made: GameState | ev.GameCreated) -> Creation:
        """A game's creation, from its GameCreated event or any state folded from it (the same fields)."""
        return cls(seed_chosen=bool(made.seed_chosen), first_deck_stacked=made.first_deck_stacked,
                   options=made.options, creator=made.creator)


def kept_creation(creation: Creation) -> str:
    """`creation` as the games read model keeps it (JSON, tagged with CREATION_FORMAT)."""
    return json.dumps({"format": CREATION_FORMAT, "seed_chosen": creation.seed_chosen,
                       "first_deck_stacked": creation.first_deck_stacked,
                       "options": creation.options.model_dump(mode="json"), "creator": creation.creator},
                      separators=(",", ":"))


def creation_kept(text: str) -> Creation | None:
    """The creation the games read model keeps (`kept_creation`), or None when it is of another
    format or unreadable (the caller then reads it from the game's first event)."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != CREATION_FORMAT:
            return None
        seed_chosen, stacked, creator = data["seed_chosen"], data["first_deck_stacked"], data["creator"]
        if type(seed_chosen) is not bool or type(stacked) is not bool or not isinstance(creator, str | None):
            return None
        return Creation(seed_chosen=seed_chosen, first_deck_stacked=stacked,
                        options=GameOptions.model_validate(data["options"]), creator=creator)
    except (ValueError, TypeError, KeyError, RecursionError):  # pydantic's ValidationError is a ValueError
        return None
