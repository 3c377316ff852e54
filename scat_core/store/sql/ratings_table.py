"""The ratings kept (revision 0021): the fold of records/stats.py over the statistics' won games,
stored a row per player with how far it has folded (`ratings_folded`: the last game taken, in the
order games were won, and how many were), so that a read folds only the games won since the last
one instead of every game (about 60 us of openskill a game: 12 s at 200,000 games, #42).

Only settled games are kept: those won before `settled` (a minute ago, statistics.py). A game
committed a moment after another process's later win would otherwise come before the last game
taken; the few games won since `settled` are folded for the answer only, each read. When a won
game does come before the last one taken (an import of an old game), the won games up to it
outnumber those taken and the fold is made anew from every won game; the statistics' rebuild
empties the kept ratings too (projections.StatsProjection.clear). Nothing here is ahead of the statistics' rows: a read
folds what they hold. The ratings of some players (a lobby page's) read only their rows and
those of the players of the games folded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import Engine, select
from sqlalchemy.engine import Connection

from scat_core.domain.stats import GameLine
from scat_core.records.stats import (
    PlayerRating,
    RatedRow,
    RatingsFold,
    fold_ratings,
    rating_rows,
    row_key,
    won_order,
)
from scat_core.store.sql import tables as t
from scat_core.store.sql.projections import STATS, projector, won_games, won_rows

#: The key of the one `ratings_folded` row, and of the projector's turn (projections.projector).
NAME = "ratings"
_CHUNK = 500  # rows per statement (SQLite's variable limit)


def kept_ratings(engine: Engine, settled: str, rebuild: bool = False, only: set[str] | None = None,
                 ) -> list[PlayerRating]:
    """Every rated player's rating over the statistics' won games (those of the rows `only`, if
    given: only their rows and those of the players of the games folded are read): the kept fold
    caught up with the settled games won since it (written, one projector at a time), the later ones
    folded for the answer only; folded anew from every won game with `rebuild`. When nothing settled
    is new, only reads (no write lock on SQLite)."""
    if not rebuild:
        with engine.connect() as conn, conn.begin():
            step = since_kept(conn, read_mark(conn), settled)
            if not step.settled and not step.anew:
                return rating_rows(fold_ratings(with_rows(conn, step, only), step.later), only)
    with projector(engine, NAME) as conn:
        step = since_kept(conn, RatingsFold() if rebuild else read_mark(conn), settled)
        kept = with_rows(conn, step, only)
        fold = fold_ratings(kept, step.settled)
        if step.settled or step.anew or rebuild:
            save(conn, kept, fold, anew=step.anew or rebuild)
    return rating_rows(fold_ratings(fold, step.later), only)


def unsaved_ratings(conn: Connection, settled: str, rebuild: bool = False, only: set[str] | None = None,
                    ) -> list[PlayerRating]:
    """`kept_ratings` folded in memory, nothing written (a read-only database)."""
    step = since_kept(conn, RatingsFold() if rebuild else read_mark(conn), settled)
    return rating_rows(fold_ratings(fold_ratings(with_rows(conn, step, only), step.settled), step.later), only)


@dataclass(frozen=True)
class Step:
    """What a read of the ratings folds: onto `base` (the fold kept, or an empty one `anew`), the
    settled won games after it (to keep), then the `later` ones (for the answer only)."""

    base: RatingsFold
    settled: list[GameLine]
    later: list[GameLine]
    anew: bool


def since_kept(conn: Connection, kept: RatingsFold, settled: str) -> Step:
    """The won games the statistics' rows hold after `kept`, split at `settled`; every won game,
    onto an empty fold, when more were won up to `kept.through` than it took (one came in late: an
    import). How many are won is read from the statistics' total, not counted: a read that finds
    nothing new costs a few rows, however many games there are."""
    won = won_games(conn)
    if won == kept.taken:
        return Step(kept, [], [], False)
    since = [line for line in _won_lines(conn, kept.through[0] if kept.through else None) if kept.after(line)]
    anew = kept.taken + len(since) != won
    if anew:
        kept, since = RatingsFold(), _won_lines(conn, None)
    return Step(kept, [line for line in since if line.ended_at < settled],
                [line for line in since if line.ended_at >= settled], anew)


def read_mark(conn: Connection) -> RatingsFold:
    """How far the kept fold has folded, without its rows (empty before the first read that wrote one)."""
    f = t.ratings_folded.c
    mark = conn.execute(select(f.ended_at, f.game_id, f.taken).where(f.name == NAME)).first()
    return RatingsFold() if mark is None else RatingsFold({}, (str(mark[0]), str(mark[1])), int(mark[2]))


def read_fold(conn: Connection) -> RatingsFold:
    """The fold kept, with every row."""
    return replace(read_mark(conn), rows=_rows(conn, None))


def with_rows(conn: Connection, step: Step, only: set[str] | None) -> RatingsFold:
    """`step.base` with the kept rows a read needs: those of `only` (every row, without it) and those
    of the players of the games it folds; none when the fold is made anew (from no row)."""
    if step.anew or step.base.through is None:
        return step.base
    players = {row_key(player) for line in (*step.settled, *step.later) for player in line.players}
    return replace(step.base, rows=_rows(conn, None if only is None else only | players))


def _rows(conn: Connection, keys: set[str] | None) -> dict[str, RatedRow]:
    """The kept rows (those of `keys`, if given)."""
    r = t.ratings
    if keys is None:
        queries = [select(r)]
    else:
        ordered = sorted(keys)
        queries = [select(r).where(r.c.row_key.in_(ordered[start:start + _CHUNK]))
                   for start in range(0, len(ordered), _CHUNK)]
    return {str(row.row_key): RatedRow(str(row.name), bool(row.is_bot), float(row.mu), float(row.sigma),
                                       int(row.games)) for query in queries for row in conn.execute(query)}


def save(conn: Connection, kept: RatingsFold, fold: RatingsFold, anew: bool) -> None:
    """Write `fold` over `kept` (the fold read in the same transaction): the rows that differ (all
    of them, `anew`) and how far it has folded."""
    r, f = t.ratings, t.ratings_folded
    if anew:
        conn.execute(r.delete())
    changed = [key for key, row in fold.rows.items() if anew or kept.rows.get(key) != row]
    for start in range(0, len(changed), _CHUNK):
        keys = changed[start:start + _CHUNK]
        if not anew:
            conn.execute(r.delete().where(r.c.row_key.in_(keys)))
        conn.execute(r.insert(), [{"row_key": key, "name": fold.rows[key].name, "is_bot": fold.rows[key].is_bot,
                                   "mu": fold.rows[key].mu, "sigma": fold.rows[key].sigma,
                                   "games": fold.rows[key].games} for key in keys])
    conn.execute(f.delete().where(f.c.name == NAME))
    if fold.through is not None:
        conn.execute(f.insert().values(name=NAME, ended_at=fold.through[0], game_id=fold.through[1],
                                       taken=fold.taken))


def _won_lines(conn: Connection, since: str | None) -> list[GameLine]:
    """The won games' lines, every one or those won at `since` or later (by `ix_stats_games_ended_at`;
    compared in the database's collation: the caller keeps those after the fold's last game in
    Python's order, and a line the database would miss shows in the count, `caught_up`)."""
    g = t.stats_games.c
    query = select(g.game_id).where(won_rows())
    if since:
        query = query.where(g.ended_at >= since)
    ids: Sequence[str] = conn.execute(query).scalars().all()
    return sorted(STATS.load(conn, list(ids)).values(), key=won_order)
