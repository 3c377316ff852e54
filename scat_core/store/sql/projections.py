"""Projections: read models folded from the log, caught up by a global position, rebuildable.

A projection keeps one state per game (a pure fold of that game's events, see
`GameProjection`) in its own tables, plus one checkpoint row saying which events it has
seen. `catch_up` reads the events it has not seen, in log order, of the types the
projection uses, folds them into the games they belong to, writes those games' rows and
moves the checkpoint, all in one transaction: rows and checkpoint commit together, and
projectors take turns, so no event is counted twice or missed.

The global order never makes writers wait (docs/audit.md, "Projections"). On PostgreSQL
`events.tx_id` is the writer's transaction id (a column default) and the checkpoint is the
snapshot the last catch-up read in (`pg_current_snapshot()`): the next one reads exactly
the rows visible to it and not to that snapshot, so an event whose transaction was still
running then (even with an earlier `position`) is read later, never skipped. On SQLite
writers take turns, so `position` is the commit order and the checkpoint is a position.
The statistics are the one projection (`STATS`): `stats_games` one row per game, `stats_players`
one per seated player and game, the figures sums grouped by the player's key (name, any case);
`stats_totals` keeps how many of the games are won, in the same transaction as their rows, so
that a read of the ratings learns it without counting them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import ColumnElement, Engine, Row, Select, and_, case, func, literal_column, select, text, tuple_
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from scat_core.domain.events import Event
from scat_core.domain.stats import HANDLED_TYPES, GameLine, PlayerLine, player_key
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.stats import LongestGame, StatsFigures, StatsReport, fold_line, report, won
from scat_core.records.stored_log import RECORD_KEYS, StoredEvent
from scat_core.store.sql import tables as t
from scat_core.store.sql.database import WRITE_OPTION, advisory_lock, lock_key, one_writer

S = TypeVar("S")

BATCH = 5_000  # events read per query
FLUSH_GAMES = 5_000  # game states held in memory before they are written


@dataclass(frozen=True)
class Checkpoint:
    """What a projection has seen: on SQLite every event up to `position`; on PostgreSQL
    every event visible in `snapshot` (whose oldest running transaction was `tx_id`)."""

    tx_id: int
    position: int
    snapshot: str | None = None


class GameProjection(ABC, Generic[S]):
    """A read model kept per game: a pure fold of the game's events plus how to store it."""

    name: ClassVar[str]  # the checkpoint's key
    event_types: ClassVar[frozenset[str]]  # the only event types read from the log

    @abstractmethod
    def empty(self, game_id: str) -> S:
        """The state of a game before its first event."""

    @abstractmethod
    def evolve(self, state: S, event: Event, seq: int, recorded_at: str) -> S:
        """The state after event `seq` of the game, recorded at `recorded_at` (pure)."""

    @abstractmethod
    def last_seq(self, state: S) -> int:
        """The seq of the last event folded into `state` (0 for none)."""

    @abstractmethod
    def load(self, conn: Connection, game_ids: Sequence[str]) -> dict[str, S]:
        """The stored states of those of `game_ids` that have any."""

    @abstractmethod
    def save(self, conn: Connection, states: Sequence[S]) -> None:
        """Replace the stored rows of the games of `states` with them."""

    @abstractmethod
    def clear(self, conn: Connection) -> None:
        """Delete every row of the projection (not its checkpoint)."""


@dataclass(frozen=True)
class CatchUp:
    """What one catch-up did: events folded in, games written, and the checkpoint after it."""

    events: int
    games: int
    checkpoint: Checkpoint | None


def catch_up(engine: Engine, projection: GameProjection[S], *, rebuild: bool = False) -> CatchUp:
    """Fold every event the projection has not seen into it (with `rebuild`: every event,
    into an emptied projection); one transaction, one projector at a time."""
    try:
        with projector(engine, projection.name) as conn:
            return _catch_up(conn, projection, rebuild)
    except DBAPIError as exc:
        if _is_busy(exc):
            raise ConcurrencyConflict("the database is busy with another change: try again") from exc
        raise


def is_behind(engine: Engine, projection: GameProjection[S]) -> bool:
    """Whether the log holds events the projection has not seen (a read; takes no lock)."""
    with engine.connect() as conn, conn.begin():
        seen = _checkpoint(conn, projection.name)
        if conn.dialect.name == "postgresql":
            # In tx_id order, so the first unseen row is looked for through ix_events_tx_position: with
            # the LIMIT alone, PostgreSQL expected a few percent of the log past the checkpoint and
            # scanned every partition for the first (500 ms at 5,000 games, at each `scat stats`).
            query: Select[Any] = (select(literal_column("1")).select_from(t.events).where(_unseen(conn, seen))
                                  .order_by(t.events.c.tx_id).limit(1))
            return conn.execute(query).first() is not None
        last = conn.execute(select(func.max(t.events.c.position))).scalar()
        return last is not None and (seen is None or int(last) > seen.position)


