"""The states this process last played or read at a game's head, so that a command need not fold again.

A command plays on the state at the head the last append wrote; when that append was this
process's (the usual case: one player's commands, the bots' replies), the state it folded is
still in memory; so is the state a load of this process folded. It is kept under (game, seq,
hash of event seq), the head, and a command uses it only when the log it read from the
database, in the same query as the games row, ends at that very head: the events read chain
to that hash (records/verified_load.py), and the hash chains every event before it, so those
events are exactly the ones the state was folded from. No other check of a command's load
changes (its events re-hashed and chained to the games row's head, the head's signature).

Beside it, the event of the snapshot row each game had when this process last loaded it (0:
none usable) or last wrote one, from which the service decides when a new snapshot is due
(loading.snapshot_due): a hint, never evidence; a game it does not know gets one.
Bounded, oldest forgotten first; lock-free (BoundedMemo).
"""

from __future__ import annotations

from scat_core.domain.state import GameState
from scat_core.records.memo import BoundedMemo

FOLDED_KEPT = 1024
_states: BoundedMemo[tuple[str, int, str], GameState] = BoundedMemo(FOLDED_KEPT)
_snapshots: BoundedMemo[str, int] = BoundedMemo(FOLDED_KEPT)


def remember(state: GameState, head_hash: str) -> None:
    """Keep `state`, the state of its game at event `state.version`, whose hash is `head_hash`."""
    _states.remember((state.game_id, state.version, head_hash), state)


def recall(game_id: str, seq: int, head_hash: str) -> GameState | None:
    """The state kept for `game_id` at event `seq` of hash `head_hash`, or None."""
    return _states.get((game_id, seq, head_hash))


def saw_snapshot(game_id: str, seq: int) -> None:
    """Note that the usable snapshot of `game_id` is at event `seq` (0: it has none usable)."""
    _snapshots.remember(game_id, seq)


def snapshot_seen(game_id: str) -> int | None:
    """The event of the snapshot this process last saw of `game_id` (0: none usable), None if unknown."""
    return _snapshots.get(game_id)


def forget_all() -> None:
    """Forget every state and snapshot kept (the next command of each game folds its snapshot again)."""
    _states.clear()
    _snapshots.clear()
