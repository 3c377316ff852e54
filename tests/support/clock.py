"""A clock the tests move by hand (R28): the service's `clock`, never the wall's after it starts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class HandClock:
    """Now is the wall-clock time it was made, and moves only when `advance` moves it."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move now forward by `seconds`."""
        self.now += timedelta(seconds=seconds)
