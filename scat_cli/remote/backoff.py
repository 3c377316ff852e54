"""Trying the server again after a lost connection: capped, jittered exponential backoff within a deadline."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from scat_core.domain.errors import ScatError

FIRST_DELAY = 0.2  # seconds before the first try again
MAX_DELAY = 5.0  # the cap: a server back up is found within about this


def _note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class Backoff:
    """The delays between tries after losses: doubling from FIRST_DELAY up to MAX_DELAY, each a
    random half to whole of it (clients lost together do not all come back at once)."""

    def __init__(self, deadline: float | None, *, jitter: Callable[[], float] = random.random,
                 sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
                 note: Callable[[str], None] = _note) -> None:
        self.deadline, self.jitter, self.sleep, self.clock, self.note = deadline, jitter, sleep, clock, note
        self.tries = 0

    def delay(self) -> float:
        """The wait before the next try."""
        return min(MAX_DELAY, FIRST_DELAY * 2 ** self.tries) * (0.5 + self.jitter() / 2)

    def after(self, lost: ScatError) -> None:
        """Sleep before trying again after `lost`; raise it when the deadline leaves no time to."""
        left = None if self.deadline is None else self.deadline - self.clock()
        if left is not None and left <= 0:
            raise lost
        if self.tries == 0:
            self.note(f"scat: note: {lost}; trying again" + (" until the wait's timeout" if left is not None else ""))
        pause = self.delay()
        self.tries += 1
        self.sleep(pause if left is None else min(pause, left))

    def reset(self) -> None:
        """The server answered: the next loss starts again from FIRST_DELAY."""
        self.tries = 0
