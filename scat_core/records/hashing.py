"""The hash chain over stored events: a documented canonical form any tool can verify.

hash = SHA-256(prev_hash as ASCII hex + canonical JSON of the envelope), where the envelope
is {"game_id", "seq", "type", "schema_version", "recorded_at", "data"} and canonical JSON
means sorted keys, no spaces (separators "," and ":"), non-ASCII kept, UTF-8 encoded.
The first event of a game has prev_hash = GENESIS_HASH (64 zeros).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

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
