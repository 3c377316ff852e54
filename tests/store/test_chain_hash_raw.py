"""The hash chain computed around stored JSON text (commands verify and append with it) is the
documented `chain_hash` exactly, and differs as soon as the text is not the canonical form."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from scat_core.records.stored_log import GENESIS_HASH, canonical_json, chain_hash, chain_hash_raw

TEXT = st.text(max_size=12)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=12)


@given(TEXT, st.integers(1, 10**6), TEXT, st.integers(1, 9), TEXT, st.dictionaries(TEXT, JSON, max_size=5))
def test_the_raw_hash_is_the_documented_hash(game_id: str, seq: int, kind: str, version: int, at: str,
                                             data: dict) -> None:
    envelope = {"game_id": game_id, "seq": seq, "type": kind, "schema_version": version, "recorded_at": at,
                "data": data}
    text = canonical_json(data).decode("utf-8")
    assert chain_hash_raw(GENESIS_HASH, game_id, seq, kind, version, at, text) == chain_hash(GENESIS_HASH, envelope)


def test_a_non_canonical_text_of_the_same_data_does_not_verify() -> None:
    data = {"b": 1, "a": [1, 2]}
    envelope = {"game_id": "g", "seq": 1, "type": "T", "schema_version": 1, "recorded_at": "t", "data": data}
    spaced = json.dumps(data)  # same data, other text: spaces, keys unsorted
    assert chain_hash_raw(GENESIS_HASH, "g", 1, "T", 1, "t", spaced) != chain_hash(GENESIS_HASH, envelope)
