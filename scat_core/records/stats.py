"""The statistics every store reports (figures, the report from per-game lines, one event's fold) and ratings.

The SQL store computes the same report in SQL (`scat_core/store/sql/projections.py`); the
contract tests compare the two. Ratings are Weng-Lin (`openskill`'s Plackett-Luce) folded over
the games played out in the order they were won, so a rebuild gives the same figures to the
last digit: a game's placing is the order its players went out, those out in the same hand tie
(R25, R27, R28); a cancelled, abandoned or running game counts for nothing; the rating shown
is the conservative ordinal (mu - 3 sigma). Bots are rated, never in a human's row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scat_core.domain.events import Event
from scat_core.domain.stats import STATS_COUNTERS, GameLine, PlayerLine, changed, evolve_line, player_key

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

@dataclass(frozen=True)
class PlayerRating:
    """One player's rating: `rating` (the ordinal shown), the model's mu and sigma, his games rated."""

    name: str
    is_bot: bool
    rating: float
    mu: float
    sigma: float
    games: int


def rated(line: GameLine) -> bool:
    """Whether a game's line counts for ratings: won (played out), not cancelled, two players or more."""
    return line.finished and line.winner_key is not None and not line.cancelled and len(line.players) >= 2


def _key(player: PlayerLine) -> str:
    """A player's row: a bot never shares one with a human of the same name."""
    return ("bot:" if player.is_bot else "human:") + player.key


def placing(line: GameLine) -> list[int]:
    """Each seated player's rank (1: the winner), players out in the same hand tied."""
    def standing(player: PlayerLine) -> float:
        return float("inf") if player.key == line.winner_key else player.out_in_hand

    standings = [standing(player) for player in line.players]
    return [1 + sum(other > mine for other in standings) for mine in standings]


def ratings(lines: Iterable[GameLine]) -> list[PlayerRating]:
    """Every rated player's rating over the games of `lines` played out, highest first."""
    # start-up time: openskill loads only when ratings are asked for
    from openskill.models import PlackettLuce, PlackettLuceRating

    model = PlackettLuce()
    table: dict[str, PlackettLuceRating] = {}
    names: dict[str, tuple[str, bool]] = {}
    counted: dict[str, int] = {}
    for line in sorted((line for line in lines if rated(line)), key=lambda line: (line.ended_at, line.game_id)):
        keys = [_key(player) for player in line.players]
        teams = [[table.get(key) or model.rating(name=key)] for key in keys]
        ranks = [float(rank) for rank in placing(line)]
        for team, key, player in zip(model.rate(teams, ranks=ranks), keys, line.players, strict=True):
            table[key] = team[0]
            names[key] = (player.name, player.is_bot)
            counted[key] = counted.get(key, 0) + 1
    found = []
    for key, rating in table.items():
        name, is_bot = names[key]
        mu, sigma = float(rating.mu), float(rating.sigma)
        found.append(PlayerRating(name, is_bot, round(mu - 3 * sigma, 2), round(mu, 4), round(sigma, 4), counted[key]))
    return sorted(found, key=lambda found_: (-found_.rating, found_.name.casefold(), found_.is_bot))
