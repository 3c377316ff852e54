"""Move time (R28) as the service sees it: its clock, and when the player to act's turn began and ends."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from scat_core.domain.options import deadline, recorded_text, recorded_time
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


def deadline_after(tx: UnitOfWork, before: GameState, after: GameState, recorded_at: str) -> str | None:
    """The games read model's move deadline once the events from `before` to `after` are
    recorded at `recorded_at`: counted from then if they began the turn, else as it was; for a
    game waiting for its players, when its invitations expire (counted from its creation)."""
    if after.status == "pending" and after.expires is not None:
        created = recorded_at if before.version == 0 else invitations_sent(tx, after)
        return None if created is None else recorded_text(recorded_time(created) + timedelta(seconds=after.expires))
    if after.options.move_time is None or after.status != "active" or after.turn is None or not after.in_hand:
        return None
    if after.turn_began > before.version:
        return recorded_text(deadline(recorded_time(recorded_at), after.options.move_time))
    ends = turn_deadline(tx, after)
    return None if ends is None else recorded_text(ends)


def invitations_sent(tx: UnitOfWork, state: GameState) -> str | None:
    """When the game of `state` was created (its invitations sent): its first event's recorded time."""
    first = tx.load_between(state.game_id, 0, 1)
    return first[0].recorded_at if first else None


def invitations_expire(tx: UnitOfWork, state: GameState) -> datetime | None:
    """When a pending game's invitations expire (None: it is no such game)."""
    if state.status != "pending" or state.expires is None:
        return None
    sent = invitations_sent(tx, state)
    return None if sent is None else recorded_time(sent) + timedelta(seconds=state.expires)


def seconds_left(ends: datetime, now: datetime) -> int:
    """Whole seconds left before `ends` at `now`, rounded up: 0 once the time ran out (R28)."""
    return max(0, math.ceil((ends - now).total_seconds()))


def move_clock(ends: datetime | str | None, now: datetime) -> tuple[str | None, int | None]:
    """(the deadline as recorded_at text, the seconds left at `now`) of a turn; (None, None) without one."""
    if ends is None:
        return None, None
    moment = recorded_time(ends) if isinstance(ends, str) else ends
    return recorded_text(moment), seconds_left(moment, now)
