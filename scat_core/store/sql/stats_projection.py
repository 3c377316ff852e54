"""The statistics projection: the pure `scat_core.domain.stats` fold kept in two tables.

`stats_games` holds one row per game (its finished hands, its end, the knock of the hand
under way), `stats_players` one row per seated player and game. Figures per player and
overall are sums over those rows, grouped by the player's key (his name, ignoring case).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, ClassVar

from sqlalchemy import Row, case, func, select
from sqlalchemy.engine import Connection

from scat_core.domain.events import Event
from scat_core.domain.stats import HANDLED_TYPES, GameLine, PlayerLine, player_key
from scat_core.records.stats import LongestGame, StatsFigures, StatsReport, fold_line, report
from scat_core.store.sql import tables as t
from scat_core.store.sql.projections import GameProjection

_CHUNK = 500  # rows or ids per statement (SQLite's variable limit)


class StatsProjection(GameProjection[GameLine]):
    """Games played and won, hands lost, knocks, 31s and showdowns, per player and game."""

    name: ClassVar[str] = "stats"
    event_types: ClassVar[frozenset[str]] = HANDLED_TYPES

    def empty(self, game_id: str) -> GameLine:
        """An empty line for `game_id`."""
        return GameLine(game_id)

    def evolve(self, state: GameLine, event: Event, seq: int, recorded_at: str) -> GameLine:
        """The pure fold, recording `seq` as the game's checkpoint."""
        return fold_line(state, event, seq, recorded_at)

    def last_seq(self, state: GameLine) -> int:
        """The game's checkpoint."""
        return state.last_seq

    def load(self, conn: Connection, game_ids: Sequence[str]) -> dict[str, GameLine]:
        """The stored lines of those of `game_ids` that have one."""
        g, p = t.stats_games, t.stats_players
        lines: dict[str, GameLine] = {}
        players: dict[str, list[PlayerLine]] = {}
        for start in range(0, len(game_ids), _CHUNK):
            chunk = list(game_ids[start : start + _CHUNK])
            for row in conn.execute(select(g).where(g.c.game_id.in_(chunk))):
                m = row._mapping
                lines[m["game_id"]] = GameLine(
                    game_id=m["game_id"], last_seq=m["last_seq"], finished=bool(m["finished"]),
                    winner_key=m["winner_key"], hands=m["hands"], knocker_key=m["knocker_key"],
                    cancelled=bool(m["cancelled"]), ended_at=m["ended_at"] or "",
                )
            for row in conn.execute(select(p).where(p.c.game_id.in_(chunk)).order_by(p.c.game_id, p.c.seat)):
                m = row._mapping
                players.setdefault(m["game_id"], []).append(
                    PlayerLine(
                        seat=m["seat"], key=m["player_key"], name=m["name"], out=bool(m["out"]),
                        resigned=bool(m["resigned"]), timed_out=bool(m["timed_out"]), is_bot=bool(m["is_bot"]),
                        out_in_hand=m["out_in_hand"],
                        **{k: m[k] for k in t.STATS_COUNTERS},
                    )
                )
        return {gid: replace(line, players=tuple(players.get(gid, ()))) for gid, line in lines.items()}

    def save(self, conn: Connection, states: Sequence[GameLine]) -> None:
        """Replace the rows of these games."""
        g, p = t.stats_games, t.stats_players
        for start in range(0, len(states), _CHUNK):
            chunk = states[start : start + _CHUNK]
            ids = [line.game_id for line in chunk]
            conn.execute(p.delete().where(p.c.game_id.in_(ids)))
            conn.execute(g.delete().where(g.c.game_id.in_(ids)))
            conn.execute(g.insert(), [_game_values(line) for line in chunk])
            player_rows = [_player_values(line.game_id, pl) for line in chunk for pl in line.players]
            if player_rows:
                conn.execute(p.insert(), player_rows)

    def clear(self, conn: Connection) -> None:
        """Delete every stats row."""
        conn.execute(t.stats_players.delete())
        conn.execute(t.stats_games.delete())


def _game_values(line: GameLine) -> dict[str, Any]:
    return {
        "game_id": line.game_id, "last_seq": line.last_seq, "finished": line.finished,
        "winner_key": line.winner_key, "hands": line.hands, "knocker_key": line.knocker_key,
        "cancelled": line.cancelled, "ended_at": line.ended_at or None,
    }


def _player_values(game_id: str, line: PlayerLine) -> dict[str, Any]:
    values = {k: getattr(line, k) for k in t.STATS_COUNTERS}
    return {"game_id": game_id, "seat": line.seat, "player_key": line.key, "name": line.name,
            "out": line.out, "resigned": line.resigned, "timed_out": line.timed_out, "is_bot": line.is_bot,
            "out_in_hand": line.out_in_hand, **values}


# ---- reading ------------------------------------------------------------------------------


