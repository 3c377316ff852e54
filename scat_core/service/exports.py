"""The export formats of a game's history, and reading them back for import.

* `jsonl`: one record per line, each {game_id, seq, type, schema_version, recorded_at, data,
  prev_hash, hash}, seq from 1. The last line also carries the head's signature in
  `head_signature` (so every line stays an event envelope; older scats ignore the field).
* `json`: one document {"format": "scat-export", "version": 1, "game_id", "last_seq",
  "head_hash", "head_signature", "events": [records]}; `last_seq` and `head_hash` let an
  import notice a cut tail.
* `head_signature` (absent for unsigned games): {"scheme", "key_id", "public_key",
  "signature"}, see scat_core/records/signing.py.
* `text`: the transcript of `scat_cli/transcript.py` (for people; it cannot be imported).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, BinaryIO

from scat_core.domain.errors import BadInput, Hint, RuleViolation
from scat_core.records.chain import link_problem
from scat_core.records.stored_log import invalid_field

FORMAT_NAME = "scat-export"
FORMAT_VERSION = 1
SIGNATURE_FIELD = "head_signature"


def not_an_export(subject: str) -> BadInput:
    """BadInput: `subject` (the file, or "it") is not a scat export; the front end words what writes one."""
    return BadInput(f"{subject} is not a scat export (expected the json or jsonl", hint=Hint.EXPORT, after=")")


def to_jsonl(records: Sequence[Mapping[str, Any]]) -> str:
    """The records as JSON lines, one per event."""
    return "".join(json.dumps(dict(record), ensure_ascii=False) + "\n" for record in records)


def to_json(records: Sequence[Mapping[str, Any]]) -> str:
    """The records as one JSON document with the head of the chain (and its signature, if any)."""
    events = [dict(record) for record in records]
    signature = events[-1].pop(SIGNATURE_FIELD, None) if events else None
    document = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "game_id": records[0]["game_id"] if records else None,
        "last_seq": records[-1]["seq"] if records else 0,
        "head_hash": records[-1]["hash"] if records else None,
        **({SIGNATURE_FIELD: signature} if signature is not None else {}),
        "events": events,
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


#: The largest export `scat import` reads (bytes). A finished game of 9 players with 9 lives
#: each is a few MB; the limit keeps a hostile file from filling memory.
MAX_EXPORT_BYTES = 32 * 1024 * 1024
_TOO_DEEP = "nests JSON deeper than any export"


def _loads(text: str | bytes) -> Any:
    """json.loads, but JSON nested too deep for Python's parser is a ValueError, not a RecursionError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(_TOO_DEEP) from None


def _too_big(source: str, limit: int) -> BadInput:
    return BadInput(f"{source} is larger than {limit // (1024 * 1024)} MB, more than any scat export: "
                    "not imported")


def read_export(stream: BinaryIO, source: str = "the file", limit: int = MAX_EXPORT_BYTES) -> list[dict[str, Any]]:
    """The records of a json or jsonl export read from a binary stream, bounded in size and memory.

    A jsonl export is read one line at a time and refused at its first bad record (its shape,
    seq, chain or hash), without reading the rest; a json document is read whole, up to
    `limit` bytes. BadInput when it is no export, larger than `limit`, or not UTF-8.
    """
    budget = limit
    first = b""
    while not first.strip():  # the first non-blank line tells the format
        first = stream.readline(budget + 1)
        budget -= len(first)
        first = first.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 BOM (an editor's save) is no content
        if budget < 0:
            raise _too_big(source, limit)
        if not first:
            raise not_an_export(f"{source} is empty: it")
    try:
        document = _loads(first)
    except ValueError:
        document = None
    if not (isinstance(document, dict) and _is_record(document)):
        rest = stream.read(budget + 1)
        if len(rest) > budget:
            raise _too_big(source, limit)
        return parse_export(_decode(first + rest, source), source)
    records: list[dict[str, Any]] = []
    line, number = first, 1
    while line:
        if line.strip():
            try:
                record = _loads(_decode(line, source, number))
            except ValueError:
                raise not_an_export(f"{source} line {number} is not JSON: {source}") from None
            _check_record(record, len(records) + 1, source)
            problem = link_problem(len(records) + 1, record, records[-1] if records else None)
            if problem is not None:
                raise RuleViolation(f"refused: the history is invalid or tampered at event {len(records) + 1}: "
                                    f"{problem} (in {source}; nothing imported)")
            records.append(record)
        line = stream.readline(budget + 1)
        budget -= len(line)
        number += 1
        if budget < 0:
            raise _too_big(source, limit)
    return records


def _decode(data: bytes, source: str, line: int | None = None) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        where = f" (line {line})" if line is not None else ""
        raise not_an_export(f"{source} is not UTF-8 text{where}: it") from None


def parse_export(text: str, source: str = "the file") -> list[dict[str, Any]]:
    """The records of a json or jsonl export; BadInput when `text` is no export at all."""
    stripped = text.strip()
    if not stripped:
        raise not_an_export(f"{source} is empty: it")
    document: Any
    try:
        document = _loads(stripped)
    except ValueError as error:
        if str(error) == _TOO_DEEP:
            raise not_an_export(f"{source} {_TOO_DEEP}: it") from None
        document = None
    if isinstance(document, dict) and not _is_record(document):
        records = _records_of_document(document, source)
        _check_records(records, source)
        _check_head(document, records, source)
        if SIGNATURE_FIELD in document:  # the import finds it on the last record, as in jsonl
            records[-1] = {**records[-1], SIGNATURE_FIELD: document[SIGNATURE_FIELD]}
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
                records.append(_loads(line))
            except ValueError:
                raise not_an_export(f"{source} line {number} is not JSON: {source}") from None
    _check_records(records, source)
    return records


def _is_record(document: dict[str, Any]) -> bool:
    """Whether a JSON object is one event record (a one-line jsonl file), not a json document."""
    return "seq" in document and "hash" in document


def _records_of_document(document: dict[str, Any], source: str) -> list[Any]:
    """The events of a json export document: BadInput unless it is one this scat can read."""
    if document.get("format") != FORMAT_NAME or not isinstance(document.get("events"), list):
        raise not_an_export(source)
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
        raise not_an_export(f"{source} holds no events: it")
    for number, record in enumerate(records, start=1):
        _check_record(record, number, source)


def _check_record(record: Any, number: int, source: str) -> None:
    if not isinstance(record, dict):
        raise not_an_export(f"{source}: record {number} is not an object: {source}")
    name = invalid_field(record)
    if name is not None:
        raise not_an_export(f"{source}: record {number} lacks a valid {name!r}: {source}")
