"""Requests before streams: how many requests this process is answering now, so that handing a
move's events to a thousand open streams (fanout.py) lets a move or a health check that arrives
meanwhile go first, for a while, rather than queue behind a thousand socket writes.

Counted in the event loop only (LimitAndLog begins each request, and ends it once answered or once
its event stream starts streaming): no lock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

#: How long a hand-out pauses between looks at whether requests are still being answered.
PAUSE_SECONDS = 0.001


class Answering:
    """How many requests this process is answering (an event stream counts until it streams)."""

    def __init__(self) -> None:
        self.count = 0

    def begin(self) -> Callable[[], None]:
        """One more request being answered; the callable ends it (once, however often it is called)."""
        self.count += 1
        ended = False

        def end() -> None:
            nonlocal ended
            if not ended:
                ended = True
                self.count -= 1

        return end

    async def let_through(self, until: float) -> None:
        """Wait while requests are being answered, but not past the event loop's time `until`."""
        loop = asyncio.get_running_loop()
        while self.count and loop.time() < until:
            await asyncio.sleep(PAUSE_SECONDS)
