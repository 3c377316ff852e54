"""What travels between `scat serve` and `scat --server`: pydantic models, both directions.

States and events in responses are always already redacted for the authenticated viewer
(scat_core.domain.views.redact_state / redact): the client never receives a card its user
may not see, and rebuilds from them the same types the game service returns.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scat_core.domain import events as ev
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from scat_core.store.records import StoredEvent

#: Longest name, card or token a request may carry; bodies are limited by the app too.
SHORT = 200
MAX_SEATS = 16
ERROR_STATUS = {1: 422, 2: 400, 3: 403, 4: 404, 5: 409}  # exit code -> HTTP status
EXIT_CODES = {status: code for code, status in ERROR_STATUS.items()} | {401: 3, 413: 2, 405: 2}


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatIn(_Body):
    """A seat of a new game."""

    name: str = Field(min_length=1, max_length=SHORT)
    is_bot: bool = False


class CreateIn(_Body):
    """`scat new`: seats in order, options; `viewer` is the human whose view comes back."""

    players: list[SeatIn] = Field(max_length=MAX_SEATS)
    options: GameOptions = Field(default_factory=GameOptions)
    dealer: str | None = Field(default=None, max_length=SHORT)
    seed: int | None = None
    deck: list[str] | None = Field(default=None, max_length=60)
    viewer: str | None = Field(default=None, max_length=SHORT)


class MoveIn(_Body):
    """A player's move: who moves, and the draw source or the card where the move needs one."""

    player: str = Field(min_length=1, max_length=SHORT)
    source: Literal["stock", "discard"] | None = None
    card: str | None = Field(default=None, max_length=8)


class ImportIn(_Body):
    """`scat import`: the records of an export, as parsed by the client."""

    records: list[dict[str, Any]]
    strict: bool = False


class EventOut(BaseModel):
    """One stored event as the viewer may see it; hashes only once the game is over."""

    game_id: str
    seq: int
    type: str
    schema_version: int
    recorded_at: str
    data: dict[str, Any]
    prev_hash: str = ""
    hash: str = ""

    @classmethod
    def of(cls, stored: StoredEvent, event: ev.Event, hashes: bool) -> EventOut:
        """The wire form of `stored` shown as `event` (possibly redacted)."""
        _, _, data = ev.to_record(event)
        return cls(game_id=stored.game_id, seq=stored.seq, type=stored.type, schema_version=stored.schema_version,
                   recorded_at=stored.recorded_at, data=data, prev_hash=stored.prev_hash if hashes else "",
                   hash=stored.hash if hashes else "")

    def stored(self) -> StoredEvent:
        """The StoredEvent the CLI renders (its `event` decoded from `data` on first use)."""
        return StoredEvent(self.game_id, self.seq, self.type, self.schema_version, self.recorded_at,
                           self.data, self.prev_hash, self.hash)


class OutcomeOut(BaseModel):
    """What a command did, for its viewer: states before/after and the events as he saw them."""

    game_id: str
    viewer: str | None
    state: GameState
    before: GameState
    events: list[EventOut]
    public_events: list[EventOut]
    tokens: dict[str, str] = Field(default_factory=dict)


class ViewOut(BaseModel):
    """`scat show`: the state as the viewer may know it, and whether it is read-only here."""

    state: GameState
    read_only: bool


class HistoryOut(BaseModel):
    """`scat log` / `scat replay`: the state at the end and each event as the viewer may see it."""

    state: GameState
    events: list[EventOut]


class NewsOut(BaseModel):
    """A returning player's news: the game now, just before the first event, and the events."""

    state: GameState
    before: GameState
    events: list[EventOut]


class GameIdOut(BaseModel):
    """The whole id of the game an abbreviated one names."""

    game_id: str


class GameRowOut(BaseModel):
    """One row of the games list."""

    game_id: str
    status: str
    players: list[str]
    bots: list[str]
    turn: str | None
    hand_number: int
    dealer: str | None
    created_at: str
    last_activity: str
    winner: str | None
    head_seq: int
    head_hash: str
    protected: bool


class GamesOut(BaseModel):
    """`scat games`: rows newest activity first, and the ids of those read-only here."""

    games: list[GameRowOut]
    read_only: list[str]


class AuditOut(BaseModel):
    """The verdict of an audit."""

    game_id: str
    ok: bool
    events: int
    first_bad_seq: int | None
    problems: list[str]
    seed_verified: bool = False
    first_deck_stacked: bool = False
    seed_chosen: bool | None = False
    signature: str | None = None
    signature_key_id: str | None = None
    signature_signer: str | None = None
    origin_signature: str | None = None
    origin_key_id: str | None = None


class RecordsOut(BaseModel):
    """The full records of a finished game (an export)."""

    records: list[dict[str, Any]]


class ChanceIn(_Body):
    """Games whose chosen chance (seed, first deck) is asked for."""

    game_ids: list[str] = Field(max_length=10_000)


class ChanceOut(BaseModel):
    """For each game: [its seed was chosen at creation, its first deck was]."""

    chosen: dict[str, tuple[bool, bool]]


class ErrorOut(BaseModel):
    """Every refusal: the one line the CLI prints, and the CLI's exit code."""

    error: str
    exit_code: int


class HealthOut(BaseModel):
    """`GET /health`."""

    status: Literal["ok"] = "ok"
    database: str