def checkpoint(engine: Engine, projection: GameProjection[S]) -> Checkpoint | None:
    """The projection's checkpoint (None before its first catch-up)."""
    with engine.connect() as conn, conn.begin():
        return _checkpoint(conn, projection.name)


@contextmanager
def projector(engine: Engine, name: str) -> Iterator[Connection]:
    """A transaction for one projector at a time; writers of events never wait for it.

    SQLite: a write transaction (BEGIN IMMEDIATE). PostgreSQL: a session advisory lock
    taken first, then a REPEATABLE READ transaction, so every statement of the catch-up
    reads the one snapshot that becomes the checkpoint, taken after the previous projector
    committed.
    """
    if engine.dialect.name != "postgresql":
        with one_writer(engine), engine.connect() as conn:  # this process's writers take turns (database.py)
            conn = conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                yield conn
        return
    with engine.connect() as conn, advisory_lock(conn, lock_key(name), session=True):
        conn = conn.execution_options(isolation_level="REPEATABLE READ")
        with conn.begin():
            yield conn


def _catch_up(conn: Connection, projection: GameProjection[S], rebuild: bool) -> CatchUp:
    if rebuild:
        projection.clear(conn)
        conn.execute(t.projection_checkpoints.delete().where(t.projection_checkpoints.c.name == projection.name))
    seen = _checkpoint(conn, projection.name)
    now = _now(conn)
    if seen is not None and now.position <= seen.position and now.snapshot == seen.snapshot:
        return CatchUp(0, 0, seen)
    folder = _Folder(conn, projection, fresh=seen is None)
    _fold_unseen(conn, projection, folder, seen, now)
    folder.flush()
    _set_checkpoint(conn, projection.name, now, exists=seen is not None)
    return CatchUp(folder.applied, len(folder.written), now)


def fold_unseen(conn: Connection, projection: GameProjection[S], *, rebuild: bool = False) -> dict[str, S]:
    """The states of the games with events the projection has not seen (every game's, from all
    its events, with `rebuild`), those events folded in as `catch_up` folds them, in memory:
    nothing is written (a read-only database). Run it in the transaction that reads the rest."""
    seen = None if rebuild else _checkpoint(conn, projection.name)
    folder = _Folder(conn, projection, fresh=seen is None, keep=True)
    _fold_unseen(conn, projection, folder, seen, _now(conn))
    return folder.states


def _fold_unseen(conn: Connection, projection: GameProjection[S], folder: _Folder[S], seen: Checkpoint | None,
                 now: Checkpoint) -> None:
    """Fold the events `seen` has not covered and `now` has, in log order, into `folder`."""
    unseen = _unseen(conn, seen)
    if now.snapshot is None:  # SQLite: nothing past the last position exists
        unseen = and_(unseen, t.events.c.position <= now.position)
    cursor: tuple[int, int] | None = None
    while True:
        rows = conn.execute(_events(conn, projection, unseen, cursor)).all()
        for row in rows:
            folder.apply(StoredEvent.from_row(row[2:]))
        if len(rows) < BATCH:
            break
        cursor = (int(rows[-1][1]), int(rows[-1][0]))


class _Folder(Generic[S]):
    """Game states being folded during one catch-up, written in batches (all kept, with `keep`)."""

    def __init__(self, conn: Connection, projection: GameProjection[S], fresh: bool, keep: bool = False) -> None:
        self.conn, self.projection, self.fresh, self.keep = conn, projection, fresh, keep
        self.states: dict[str, S] = {}
        self.written: set[str] = set()
        self.applied = 0

    def apply(self, stored: StoredEvent) -> None:
        state = self.states.get(stored.game_id)
        if state is None:
            state = self._load(stored.game_id)
        if stored.seq <= self.projection.last_seq(state):
            return  # folded in already: an event is never counted twice
        self.states[stored.game_id] = self.projection.evolve(state, stored.event, stored.seq, stored.recorded_at)
        self.applied += 1
        if len(self.states) >= FLUSH_GAMES and not self.keep:
            self.flush()

    def _load(self, game_id: str) -> S:
        if not self.fresh or game_id in self.written:
            found = self.projection.load(self.conn, [game_id]).get(game_id)
            if found is not None:
                return found
        return self.projection.empty(game_id)

    def flush(self) -> None:
        if self.states:
            self.projection.save(self.conn, list(self.states.values()))
            self.written.update(self.states)
            self.states.clear()


def _events(
    conn: Connection, projection: GameProjection[S], unseen: Any, cursor: tuple[int, int] | None
) -> Select[Any]:
    """The next batch of unseen events of the projection's types, in log order (after `cursor`)."""
    e = t.events
    if conn.dialect.name == "postgresql":
        order: tuple[Any, ...] = (e.c.tx_id, e.c.position)
        after = None if cursor is None else tuple_(*order) > tuple_(*cursor)
    else:  # one writer at a time: position is the commit order (and the rowid, so no sort)
        order = (e.c.position,)
        after = None if cursor is None else e.c.position > cursor[1]
    return (
        select(e.c.position, e.c.tx_id, *(e.c[k] for k in RECORD_KEYS))
        .where(unseen if after is None else and_(unseen, after), e.c.type.in_(sorted(projection.event_types)))
        .order_by(*order)
        .limit(BATCH)
    )


