"""The states of the snapshots this process wrote or read, so that it need not decode one twice.

A command plays on the snapshot the last append wrote; when that append was this process's
(the usual case: one player's commands, the bots' replies), the state it encoded is still in
memory; so is the state of a snapshot it decoded. It is kept under (game, seq, hash of event
seq), the head the snapshot records, and a command uses it only when the snapshot it read
from the database, in the same query as the events, records that very head: the events read
chain to that hash, and the hash chains every event before it, so those events are exactly
the ones the state was folded from (or, decoded, trusted for). No other condition of the
snapshot's use changes (records/verified_load.py: its rules tag, its event re-hashed and chained to the
games row's head; records/seals.py: its seal, checked by the store before the snapshot is handed
over at all, so a row edited under a kept head is not even read).
Bounded, oldest forgotten first; lock-free (BoundedMemo).
"""

from __future__ import annotations

from scat_core.domain.state import GameState
from scat_core.records.memo import BoundedMemo

FOLDED_KEPT = 1024
_states: BoundedMemo[tuple[str, int, str], GameState] = BoundedMemo(FOLDED_KEPT)


def remember(state: GameState, head_hash: str) -> None:
    """Keep `state`, the state of a snapshot at event `state.version`, whose hash is `head_hash`."""
    _states.remember((state.game_id, state.version, head_hash), state)


def recall(game_id: str, seq: int, head_hash: str) -> GameState | None:
    """The state kept for the snapshot of `game_id` at event `seq` of hash `head_hash`, or None."""
    return _states.get((game_id, seq, head_hash))


def forget_all() -> None:
    """Forget every state kept (the next command of each game decodes its snapshot again)."""
    _states.clear()
