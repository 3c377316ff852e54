"""Loading a game for a command: the log is checked against the head the games row recorded.

A command appends only after the stored log is found to end exactly where the games read
model's head (seq, hash) says, and every event it reads chains to the one before it; any
difference is damage done outside scat (a deleted tail, a lowered or removed games row, an
edited event) and raises HistoryDamaged, so that it is refused instead of healed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scat_core.domain.errors import Hint, NotFound
from scat_core.records.errors import HistoryDamaged
from scat_core.records.hashing import GENESIS_HASH, chain_hash_raw
from scat_core.records.stored import GameSecret, StoredEvent


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
    hash and state proved nothing (its seal did not verify, records/seals.py)."""
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
