"""The statistics every store reports: the figures, the report computed from the per-game lines, one event's fold.

The SQL store computes the same report in SQL (`scat_core/store/sql/stats_projection.py`);
the contract tests compare the two.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scat_core.domain.events import Event
from scat_core.domain.stats import GameLine, PlayerLine, changed, evolve_line, player_key

#: The counters of a player's line in one game (stats_players columns besides the keys).
STATS_COUNTERS = (
    "hands_played", "hands_lost", "lives_lost", "knocks", "knocks_saved", "knocks_lost_one",
    "knocks_lost_two", "throw_downs", "thirty_ones", "showdowns", "showdown_total",
)

#: The counters summed per player (and overall, except hands_played: that is counted per game).
_COUNTERS = (*STATS_COUNTERS, "resigned", "timeouts")


def fold_line(line: GameLine, event: Event, seq: int, recorded_at: str = "") -> GameLine:
    """`line` with `event` (event `seq` of its game, recorded at `recorded_at`) folded in, `seq`
    recorded as its checkpoint, and a win's time as the game's end."""
    folded = changed(evolve_line(line, event), last_seq=seq)
    return changed(folded, ended_at=recorded_at) if event.type == "GameWon" else folded


@dataclass(frozen=True)
class LongestGame:
    """The finished game with the most hands (the earliest id on a tie)."""

    game_id: str
    hands: int


@dataclass(frozen=True)
class StatsFigures:
    """The figures of one player, or of everyone together (`name` None)."""

    name: str | None
    games_played: int  # finished games
    games_won: int
    games_in_progress: int
    hands_played: int
    hands_lost: int
    lives_lost: int
    knocks: int
    knocks_saved: int
    knocks_lost_one: int
    knocks_lost_two: int
    throw_downs: int
    thirty_ones: int
    showdowns: int
    showdown_total: int
    resigned: int  # games resigned by choice (R27)
    timeouts: int  # games left out of move time, on a claim of the turn (R28)
    longest_game: LongestGame | None

    @property
    def average_showdown_value(self) -> float | None:
        """The mean value of the hands shown at showdowns, or None without any."""
        return None if self.showdowns == 0 else self.showdown_total / self.showdowns


@dataclass(frozen=True)
class StatsReport:
    """Figures per player (most games won first) and overall."""

    players: tuple[StatsFigures, ...]
    overall: StatsFigures


def _longest(lines: Iterable[GameLine]) -> LongestGame | None:
    """The finished game with the most hands, the earliest id on a tie."""
    best = min((line for line in lines if line.finished), key=lambda line: (-line.hands, line.game_id), default=None)
    return None if best is None else LongestGame(best.game_id, best.hands)


def _count(player: PlayerLine, name: str) -> int:
    if name == "timeouts":
        return int(player.timed_out)
    return int(player.resigned) if name == "resigned" else int(getattr(player, name))


def _figures(key: str, entries: list[tuple[GameLine, PlayerLine]]) -> StatsFigures:
    finished = [line for line, _ in entries if line.finished]
    return StatsFigures(
        name=min(player.name for _, player in entries), games_played=len(finished),
        games_won=sum(line.winner_key == key for line in finished), games_in_progress=len(entries) - len(finished),
        longest_game=_longest(line for line, _ in entries),
        **{name: sum(_count(player, name) for _, player in entries) for name in _COUNTERS},
    )


def report(every_line: Sequence[GameLine], player: str | None = None) -> StatsReport:
    """Figures per player (most games won first) and overall; with `player`, only his line."""
    lines = [line for line in every_line if not line.cancelled]  # a cancelled game counts for nothing
    per_key: dict[str, list[tuple[GameLine, PlayerLine]]] = {}
    for line in lines:
        for seated in line.players:
            per_key.setdefault(seated.key, []).append((line, seated))
    wanted = None if player is None else player_key(player)
    players = [_figures(key, entries) for key, entries in per_key.items() if wanted is None or key == wanted]
    players.sort(key=lambda f: (-f.games_won, -f.games_played, f.name or ""))
    finished = sum(line.finished for line in lines)
    every = [seated for line in lines for seated in line.players]
    overall = StatsFigures(
        name=None, games_played=finished, games_in_progress=len(lines) - finished,
        games_won=sum(line.finished and line.winner_key is not None for line in lines),  # abandoned: no winner
        longest_game=_longest(lines),
        **{name: sum(_count(seated, name) for seated in every) for name in _COUNTERS if name != "hands_played"},
        hands_played=sum(line.hands for line in lines),
    )
    return StatsReport(tuple(players), overall)
