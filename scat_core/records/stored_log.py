"""The stored log: one row exactly as recorded, its hash chain, and a command's load checked against the head.

hash = SHA-256(prev_hash as ASCII hex + canonical JSON of the envelope {"game_id", "seq",
"type", "schema_version", "recorded_at", "data"}), canonical meaning sorted keys, no spaces,
non-ASCII kept, UTF-8; a game's first event has prev_hash = GENESIS_HASH (64 zeros), so any
tool can verify it. `StoredEvent.event` decodes lazily (one pydantic call at the current
schema version, else upcast by `from_record`). A command appends only after its load is found
to end exactly at the head the games row recorded, each event chaining to the one before
(`verified_load`); any difference is damage done outside scat and raises HistoryDamaged, so
that it is refused instead of healed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from scat_core.domain.errors import Hint, NotFound
from scat_core.domain.events import EVENT_TYPES, Event, current_version, from_record
from scat_core.records.errors import CorruptHistory, HistoryDamaged

GENESIS_HASH = "0" * 64
ENVELOPE_KEYS = ("game_id", "seq", "type", "schema_version", "recorded_at", "data")
#: A stored or exported record: the envelope plus its chain, each field with its JSON type.
RECORD_FIELDS: dict[str, type] = {
    "game_id": str,
    "seq": int,
    "type": str,
    "schema_version": int,
    "recorded_at": str,
    "data": dict,
    "prev_hash": str,
    "hash": str,
}


def invalid_field(record: Mapping[str, Any]) -> str | None:
    """The first field of RECORD_FIELDS that `record` lacks or holds with the wrong type, or None."""
    for key, wanted in RECORD_FIELDS.items():
        value = record.get(key)
        if not isinstance(value, wanted) or isinstance(value, bool):
            return key
    return None


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def canonical_json(obj: Any) -> bytes:
    """Serialise `obj` in the canonical form: sorted keys, no spaces, UTF-8."""
    return _CANONICAL(obj).encode("utf-8")


def chain_hash(prev_hash: str, envelope: dict[str, Any]) -> str:
    """Hash one event envelope chained to the hash of the event before it."""
    body = {key: envelope[key] for key in ENVELOPE_KEYS}
    return hashlib.sha256(prev_hash.encode("ascii") + canonical_json(body)).hexdigest()


_dumps = json.JSONEncoder(ensure_ascii=False).encode  # a JSON string as in canonical_json
_sha256 = hashlib.sha256


def chain_hash_raw(
    prev_hash: str, game_id: str, seq: int, event_type: str, schema_version: int, recorded_at: str, data_json: str
) -> str:
    """`chain_hash` of an envelope whose `data` is given as its canonical JSON text (as stored).

    The canonical envelope is assembled around the stored text, keys in sorted order, so the
    data is neither parsed nor serialised again: equal to `chain_hash` exactly when
    `data_json` is the canonical encoding of the data (anything else fails to verify).
    """
    body = (
        f'{{"data":{data_json},"game_id":{_dumps(game_id)},"recorded_at":{_dumps(recorded_at)},'
        f'"schema_version":{int(schema_version)},"seq":{int(seq)},"type":{_dumps(event_type)}}}'
    )
    return _sha256(prev_hash.encode("ascii") + body.encode("utf-8")).hexdigest()

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

def verify_rows(game_id: str, rows: Sequence[Sequence[Any]], prev_seq: int, prev_hash: str) -> None:
    """Check that stored rows (RECORD_KEYS order) follow event `prev_seq` (hash `prev_hash`) in one
    unbroken chain: consecutive seqs, each prev_hash the hash before, each hash its content's."""
    seq_expected = prev_seq + 1
    for row in rows:
        row_game, seq, event_type, version, recorded_at, data_json, row_prev, row_hash = row
        if seq != seq_expected or row_game != game_id:
            raise HistoryDamaged(game_id, f"event {seq_expected} is missing from its log")
        if row_prev != prev_hash:
            raise HistoryDamaged(game_id, f"event {seq} does not chain to event {seq - 1}")
        if chain_hash_raw(prev_hash, game_id, seq, event_type, version, recorded_at, data_json) != row_hash:
            raise HistoryDamaged(game_id, f"event {seq} was altered: its hash does not match its content")
        prev_hash = row_hash
        seq_expected += 1


def check_head(game_id: str, last_seq: int, last_hash: str, head_seq: int, head_hash: str) -> None:
    """Check that the log's last event is the head the games row recorded when it was last played."""
    if last_seq < head_seq:
        raise HistoryDamaged(
            game_id, f"its log ends at event {last_seq} but the game had reached event {head_seq}: events were removed"
        )
    if last_seq > head_seq:
        raise HistoryDamaged(
            game_id, f"its log goes on to event {last_seq} but the games list has it at event {head_seq}"
        )
    if last_hash != head_hash:
        raise HistoryDamaged(game_id, f"its event {last_seq} is not the one recorded when it was last played")


def verify_log(game_id: str, rows: Sequence[Sequence[Any]], head: tuple[int, str] | None) -> None:
    """Verify a whole stored log against the games row's head (None: the row is missing)."""
    if head is None:
        raise HistoryDamaged(game_id, f"its log holds {len(rows)} events but the games list has no entry for it")
    if not rows:
        raise HistoryDamaged(game_id, f"the games list has it at event {head[0]} but its log is empty")
    verify_rows(game_id, rows, 0, GENESIS_HASH)
    last = rows[-1]
    check_head(game_id, int(last[1]), str(last[7]), *head)


def without_snapshot(rows: Sequence[Sequence[Any]]) -> list[Sequence[Any]]:
    """The rows of a command's load (see `verified_load`) as if the game had no snapshot: its seq,
    hash and state proved nothing (its seal did not verify, records/signing.py)."""
    if not rows:
        return []
    first = rows[0]
    return [(*first[:2], None, None, None, *first[5:]), *rows[1:]]


