"""Move time (R28) as the service sees it: its clock, and when the player to act's turn began and ends."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from scat_core.domain.move_time import deadline, recorded_time
from scat_core.domain.state import GameState
from scat_core.service.ports import UnitOfWork

#: The service's clock: "now" for every event it appends (recorded_at) and for every claim (R28).
Clock = Callable[[], datetime]


def system_clock() -> datetime:
    """Now, in UTC."""
    return datetime.now(UTC)


def turn_began_at(tx: UnitOfWork, state: GameState) -> datetime | None:
    """The recorded time of the event that made it the player to act's turn (None: nobody is to act)."""
    if state.turn is None or not state.in_hand or state.turn_began < 1:
        return None
    began = tx.load_between(state.game_id, state.turn_began - 1, state.turn_began)
    return recorded_time(began[0].recorded_at) if began else None


def turn_deadline(tx: UnitOfWork, state: GameState) -> datetime | None:
    """When the player to act runs out of time (R28); None without a move time or a player to act."""
    if state.options.move_time is None or state.status != "active":
        return None
    began = turn_began_at(tx, state)
    return None if began is None else deadline(began, state.options.move_time)
