"""The statistics every store reports (figures, the report from per-game lines, one event's fold) and ratings.

The SQL store computes the same report in SQL (`scat_core/store/sql/projections.py`); the
contract tests compare the two. Ratings are Weng-Lin (`openskill`'s Plackett-Luce) folded over
the games played out in the order they were won, so a rebuild gives the same figures to the
last digit: a game's placing is the order its players went out, those out in the same hand tie
(R25, R27, R28); a cancelled, abandoned or running game counts for nothing; the rating shown
is the conservative ordinal (mu - 3 sigma). Bots are rated, never in a human's row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

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


def won(line: GameLine) -> bool:
    """Whether a game's line is taken by the ratings' fold: won (played out) and not cancelled. One
    with fewer than two players is taken and counts for nothing (`rated`)."""
    return line.finished and line.winner_key is not None and not line.cancelled


def rated(line: GameLine) -> bool:
    """Whether a game's line counts for ratings: won (played out), not cancelled, two players or more."""
    return won(line) and len(line.players) >= 2


def won_order(line: GameLine) -> tuple[str, str]:
    """Where a won game comes in the ratings' fold: the order they were won, by id on a tie."""
    return (line.ended_at, line.game_id)


def row_key(player: PlayerLine) -> str:
    """A player's row: a bot never shares one with a human of the same name."""
    return ("bot:" if player.is_bot else "human:") + player.key


def rows_named(names: Iterable[str]) -> set[str]:
    """The rows of the players of these names (any case): each as a human and as a bot."""
    return {kind + player_key(name) for name in names for kind in ("human:", "bot:")}


def placing(line: GameLine) -> list[int]:
    """Each seated player's rank (1: the winner), players out in the same hand tied."""
    def standing(player: PlayerLine) -> float:
        return float("inf") if player.key == line.winner_key else player.out_in_hand

    standings = [standing(player) for player in line.players]
    return [1 + sum(other > mine for other in standings) for mine in standings]


@dataclass(frozen=True)
class RatedRow:
    """A player's row in the ratings' fold: his last name, whether a bot, the model's mu and sigma
    after his games taken so far, and how many."""

    name: str
    is_bot: bool
    mu: float
    sigma: float
    games: int


@dataclass(frozen=True)
class RatingsFold:
    """The ratings folded over the won games taken so far, in the order they were won: the rows by
    key (`row_key`: a bot's is never a human's), the last game taken (`through`, its `won_order`) and
    how many games were taken up to it (`taken`). A store keeps it and folds in only the games won
    after `through`; a game won earlier that comes later (an import) shows as more won games up to
    `through` than `taken`, and the fold is made anew."""

    rows: Mapping[str, RatedRow] = field(default_factory=dict)
    through: tuple[str, str] | None = None
    taken: int = 0

    def after(self, line: GameLine) -> bool:
        """Whether `line` comes after the last game taken (and may be folded into this fold)."""
        return self.through is None or won_order(line) > self.through


def fold_ratings(fold: RatingsFold, lines: Iterable[GameLine]) -> RatingsFold:
    """`fold` with the won games of `lines` taken, in the order they were won, each after
    `fold.through` (ValueError otherwise: the fold must be made anew). A row's figures after a
    game depend only on the rows' mu and sigma before it, so folding in steps gives the same
    figures, to the last digit, as folding once."""
    taken_now = sorted((line for line in lines if won(line)), key=won_order)
    if not taken_now:
        return fold
    # start-up time: openskill loads only when a game is to be rated (not for the ratings kept)
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rows, through, taken = dict(fold.rows), fold.through, fold.taken
    for line in taken_now:
        if through is not None and won_order(line) <= through:
            raise ValueError(f"game {line.game_id} was won before the last game the ratings took: fold them anew")
        through, taken = won_order(line), taken + 1
        if not rated(line):
            continue
        keys = [row_key(player) for player in line.players]
        teams = [[model.rating(mu=rows[key].mu, sigma=rows[key].sigma, name=key) if key in rows
                  else model.rating(name=key)] for key in keys]
        ranks = [float(rank) for rank in placing(line)]
        for team, key, player in zip(model.rate(teams, ranks=ranks), keys, line.players, strict=True):
            before = rows.get(key)
            rows[key] = RatedRow(player.name, player.is_bot, float(team[0].mu), float(team[0].sigma),
                                 (before.games if before is not None else 0) + 1)
    return RatingsFold(rows, through, taken)


def rating_rows(fold: RatingsFold, only: set[str] | None = None) -> list[PlayerRating]:
    """Every rated player's rating in `fold` (those of the rows `only`, if given), highest first (the
    rating shown: mu - 3 sigma)."""
    found = [PlayerRating(row.name, row.is_bot, round(row.mu - 3 * row.sigma, 2), round(row.mu, 4),
                          round(row.sigma, 4), row.games) for key, row in fold.rows.items()
             if only is None or key in only]
    return sorted(found, key=lambda found_: (-found_.rating, found_.name.casefold(), found_.is_bot))


def ratings(lines: Iterable[GameLine]) -> list[PlayerRating]:
    """Every rated player's rating over the games of `lines` played out, highest first."""
    return rating_rows(fold_ratings(RatingsFold(), lines))