@dataclass(frozen=True)
class CommandLoad:
    """What a command needs of a game, verified: a snapshot (or none) and the events after it."""

    snapshot: str | None  # the state's JSON at event `snapshot_seq`, written by this rules version
    snapshot_seq: int  # 0 without a usable snapshot: `events` is then the whole log
    snapshot_hash: str  # the hash of event `snapshot_seq` (re-hashed and chained to the head), "" without one
    events: list[StoredEvent]
    secret: GameSecret | None
    head_hash: str  # the hash of the last event, as verified
    head_signed: bool = False  # the head has a signature row (whether it verifies is the append's to judge)
    #: The events follow the head the caller named (`resumed_load`): `snapshot_seq` and
    #: `snapshot_hash` are that head, `snapshot` is None, and no snapshot was read.
    resumed: bool = False


def verified_load(game_id: str, rows: Sequence[Sequence[Any]], logged: int) -> CommandLoad:
    """The CommandLoad of the rows of `COMMAND_LOAD` (head_seq, head_hash, snapshot seq and hash, its
    usable state or None, seed, salt, then one event in RECORD_KEYS order, or Nones, per row; any
    columns after those are not read here), checked.

    `logged`: how many events the log holds of the game, read only when there are no rows (no games row).
    """
    if not rows:
        if not logged:
            raise NotFound(f"no game {game_id!r} in this database", game_id=game_id, hint=Hint.LIST_GAMES)
        raise HistoryDamaged(game_id, f"its log holds {logged} events but the games list has no entry for it")
    head_seq, head_hash, snap_seq, snap_hash, state, seed, salt = rows[0][:7]
    events = [row[7:15] for row in rows if row[8] is not None]
    if state is None:
        verify_log(game_id, events, (int(head_seq), str(head_hash)))
        if snap_seq is not None and (snap_seq > len(events) or events[snap_seq - 1][7] != snap_hash):
            raise HistoryDamaged(game_id, f"its event {snap_seq} is not the one recorded when it was last played")
        start = 0
    else:
        if not events or events[0][1] != snap_seq:
            raise HistoryDamaged(game_id, f"its log no longer holds event {snap_seq}, where it was last played: "
                                 "events were removed")
        if events[0][7] != snap_hash:
            raise HistoryDamaged(game_id, f"its event {snap_seq} is not the one recorded when it was last played")
        verify_rows(game_id, events, snap_seq - 1, str(events[0][6]))
        check_head(game_id, int(events[-1][1]), str(events[-1][7]), int(head_seq), str(head_hash))
        start = 1
    return CommandLoad(
        snapshot=state,
        snapshot_seq=int(snap_seq) if state is not None else 0,
        snapshot_hash=str(snap_hash) if state is not None else "",
        events=StoredEvent.from_rows(events[start:]),
        secret=None if seed is None else GameSecret(seed=seed, salt=salt),
        head_hash=str(head_hash),
    )


@dataclass(frozen=True)
class KeptHead:
    """What a process kept of a game: the head (seq, hash) of the state it kept, and the
    snapshot it last wrote or verified (seq and hash of its event; seq 0: none)."""

    seq: int
    hash: str
    snapshot_seq: int
    snapshot_hash: str

    @property
    def checked_from(self) -> int:
        """The first event a resumed load re-checks: the snapshot's (as a load from it would), or the kept head's."""
        return min(self.seq, self.snapshot_seq) if self.snapshot_seq > 0 else 1


def resumed_load(game_id: str, rows: Sequence[Sequence[Any]], kept: KeptHead) -> CommandLoad | None:
    """The CommandLoad of the rows of `COMMAND_LOAD` read from event `kept.checked_from` on (no
    snapshot state among them): the events after the kept head, when the log still holds it and
    the game's snapshot is still the one the caller saw; None when not (the caller loads as if it
    had kept nothing). HistoryDamaged when the events read do not chain unbroken or do not end at
    the games row's head.

    Every event from the snapshot's on is re-hashed and chained, as a load from the snapshot
    checks them (so a command notices the same damage either way); only the events after the
    kept head are parsed, for the caller to fold onto the state it kept. The hash of the kept
    head chains every event before it.
    """
    if not rows or rows[0][8] is None or rows[0][8] != kept.checked_from:
        return None
    head_seq, head_hash, snap_seq, snap_hash = rows[0][:4]
    if (snap_seq or 0, snap_hash or "") != (kept.snapshot_seq, kept.snapshot_hash if kept.snapshot_seq else ""):
        return None  # the snapshot changed (another writer's, or removed): loaded and checked anew
    if int(head_seq) < kept.seq:
        return None
    events = [row[7:15] for row in rows]
    verify_rows(game_id, events, kept.checked_from - 1, str(events[0][6]))  # consecutive from here on
    check_head(game_id, int(events[-1][1]), str(events[-1][7]), int(head_seq), str(head_hash))
    at = kept.seq - kept.checked_from
    if at >= len(events) or events[at][7] != kept.hash:
        return None
    snapshot_at = kept.snapshot_seq - kept.checked_from
    if kept.snapshot_seq and (snapshot_at >= len(events) or events[snapshot_at][7] != kept.snapshot_hash):
        return None
    seed, salt = rows[0][5:7]
    return CommandLoad(
        snapshot=None, snapshot_seq=kept.seq, snapshot_hash=kept.hash, events=StoredEvent.from_rows(events[at + 1:]),
        secret=None if seed is None else GameSecret(seed=seed, salt=salt), head_hash=str(head_hash), resumed=True,
    )
