"""A command's load in one round trip of SQL: the games row, snapshot, seed, events and head signature.

A snapshot whose seal does not verify (records/signing.py) costs a second read, of every event.

The rows are checked by `scat_core.records.stored_log.verified_load`, as the memory store's are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy.engine import Connection

from scat_core.domain.snapshot import SNAPSHOT_TAG
from scat_core.records.signing import HeadSignature, KeyRing, StoredSignature, is_sealed
from scat_core.records.stored_log import CommandLoad, verified_load, without_snapshot
from scat_core.store.sql.driver_sql import fetch_all, named


def _usable(snapshot: str) -> str:
    """SQL: the snapshot (of that alias) was folded by this state schema and these rules."""
    return f"{snapshot}.state_version = %(state_version)s AND {snapshot}.rules_version = %(rules_version)s"


# One round trip: the games row, its snapshot, the kept seed, the events from the snapshot's
# own event on (the whole log when the snapshot is missing or of other rules) and, last, the
# head signature (which the append checks before signing over it).
#
# The events are read from the snapshot's event by an index range scan whatever the database
# knows of the game, so that a command costs the same on a long game as on a short one (#13):
# the first event wanted is a subquery computed once (so PostgreSQL puts it in the index
# condition, where a join filter would read every event of the game and drop all but the
# last), and the events' game is matched to an expression (`|| ''`) so that its estimate of
# the rows is the same for every game (from the number of games), not this game's share of the
# log (the cached plan then fits every game: no re-planning at every command).
#: The head signature's columns, read by these names: `_command_load` finds their place once.
_SIGNATURE_COLUMNS = ("hs.seq", "hs.hash", "hs.key_id", "hs.public_key", "hs.signature")
_COLUMNS = (
    "g.head_seq", "g.head_hash", "s.seq", "s.hash", f"CASE WHEN {_usable('s')} THEN s.state END",
    "sec.seed", "sec.salt",
    "e.game_id", "e.seq", "e.type", "e.schema_version", "e.recorded_at", "e.data", "e.prev_hash", "e.hash",
    *_SIGNATURE_COLUMNS, "s.mac",
)


def _command_load(columns: Sequence[str]) -> tuple[str, slice]:
    """The statement selecting `columns`, and the slice of its rows that holds `_SIGNATURE_COLUMNS`."""
    at = list(columns).index(_SIGNATURE_COLUMNS[0])
    where = slice(at, at + len(_SIGNATURE_COLUMNS))
    if tuple(columns[where]) != _SIGNATURE_COLUMNS:
        raise ValueError(f"the signature's columns must be selected together, in the order {_SIGNATURE_COLUMNS}")
    return (
        f"SELECT {', '.join(columns)} "
        "FROM games g "
        "LEFT JOIN game_snapshots s ON s.game_id = g.game_id "
        "LEFT JOIN game_secrets sec ON sec.game_id = g.game_id "
        "LEFT JOIN head_signatures hs ON hs.game_id = g.game_id AND hs.kind = 'head' "
        "LEFT JOIN events e ON e.game_id = g.game_id || '' AND e.seq >= COALESCE((SELECT CASE WHEN "
        f"{_usable('f')} THEN f.seq END "
        "FROM game_snapshots f WHERE f.game_id = %(game_id)s), 1) "
        "WHERE g.game_id = %(game_id)s ORDER BY e.seq"
    ), where


COMMAND_LOAD, _SIGNATURE = _command_load(_COLUMNS)
_MAC = len(_COLUMNS) - 1
_ANY_EVENT = "SELECT count(*) FROM events WHERE game_id = %(game_id)s"
_SNAPSHOT_ROW = "SELECT state_version, rules_version, state, mac FROM game_snapshots WHERE game_id = %(game_id)s"


def load_for_command(conn: Connection, game_id: str, use_snapshot: bool = True, keys: KeyRing | None = None,
                     ) -> tuple[CommandLoad, StoredSignature | None]:
    """The game as a command needs it, after checking its log against the recorded head, and
    the head's stored signature (None: unsigned), read in the same query.

    The snapshot is used (its state, and its head as evidence) only when its seal verifies
    under `keys` (records/signing.py: one HMAC); otherwise the events are read and folded from
    the first, as if there were none.
    HistoryDamaged unless the events read chain unbroken from the snapshot's event (itself
    re-hashed and equal to the snapshot's head) and the last is the games row's head;
    NotFound when there is no such game at all.
    """
    key = keys.snapshot_key() if keys is not None else None
    rows = _fetch(conn, game_id, use_snapshot)
    if rows and rows[0][4] is not None:  # a snapshot of these rules: used only if sealed by this key
        snap_seq, snap_hash, state = rows[0][2:5]
        if not is_sealed(key, game_id, int(snap_seq), str(snap_hash), *SNAPSHOT_TAG, str(state), rows[0][_MAC]):
            rows = without_snapshot(_fetch(conn, game_id, use_snapshot=False))
    elif rows and rows[0][2] is not None:  # its head is evidence only if its seal verifies (read apart)
        kept = fetch_all(conn, named(conn, _SNAPSHOT_ROW), {"game_id": game_id})
        if not kept or not is_sealed(key, game_id, int(rows[0][2]), str(rows[0][3]), int(kept[0][0]),
                                     str(kept[0][1]), str(kept[0][2]), kept[0][3]):
            rows = without_snapshot(rows)
    logged = 0 if rows else int(fetch_all(conn, named(conn, _ANY_EVENT), {"game_id": game_id})[0][0])
    load = verified_load(game_id, rows, logged)
    seq, head_hash, key_id, public_key, signed = rows[0][_SIGNATURE]
    signature = None if seq is None else StoredSignature(
        int(seq), str(head_hash), HeadSignature(str(key_id), str(public_key), str(signed)))
    return replace(load, head_signed=signature is not None), signature


def _fetch(conn: Connection, game_id: str, use_snapshot: bool) -> Sequence[Any]:
    """The rows of `COMMAND_LOAD`, from the snapshot's event on when one of these rules is kept
    (and `use_snapshot`), else from the first event."""
    state_version, rules_version = SNAPSHOT_TAG if use_snapshot else (-1, "")
    # On the driver's own cursor (driver_sql.py): SQLAlchemy's Row objects and execution context
    # cost as much as the fetch.
    return fetch_all(conn, named(conn, COMMAND_LOAD),
                     {"game_id": game_id, "state_version": state_version, "rules_version": rules_version})
