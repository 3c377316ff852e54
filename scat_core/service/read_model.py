"""The games read model as the service computes it from a game's state."""

from __future__ import annotations

from scat_core.domain import snapshot
from scat_core.domain.state import GameState
from scat_core.records.games import GameSummary


def summarize(state: GameState, move_deadline: str | None = None) -> GameSummary:
    """The games read-model row for `state`, whose player to act runs out of time at `move_deadline` (R28)."""
    return GameSummary(
        status=state.status if state.status in ("pending", "finished", "cancelled") else "active",
        players=tuple(player.name for player in state.players),
        bots=tuple(player.name for player in state.players if player.is_bot),
        turn=state.name(state.turn),
        hand_number=state.hand_number,
        dealer=state.name(state.dealer) if state.dealer >= 0 else None,
        winner=state.winner,
        protected=state.protected,
        move_deadline=move_deadline,
        awaiting=state.awaiting,
        open_seats=state.open_seats,
        rematch_of=state.rematch_of,
    )


def snapshot_json(state: GameState) -> str | None:
    """The snapshot of `state` to keep beside the read model; None (no snapshot: the events are
    folded instead) if it holds a value a snapshot cannot (a property test keeps that from happening)."""
    try:
        return snapshot.encode(state)
    except TypeError:
        return None