def _sums() -> list[Any]:
    p = t.stats_players.c
    return [func.coalesce(func.sum(p[k]), 0).label(k) for k in t.STATS_COUNTERS] + [
        func.coalesce(func.sum(case((p.resigned, 1), else_=0)), 0).label("resigned"),
        func.coalesce(func.sum(case((p.timed_out, 1), else_=0)), 0).label("timeouts"),
    ]


def read_stats(conn: Connection, player: str | None = None) -> StatsReport:
    """The report from the projection's rows; with `player`, only his line (if he has one)."""
    g, p = t.stats_games, t.stats_players
    finished = case((g.c.finished, 1), else_=0)
    query = (
        select(
            p.c.player_key, func.min(p.c.name).label("name"),
            func.sum(finished).label("games_played"),
            func.sum(case((g.c.finished & (g.c.winner_key == p.c.player_key), 1), else_=0)).label("games_won"),
            func.sum(1 - finished).label("games_in_progress"),
            *_sums(),
        )
        .join(g, g.c.game_id == p.c.game_id)
        .group_by(p.c.player_key)
    )
    if player is not None:
        query = query.where(p.c.player_key == player_key(player))
    rows = conn.execute(query).all()
    longest = _longest_per_player(conn, {str(row.player_key) for row in rows}) if rows else {}
    players = [_figures(row, row.name, longest.get(row.player_key)) for row in rows]
    players.sort(key=lambda f: (-f.games_won, -f.games_played, f.name or ""))
    totals = conn.execute(select(*_sums())).one()
    won = case((g.c.finished & g.c.winner_key.is_not(None), 1), else_=0)  # an abandoned game has no winner
    games = conn.execute(
        select(func.coalesce(func.sum(finished), 0), func.count(), func.coalesce(func.sum(g.c.hands), 0),
               func.coalesce(func.sum(won), 0)).where(~g.c.cancelled)  # a cancelled game counts for nothing
    ).one()
    overall = StatsFigures(
        name=None, games_played=int(games[0]),
        games_won=int(games[3]),
        games_in_progress=int(games[1]) - int(games[0]), longest_game=_longest(conn),
        **{k: int(getattr(totals, k)) for k in (*t.STATS_COUNTERS, "resigned", "timeouts") if k != "hands_played"},
        hands_played=int(games[2]),
    )
    return StatsReport(tuple(players), overall)


def stats_lines(conn: Connection) -> list[GameLine]:
    """Every game's line as the projection's rows hold it."""
    return list(STATS.load(conn, list(conn.execute(select(t.stats_games.c.game_id)).scalars())).values())


def read_stats_unsaved(conn: Connection, player: str | None = None, rebuild: bool = False) -> StatsReport:
    """`read_stats` with the events the projection has not seen folded in memory (with `rebuild`:
    every event, into no stored rows), writing nothing: the figures of a read-only database."""
    from scat_core.store.sql.projections import fold_unseen

    behind = fold_unseen(conn, STATS, rebuild=rebuild)
    if not behind and not rebuild:
        return read_stats(conn, player)  # nothing it counts is missing from the rows
    lines = {} if rebuild else STATS.load(conn, list(conn.execute(select(t.stats_games.c.game_id)).scalars()))
    lines.update(behind)
    return report(list(lines.values()), player)


def _figures(row: Row[Any], name: str | None, longest: LongestGame | None) -> StatsFigures:
    counts = {k: int(getattr(row, k)) for k in (*t.STATS_COUNTERS, "resigned", "timeouts")}
    return StatsFigures(
        name=name, games_played=int(row.games_played), games_won=int(row.games_won),
        games_in_progress=int(row.games_in_progress), longest_game=longest, **counts,
    )


def _longest(conn: Connection) -> LongestGame | None:
    g = t.stats_games.c
    row = conn.execute(
        select(g.game_id, g.hands).where(g.finished).order_by(g.hands.desc(), g.game_id).limit(1)
    ).first()
    return None if row is None else LongestGame(str(row[0]), int(row[1]))


def _longest_per_player(conn: Connection, keys: set[str]) -> dict[str, LongestGame]:
    """Each player's longest finished game: games read longest first, until all `keys` have one
    (a window function over every row would sort them all)."""
    g, p = t.stats_games, t.stats_players
    query = (
        select(p.c.player_key, g.c.game_id, g.c.hands)
        .join(p, p.c.game_id == g.c.game_id)
        .where(g.c.finished)
        .order_by(g.c.hands.desc(), g.c.game_id)
    )
    if len(keys) == 1:
        query = query.where(p.c.player_key.in_(sorted(keys)))
    found: dict[str, LongestGame] = {}
    result = conn.execute(query)
    try:
        for row in result:
            key = str(row[0])
            if key in keys and key not in found:
                found[key] = LongestGame(str(row[1]), int(row[2]))
                if len(found) == len(keys):
                    break
    finally:
        result.close()
    return found

STATS = StatsProjection()
