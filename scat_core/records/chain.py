"""The stored-record format checked: each record's shape, its numbering and its hash chain.

A record is an event as stored or exported: the envelope (game_id, seq, type, schema_version,
recorded_at, data) with prev_hash and hash. `audit_records` checks the records, decodes them
into domain events and hands those to the domain's audit (`scat_core.domain.audit`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from scat_core.domain import events as ev
from scat_core.domain.audit import AuditReport, audit_events
from scat_core.domain.errors import BadInput
from scat_core.records.signing import key_id_of, position_tag, signed_of, verifies
from scat_core.records.stored_log import GENESIS_HASH, RECORD_FIELDS, chain_hash, invalid_field

#: recorded_at as the store writes it: UTC, microseconds, a Z (sorts as it reads).
_RECORDED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")


#: How deep the data of any event nests (ShowdownHeld: data > hands > a hand is 3 levels).
MAX_DATA_DEPTH = 8


def nested_deeper_than(value: Any, limit: int) -> bool:
    """Whether `value` (JSON: dicts and lists) nests deeper than `limit` levels; no recursion."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list | tuple) else None
        if children is None:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def record_shape_problem(record: Any) -> str | None:
    """What is wrong with the shape of one stored record (a missing or mistyped field), or None."""
    if not isinstance(record, Mapping):
        return "is not a JSON object"
    key = invalid_field(record)
    if key is not None:
        return f"has no valid {key!r} ({RECORD_FIELDS[key].__name__} expected)"
    if not _RECORDED_AT.fullmatch(record["recorded_at"]):
        return f"has a recorded_at that is not a UTC time like 2026-01-31T12:00:00.000000Z: {record['recorded_at']!r}"
    if nested_deeper_than(record["data"], MAX_DATA_DEPTH):
        return f"has data nested deeper than any event's ({MAX_DATA_DEPTH} levels)"
    return None


def link_problem(index: int, record: Any, previous: Mapping[str, Any] | None) -> str | None:
    """What is wrong with record number `index` (from 1) after `previous` in one chain, or None.

    Its shape, its seq, its game, its time and its hash; `previous` is the record before it
    (None for the first). One record at a time, so an import can stop at the first bad one.
    """
    shape = record_shape_problem(record)
    if shape:
        return f"event {index} {shape}"
    if record["seq"] != index:
        return f"event {index} is missing (found seq {record['seq']})"
    prev_hash = GENESIS_HASH if previous is None else previous["hash"]
    if previous is not None and record["game_id"] != previous["game_id"]:
        return f"event {index} belongs to game {record['game_id']}"
    if previous is not None and record["recorded_at"] < previous["recorded_at"]:
        return f"event {index} is recorded before event {index - 1}"
    if record["prev_hash"] != prev_hash:
        return f"event {index} does not chain to the hash of event {index - 1}"
    if chain_hash(prev_hash, dict(record)) != record["hash"]:
        return f"event {index} was altered: its hash does not match its content"
    return None


def verify_chain(records: Sequence[Mapping[str, Any]]) -> tuple[int | None, str | None]:
    """The first seq whose shape, numbering or hash is wrong, with the reason, or (None, None)."""
    previous: Mapping[str, Any] | None = None
    for index, record in enumerate(records, start=1):
        problem = link_problem(index, record, previous)
        if problem:
            return index, problem
        previous = record
    return None, None


def _names_its_key(event: ev.MoveSigned) -> bool:
    """Whether the signature's key id is that of the public key it carries (a malformed key: no)."""
    try:
        return key_id_of(event.public_key) == event.key_id
    except BadInput:
        return False


def with_move_signatures(report: AuditReport, records: Sequence[Mapping[str, Any]],
                         events: Sequence[ev.Event]) -> AuditReport:
    """`report` with its moves' signatures counted and checked: each must verify under the key it
    names, at a position of this very log with no other signed move since and nothing but talk
    (a message never fails a move; a message itself may be signed at any earlier position), whose
    tag (once the seed is revealed) is that of the log's event there (the events' own audit
    checked that each human move of a signed game has its MoveSigned)."""
    won = ev.ending_of(events)
    signed = verified = last_signed = 0
    for record, event in zip(records, events, strict=True):
        if not isinstance(event, ev.MoveSigned):
            continue
        seq, signed, at = record["seq"], signed + 1, event.at_seq
        talk = event.move.get("type") == "Say"
        problem = None
        # A move is signed at the position it was made at: after the last signed move, with nothing
        # but talk since (a message never fails a move); a message, at any position before it.
        if not (0 < at < seq if talk else last_signed < at < seq and _only_talk(events[at:seq - 1])):
            problem = f"event {seq} signs {event.player}'s move at a position this log does not have there"
        elif won is not None and position_tag(won.seed, won.seed_salt, records[at - 1]["hash"]) != event.at_tag:
            problem = f"event {seq} signs {event.player}'s move after another history than this log's"
        elif not _names_its_key(event) or not verifies(event.public_key, report.game_id, signed_of(event),
                                                       event.move):
            problem = f"event {seq}: {event.player}'s signature of his move does not verify"
        if problem is not None:
            return replace(report, ok=False, first_bad_seq=seq, problems=[problem], moves_signed=signed,
                           moves_verified=verified)
        verified, last_signed = verified + 1, last_signed if talk else seq
    return replace(report, moves_signed=signed, moves_verified=verified)


def _only_talk(events: Sequence[ev.Event]) -> bool:
    """Whether `events` are messages and their signatures only."""
    return all(isinstance(event, ev.TALK) for event in events)


def audit_records(records: Sequence[Mapping[str, Any]]) -> AuditReport:
    """Audit one game's stored event records (envelopes as exported or stored)."""
    first = records[0] if records else None
    game_id = str(first.get("game_id", "")) if isinstance(first, Mapping) else ""
    if not records:
        return AuditReport(game_id, False, 0, None, ["the game has no events"])
    bad_seq, reason = verify_chain(records)
    if bad_seq is not None:
        return AuditReport(game_id, False, len(records), bad_seq, [str(reason)])
    events: list[ev.Event] = []
    for record in records:
        try:
            event = ev.from_record(record["type"], record["schema_version"], record["data"])
        except (ValueError, ValidationError) as error:
            first_line = str(error).splitlines()[0]
            if isinstance(error, ValidationError) and error.errors():
                detail = error.errors()[0]
                where = ".".join(str(part) for part in detail["loc"]) or "its data"
                first_line = f"{record['type']} {where}: {detail['msg']}"
            return AuditReport(
                game_id,
                False,
                len(records),
                record["seq"],
                [f"event {record['seq']} is unreadable: {first_line}"],
            )
        # One history, one encoding: data must be exactly what the event serializes to, so
        # loosely typed or padded copies of a game cannot pass with chains of their own.
        if record["schema_version"] == ev.current_version(record["type"]) and ev.to_record(event)[2] != record["data"]:
            return AuditReport(
                game_id,
                False,
                len(records),
                record["seq"],
                [f"event {record['seq']} is not in canonical form: its data is not what the event encodes to"],
            )
        events.append(event)
    report = audit_events(game_id, events, [record["recorded_at"] for record in records])
    return with_move_signatures(report, records, events) if report.ok else report