def _unseen(conn: Connection, seen: Checkpoint | None) -> Any:
    """The condition on events that `seen` has not covered."""
    e = t.events
    if seen is None:
        return e.c.position.is_not(None)  # every event
    if conn.dialect.name != "postgresql":
        return e.c.position > seen.position
    # Rows of transactions below the snapshot's xmin were all visible in it: skip them by
    # the index; of the rest, those the snapshot did not see (running then, or later).
    return and_(
        e.c.tx_id >= seen.tx_id,
        text("NOT pg_visible_in_snapshot(events.tx_id::text::xid8, CAST(:seen AS pg_snapshot))").bindparams(
            seen=seen.snapshot
        ),
    )


def _now(conn: Connection) -> Checkpoint:
    """The checkpoint once every event visible now is folded in."""
    last = conn.execute(select(func.max(t.events.c.position))).scalar()
    position = 0 if last is None else int(last)
    if conn.dialect.name != "postgresql":
        return Checkpoint(0, position)
    row = conn.execute(
        text("SELECT pg_current_snapshot()::text, pg_snapshot_xmin(pg_current_snapshot())::text::bigint")
    ).one()
    return Checkpoint(int(row[1]), position, str(row[0]))


def _checkpoint(conn: Connection, name: str) -> Checkpoint | None:
    c = t.projection_checkpoints.c
    row = conn.execute(select(c.tx_id, c.position, c.snapshot).where(c.name == name)).first()
    return None if row is None else Checkpoint(int(row[0]), int(row[1]), row[2])


def _set_checkpoint(conn: Connection, name: str, now: Checkpoint, exists: bool) -> None:
    table = t.projection_checkpoints
    values = {"tx_id": now.tx_id, "position": now.position, "snapshot": now.snapshot}
    if exists:
        conn.execute(table.update().where(table.c.name == name).values(**values))
    else:
        conn.execute(table.insert().values(name=name, **values))


def _is_busy(exc: DBAPIError) -> bool:
    """Whether a database error means another writer holds the database (SQLite busy/locked)."""
    message = str(exc.orig).lower()
    return "database is locked" in message or "database is busy" in message

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
        """Replace the rows of these games, and count the won games among them anew."""
        g, p = t.stats_games, t.stats_players
        added = 0
        for start in range(0, len(states), _CHUNK):
            chunk = states[start : start + _CHUNK]
            ids = [line.game_id for line in chunk]
            were = conn.execute(select(func.count()).select_from(g).where(g.c.game_id.in_(ids), won_rows()))
            added += sum(won(line) for line in chunk) - were.scalar_one()
            conn.execute(p.delete().where(p.c.game_id.in_(ids)))
            conn.execute(g.delete().where(g.c.game_id.in_(ids)))
            conn.execute(g.insert(), [_game_values(line) for line in chunk])
            player_rows = [_player_values(line.game_id, pl) for line in chunk for pl in line.players]
            if player_rows:
                conn.execute(p.insert(), player_rows)
        if added:
            totals = t.stats_totals
            grown = conn.execute(totals.update().where(totals.c.name == WON_GAMES)
                                 .values(total=totals.c.total + added))
            if grown.rowcount == 0:
                conn.execute(totals.insert().values(name=WON_GAMES, total=added))

    def clear(self, conn: Connection) -> None:
        """Delete every stats row, and the ratings kept from them (ratings_table.py: the next read
        of the ratings folds the rebuilt rows anew)."""
        conn.execute(t.stats_players.delete())
        conn.execute(t.stats_games.delete())
        conn.execute(t.stats_totals.delete())
        conn.execute(t.ratings.delete())
        conn.execute(t.ratings_folded.delete())


#: The name of the total of won games in `stats_totals`.
WON_GAMES = "won_games"


def won_rows() -> ColumnElement[bool]:
    """The statistics' rows of won games (records/stats.py `won`)."""
    g = t.stats_games.c
    return and_(g.finished, g.winner_key.is_not(None), ~g.cancelled)


def won_games(conn: Connection) -> int:
    """How many won games the statistics' rows hold: the total `save` keeps, read without a scan."""
    totals = t.stats_totals
    return int(conn.execute(select(totals.c.total).where(totals.c.name == WON_GAMES)).scalar() or 0)


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


def read_stats_unsaved(conn: Connection, player: str | None = None, rebuild: bool = False) -> StatsReport:
    """`read_stats` with the events the projection has not seen folded in memory (with `rebuild`:
    every event, into no stored rows), writing nothing: the figures of a read-only database."""
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
