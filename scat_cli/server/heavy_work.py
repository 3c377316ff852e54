"""Each caller's share of a server's heavy work: a page of `audit` or `export` over every game,
`stats`, an `import`; and, in buckets of their own, of game creation (`new_games`: a game is cheap,
but thousands of them seating other accounts are not).

A token bucket per caller (his account and his address, each paying; his address alone when the
request is signed by none):
a request costs what it asks for (the games of a page, a fixed cost for stats and imports),
the bucket holds BURST units and refills RATE a second. A request the bucket cannot pay is
refused with `Throttled` (HTTP 429 and `Retry-After`: when the bucket will hold its cost),
and the `--server` client waits that long and asks again, so a long `audit --all` slows to
its share instead of failing; one caller cannot keep the workers from everyone else.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence

from scat_core.domain.errors import Throttled

RATE = 20.0  # units a second: about what one worker audits (a unit is one game)
BURST = 500.0  # units a caller may spend at once: ten pages of 50 games
STATS_COST = 50  # `stats` over every game, read from its projection
IMPORT_COST = 50  # an import, up to the body's 8 MiB
MAX_CALLERS = 10_000  # buckets kept; full ones are dropped first when there are more


class HeavyWork:
    """The buckets of the callers of one server process."""

    def __init__(self, rate: float = RATE, burst: float = BURST,
                 clock: Callable[[], float] = time.monotonic,
                 refusal: Callable[[int], Throttled] = Throttled.waiting) -> None:
        self.rate, self.burst, self.clock, self.refusal = rate, burst, clock, refusal
        self._buckets: dict[str, tuple[float, float]] = {}  # caller: (units, when counted)
        self._lock = threading.Lock()

    def take(self, caller: str | Sequence[str], cost: float) -> None:
        """Spend `cost` units of `caller`'s share (of each of the callers given: an account and its
        address, so that a thousand accounts of one address share one address's share); Throttled
        (with the seconds to wait) when one of them has not got them, nothing spent then."""
        callers = [caller] if isinstance(caller, str) else list(caller)
        cost = min(float(cost), self.burst)  # the largest request is always possible, on a full bucket
        with self._lock:
            now = self.clock()
            held = {}
            for one in callers:
                units, then = self._buckets.get(one, (self.burst, now))
                held[one] = min(self.burst, units + (now - then) * self.rate)
            short = max(cost - units for units in held.values())
            if short > 0:
                for one, units in held.items():
                    self._buckets[one] = (units, now)
                raise self.refusal(max(1, math.ceil(short / self.rate)))
            for one, units in held.items():
                self._buckets[one] = (units - cost, now)
            if len(self._buckets) > MAX_CALLERS:
                self._forget_full(now)

    def _forget_full(self, now: float) -> None:
        """Drop the buckets that have filled up again (a caller not seen lately starts full anyway)."""
        full = [caller for caller, (units, then) in self._buckets.items()
                if units + (now - then) * self.rate >= self.burst]
        for caller in full:
            del self._buckets[caller]


#: How many games one caller (an account, or an address for an unsigned request) may create an hour
#: (`scat serve --new-games-per-hour`), and at once: a burst of creations holds the database's writes
#: (SQLite has one writer) long enough to be felt by every player's move.
NEW_GAMES_PER_HOUR = 20
NEW_GAMES_AT_ONCE = 5


def new_games(per_hour: int = NEW_GAMES_PER_HOUR, clock: Callable[[], float] = time.monotonic) -> HeavyWork:
    """The buckets of game creation: NEW_GAMES_AT_ONCE games at once (or `per_hour`, if fewer), and one
    more every 3600/`per_hour` s."""
    return HeavyWork(rate=per_hour / 3600.0, burst=float(min(per_hour, NEW_GAMES_AT_ONCE)), clock=clock,
                     refusal=lambda wait: Throttled.creating(wait, per_hour))
