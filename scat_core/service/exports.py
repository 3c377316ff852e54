"""The export formats of a game's history, and reading them back for import.

* `jsonl`: one record per line, each {game_id, seq, type, schema_version, recorded_at, data,
  prev_hash, hash}, seq from 1.
* `json`: one document {"format": "scat-export", "version": 1, "game_id", "last_seq",
  "head_hash", "events": [records]}; `last_seq` and `head_hash` let an import notice a cut tail.
* `text`: the transcript of `transcript.py` (for people; it cannot be imported).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from scat_core.domain.errors import BadInput, RuleViolation
from scat_core.domain.hashing import invalid_field

FORMAT_NAME = "scat-export"
FORMAT_VERSION = 1
NOT_AN_EXPORT = "is not a scat export (expected the json or jsonl written by `scat export`)"


def to_jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    """The records as JSON lines, one per event."""
    return "".join(json.dumps(dict(record), ensure_ascii=False) + "\n" for record in records)


def to_json(records: Sequence[Mapping[str, Any]]) -> str:
    """The records as one JSON document with the head of the chain."""
    document = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "game_id": records[0]["game_id"] if records else None,
        "last_seq": records[-1]["seq"] if records else 0,
        "head_hash": records[-1]["hash"] if records else None,
        "events": [dict(record) for record in records],
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


def parse_export(text: str, source: str = "the file") -> list[dict[str, Any]]:
    """The records of a json or jsonl export; BadInput when `text` is no export at all."""
    stripped = text.strip()
    if not stripped:
        raise BadInput(f"{source} is empty: it {NOT_AN_EXPORT}")
    document: Any
    try:
        document = json.loads(stripped)
    except json.JSONDecodeError:
        document = None
    if isinstance(document, dict) and not _is_record(document):
        records = _records_of_document(document, source)
        _check_records(records, source)
        _check_head(document, records, source)
        return records
    if isinstance(document, dict):
        records = [document]  # a one-line jsonl file
    elif isinstance(document, list):
        records = document
    else:
        records = []
        for number, line in enumerate(stripped.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                raise BadInput(f"{source} line {number} is not JSON: {source} {NOT_AN_EXPORT}") from None
    _check_records(records, source)
    return records


def _is_record(document: dict[str, Any]) -> bool:
    """Whether a JSON object is one event record (a one-line jsonl file), not a json document."""
    return "seq" in document and "hash" in document


def _records_of_document(document: dict[str, Any], source: str) -> list[Any]:
    """The events of a json export document: BadInput unless it is one this scat can read."""
    if document.get("format") != FORMAT_NAME or not isinstance(document.get("events"), list):
        raise BadInput(f"{source} {NOT_AN_EXPORT}")
    version = document.get("version")
    if type(version) is not int or version != FORMAT_VERSION:
        raise BadInput(
            f"{source} is a scat export of version {version!r}, not an export this scat can read "
            f"(it reads version {FORMAT_VERSION})"
        )
    records: list[Any] = document["events"]
    return records


def _check_head(document: dict[str, Any], records: list[dict[str, Any]], source: str) -> None:
    """Refuse a json export whose header disagrees with its events: a cut tail or an edit."""
    first, last = records[0], records[-1]
    if document.get("game_id") != first["game_id"]:
        raise RuleViolation(
            f"refused: {source} says it is game {document.get('game_id')!r} but its events are of game "
            f"{first['game_id']!r}: the file was edited"
        )
    if document.get("last_seq") != last["seq"]:
        raise RuleViolation(
            f"refused: {source} declares {document.get('last_seq')} events but its events end at "
            f"{last['seq']}: events were removed or the file was edited"
        )
    if document.get("head_hash") != last["hash"]:
        raise RuleViolation(
            f"refused: {source}: its head_hash does not match the hash of its last event {last['seq']}: "
            "the file was edited"
        )


def _check_records(records: list[Any], source: str) -> None:
    if not records:
        raise BadInput(f"{source} holds no events: it {NOT_AN_EXPORT}")
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise BadInput(f"{source}: record {number} is not an object: {source} {NOT_AN_EXPORT}")
        name = invalid_field(record)
        if name is not None:
            raise BadInput(f"{source}: record {number} lacks a valid {name!r}: {source} {NOT_AN_EXPORT}")
