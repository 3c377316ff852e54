"""Sealed snapshots: a snapshot is used only with a MAC that binds it to its head and to this installation.

A snapshot row (game_snapshots) is a cache of the fold of a game's events up to event `seq`
(whose hash is `hash`). Anyone who can write the database can change its state, so it is
sealed when written: an HMAC-SHA256, under a key derived from this installation's private
key (KeyRing.snapshot_key, never in the database), of

    scat-snapshot-seal-v1 \\n JSON [game_id, seq, hash, state_version, rules_version] \\n state

A command uses a snapshot only when its seal verifies (one HMAC, no replay) and its event
`seq` is still in the log with that hash; otherwise it folds the events, and `scat db check`
names the game. A snapshot written before seals (mac NULL) or by another installation's key
is simply not used: the next append writes a sealed one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import TYPE_CHECKING, Any

from scat_core.domain.snapshot import SNAPSHOT_TAG

if TYPE_CHECKING:
    from scat_core.records.keys import KeyRing

PREFIX = b"scat-snapshot-seal-v1\n"


def snapshot_message(game_id: str, seq: int, head_hash: str, state_version: int, rules_version: str,
                     state: str) -> bytes:
    """The exact bytes sealed: the prefix, the head and the tag as one JSON line, then the state."""
    head = json.dumps([game_id, seq, head_hash, state_version, rules_version], separators=(",", ":"))
    return PREFIX + head.encode() + b"\n" + state.encode()


def seal(key: bytes, game_id: str, seq: int, head_hash: str, state_version: int, rules_version: str,
         state: str) -> str:
    """The seal (hex HMAC-SHA256 under `key`) of a snapshot of `game_id` at event `seq` of hash `head_hash`."""
    message = snapshot_message(game_id, seq, head_hash, state_version, rules_version, state)
    return hmac.digest(key, message, hashlib.sha256).hex()


def is_sealed(key: bytes | None, game_id: str, seq: int, head_hash: str, state_version: int, rules_version: str,
              state: str, mac: str | None) -> bool:
    """Whether `mac` is this key's seal of that snapshot (False without a key or a mac)."""
    if key is None or not mac:
        return False
    expected = seal(key, game_id, seq, head_hash, state_version, rules_version, state)
    return hmac.compare_digest(expected, str(mac))


def sealed_snapshot(keys: KeyRing, game_id: str, seq: int, head_hash: str, state: str) -> dict[str, Any]:
    """The snapshot row's values (state_version, rules_version, state, mac) of `state` at event `seq`
    of hash `head_hash`, tagged with this code's rules and sealed with this installation's key."""
    state_version, rules_version = SNAPSHOT_TAG
    key = keys.snapshot_key(create=True)
    assert key is not None  # created if need be (as a head signature's key)
    return {"state_version": state_version, "rules_version": rules_version, "state": state,
            "mac": seal(key, game_id, seq, head_hash, state_version, rules_version, state)}
