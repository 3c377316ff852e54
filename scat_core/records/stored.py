"""Stored events: one row of the log exactly as recorded, and its domain event.

`StoredEvent.event` is decoded lazily: validated straight from the stored JSON when the row
is at the current schema version (one pydantic call), else upcast by `from_record`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from scat_core.domain.errors import Hint
from scat_core.domain.events import EVENT_TYPES, Event, current_version, from_record
from scat_core.records.errors import CorruptHistory
from scat_core.records.hashing import RECORD_FIELDS

RECORD_KEYS = tuple(RECORD_FIELDS)  # the columns of a stored event, in this order
# `StoredEvent.from_rows` names them in this order (data kept as its JSON text).
assert RECORD_KEYS == ("game_id", "seq", "type", "schema_version", "recorded_at", "data", "prev_hash", "hash")

#: type -> (its validator's validate_json, the schema version this program writes), filled on first use.
_CURRENT: dict[str, tuple[Callable[[str], Any], int]] = {}


def _current(event_type: str) -> tuple[Callable[[str], Any], int] | None:
    """The JSON validator of the model of `event_type` (what its model_validate_json calls) and
    its current schema version; None for a type this program does not know."""
    model = EVENT_TYPES.get(event_type)
    if model is None:
        return None
    if not model.__pydantic_complete__:  # defer_build: built on first use
        model.model_rebuild()
    _CURRENT[event_type] = found = (model.__pydantic_validator__.validate_json, current_version(event_type))
    return found


def _decode(stored: StoredEvent) -> Event:
    """The domain event of `stored`: validated straight from its stored JSON when it is at
    the current schema version (one pydantic call), else upcast by `from_record`."""
    raw: str | None = stored.__dict__.get("_data_json")
    current = _CURRENT.get(stored.type) or _current(stored.type)
    if (
        raw is not None
        and current is not None
        and stored.schema_version == current[1]
        # `type` and `schema_version` come from the row, never from data (as in from_record)
        and '"type":' not in raw
        and '"schema_version":' not in raw
    ):
        event: Event = current[0](raw)
        return event
    return from_record(stored.type, stored.schema_version, dict(stored.data))


@dataclass(frozen=True)
class GameSecret:
    """The seed of a running game and the salt of its commitment, kept outside the log."""

    seed: str
    salt: str


def utc_now() -> str:
    """Now in UTC as ISO-8601 with microseconds and a Z: 2026-11-29T11:22:33.123456Z."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class StoredEvent:
    """One stored event exactly as recorded; `event` is its upcast domain event.

    Events loaded from the database are built by `from_row`, which defers the JSON of
    `data` until someone reads it: replaying a game only needs `event`, which is validated
    straight from the stored JSON when it is at the current schema version.
    """

    game_id: str
    seq: int
    type: str
    schema_version: int
    recorded_at: str
    data: dict[str, Any]
    prev_hash: str
    hash: str

    @classmethod
    def from_row(cls, row: Sequence[Any]) -> StoredEvent:
        """A row of the columns RECORD_KEYS (in that order) as is; `data` stays JSON text
        until it is first read."""
        return cls.from_rows((row,))[0]

    @classmethod
    def from_rows(cls, rows: Iterable[Sequence[Any]]) -> list[StoredEvent]:
        """`from_row` of each of `rows` (a log read builds thousands: no per-row call)."""
        new, built = object.__new__, list[StoredEvent]()
        append = built.append
        for game_id, seq, event_type, version, recorded_at, data_json, prev_hash, digest in rows:
            stored = new(cls)
            attributes = stored.__dict__
            attributes["game_id"], attributes["seq"], attributes["type"] = game_id, seq, event_type
            attributes["schema_version"], attributes["recorded_at"] = version, recorded_at
            attributes["_data_json"], attributes["prev_hash"], attributes["hash"] = data_json, prev_hash, digest
            append(stored)
        return built

    @classmethod
    def of_game(cls, game_id: str, rows: Iterable[Sequence[Any]]) -> list[StoredEvent]:
        """`from_rows` of rows of game `game_id` read without their game_id: the columns
        RECORD_KEYS but the first (a read of one game's log names its game in the WHERE clause)."""
        new, built = object.__new__, list[StoredEvent]()
        append = built.append
        for seq, event_type, version, recorded_at, data_json, prev_hash, digest in rows:
            stored = new(cls)
            attributes = stored.__dict__
            attributes["game_id"], attributes["seq"], attributes["type"] = game_id, seq, event_type
            attributes["schema_version"], attributes["recorded_at"] = version, recorded_at
            attributes["_data_json"], attributes["prev_hash"], attributes["hash"] = data_json, prev_hash, digest
            append(stored)
        return built

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            # Only reached while `data` of a `from_row` event has not been parsed yet.
            raw = self.__dict__.get("_data_json")
            if name != "data" or raw is None:
                raise AttributeError(name)
            try:
                data = json.loads(raw)
            except (ValueError, RecursionError):  # RecursionError: nested deeper than Python parses
                data = raw  # damaged outside scat: kept as text, for the audit to report
            self.__dict__["data"] = data
            return data

    @property
    def event(self) -> Event:
        """The domain event, upcast to the current schema version (computed once)."""
        cached: Event | None = self.__dict__.get("_event")
        if cached is None:
            try:
                cached = self.__dict__["_event"] = _decode(self)
            except (ValueError, TypeError) as error:  # pydantic's ValidationError is a ValueError
                reason = str(error).strip().splitlines()[0]
                raise CorruptHistory(
                    f"event {self.seq} of game {self.game_id} cannot be read ({reason}): its stored "
                    "history was damaged", game_id=self.game_id, hint=Hint.FIND_BAD_EVENT,
                ) from error
        return cached

    def envelope(self) -> dict[str, Any]:
        """The hashed envelope: game_id, seq, type, schema_version, recorded_at, data."""
        return {
            "game_id": self.game_id,
            "seq": self.seq,
            "type": self.type,
            "schema_version": self.schema_version,
            "recorded_at": self.recorded_at,
            "data": self.data,
        }

    def record(self) -> dict[str, Any]:
        """The full export record: the envelope plus prev_hash and hash."""
        return {**self.envelope(), "prev_hash": self.prev_hash, "hash": self.hash}
