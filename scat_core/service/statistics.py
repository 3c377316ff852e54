"""The statistics use case of the game service: the stats projection, caught up, then read.

The projection modules are imported on first use: other commands never load them.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import timedelta
from typing import TYPE_CHECKING

from scat_core.domain.errors import Hint, NotFound
from scat_core.domain.options import recorded_text
from scat_core.records.errors import DatabaseReadOnly
from scat_core.service.loading import Clock, system_clock
from scat_core.service.ports import Store
from scat_core.service.values import Rating, Ratings

if TYPE_CHECKING:
    from scat_core.records.stats import StatsReport
    from scat_core.service.values import Ratings


#: Games won longer ago than this are settled: the store may keep their ratings' fold (a game
#: committed a moment after another process's later win would otherwise come in late).
SETTLED = timedelta(minutes=1)


class Statistics:
    """Statistics over every game in one store."""

    def __init__(self, store: Store, clock: Clock = system_clock) -> None:
        self.store, self.clock = store, clock

    def stats(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """Figures per player and overall, caught up with the log first (rebuilt from the
        events with `rebuild`); with `player`, his line only (NotFound if he never played).
        On a read-only database the events not yet counted are folded in memory instead."""
        if player is not None and not self._has_played(player):  # refused before any write
            raise NotFound(f"no player {player!r} has played in this database", player=player, hint=Hint.LIST_PLAYERS)
        try:
            self.catch_up_stats(rebuild=rebuild)
        except DatabaseReadOnly:  # the same figures, folded in memory: nothing is written
            return self.store.read_stats_unsaved(player, rebuild=rebuild)
        return self.store.read_stats(player)

    def _has_played(self, player: str) -> bool:
        """Whether `player` has a line in the stats once caught up: read, never written (a refused
        command writes nothing). The rows first; only a name they lack costs the in-memory fold."""
        return bool(self.store.read_stats(player).players or self.store.read_stats_unsaved(player).players)

    def ratings(self, player: str | None = None, rebuild: bool = False) -> Ratings:
        """Every player's rating over the games played out (records/stats.py), the statistics caught
        up first (rebuilt with `rebuild`); with `player`, his rows only (NotFound if he has none)."""
        rated = self._rated(None if player is None else [player], rebuild)
        if player is not None and not rated.players:
            raise NotFound(f"no player {player!r} has a rated game here (a game played out)", player=player,
                           hint=Hint.LIST_PLAYERS)
        return rated

    def ratings_of(self, players: Collection[str]) -> Ratings:
        """The ratings of these players (names, any case; as humans and as bots), as `ratings` has
        them: only their rows are read (a lobby page's)."""
        return self._rated(players, False)

    def _rated(self, players: Collection[str] | None, rebuild: bool) -> Ratings:
        """The store's ratings (of `players` only, if given), the statistics caught up first."""
        try:
            self.catch_up_stats(rebuild=rebuild)
        except DatabaseReadOnly:  # the rows as they are: a read-only database's ratings may lag its games
            pass
        rows = self.store.ratings(recorded_text(self.clock() - SETTLED), rebuild=rebuild, players=players)
        return Ratings(players=[Rating(name=row.name, is_bot=row.is_bot, rating=row.rating, mu=row.mu,
                                       sigma=row.sigma, games=row.games) for row in rows])

    def catch_up_stats(self, rebuild: bool = False) -> int:
        """Fold the events the stats have not seen yet into them; return how many were folded.

        Called before every read: appends never wait for the projection (docs/audit.md, "Projections").
        """
        return self.store.catch_up_stats(rebuild=rebuild)
