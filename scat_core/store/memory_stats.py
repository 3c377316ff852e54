"""The statistics of the in-memory store: the stats projection's fold, and its report computed
as `stats_projection.read_stats` computes it in SQL (the contract tests compare the two)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, MutableMapping, Sequence

from scat_core.domain.stats import GameLine, PlayerLine, player_key
from scat_core.store.records import StoredEvent
from scat_core.store.stats_projection import STATS, LongestGame, StatsFigures, StatsReport
from scat_core.store.tables import STATS_COUNTERS

#: The counters summed per player (and overall, except hands_played: that is counted per game).
_COUNTERS = (*STATS_COUNTERS, "resigned")


def fold_into(lines: MutableMapping[str, GameLine], events: Mapping[str, Sequence[Sequence[object]]],
              unseen: Iterable[tuple[str, int]]) -> int:
    """Fold the `unseen` events (game_id, seq; in commit order) of the projection's types into `lines`."""
    folded = 0
    for game_id, seq in unseen:
        row = events[game_id][seq - 1]
        if row[2] not in STATS.event_types:
            continue
        line = lines.get(game_id) or STATS.empty(game_id)
        if seq <= STATS.last_seq(line):
            continue  # folded in already: an event is never counted twice
        lines[game_id] = STATS.evolve(line, StoredEvent.from_row(row).event, seq)
        folded += 1
    return folded


def _longest(lines: Iterable[GameLine]) -> LongestGame | None:
    """The finished game with the most hands, the earliest id on a tie."""
    best = min((line for line in lines if line.finished), key=lambda line: (-line.hands, line.game_id), default=None)
    return None if best is None else LongestGame(best.game_id, best.hands)


def _count(player: PlayerLine, name: str) -> int:
    return int(player.resigned) if name == "resigned" else int(getattr(player, name))


def _figures(key: str, entries: list[tuple[GameLine, PlayerLine]]) -> StatsFigures:
    finished = [line for line, _ in entries if line.finished]
    return StatsFigures(
        name=min(player.name for _, player in entries), games_played=len(finished),
        games_won=sum(line.winner_key == key for line in finished), games_in_progress=len(entries) - len(finished),
        longest_game=_longest(line for line, _ in entries),
        **{name: sum(_count(player, name) for _, player in entries) for name in _COUNTERS},
    )


def report(lines: Sequence[GameLine], player: str | None = None) -> StatsReport:
    """Figures per player (most games won first) and overall; with `player`, only his line."""
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
        name=None, games_played=finished, games_won=finished, games_in_progress=len(lines) - finished,
        longest_game=_longest(lines),
        **{name: sum(_count(seated, name) for seated in every) for name in _COUNTERS if name != "hands_played"},
        hands_played=sum(line.hands for line in lines),
    )
    return StatsReport(tuple(players), overall)
