"""Projections: read models folded from the log, caught up by a global position, rebuildable.

A projection keeps one state per game (a pure fold of that game's events, see
`GameProjection`) in its own tables, plus one checkpoint row: the global position
(tx_id, position) of the last event it has seen. `catch_up` reads the events after the
checkpoint, in position order, of the types the projection uses, folds them into the games
they belong to, writes those games' rows and moves the checkpoint, all in one transaction:
the rows and the checkpoint commit together, so no event is counted twice or missed.

The global position never makes writers wait: on PostgreSQL `events.tx_id` is the writer's
transaction id (a column default) and catch-up reads only below the oldest transaction still
running, where no row can appear any more (see `_horizon_bound` and the README,
"Projections"); on SQLite writers already take turns, so `position` is the commit order.
"""

from __future__ import annotations

import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from sqlalchemy import Engine, Select, and_, select, text, tuple_
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from scat_core.domain.errors import ConcurrencyConflict
from scat_core.domain.events import Event
from scat_core.store import tables as t
from scat_core.store.database import WRITE_OPTION
from scat_core.store.records import RECORD_KEYS, StoredEvent

S = TypeVar("S")
Position = tuple[int, int]  # (tx_id, position): the order of the log across games

BATCH = 5_000  # events read per query
FLUSH_GAMES = 5_000  # game states held in memory before they are written
_START: Position = (-1, 0)


class GameProjection(ABC, Generic[S]):
    """A read model kept per game: a pure fold of the game's events plus how to store it."""

    name: ClassVar[str]  # the checkpoint's key
    event_types: ClassVar[frozenset[str]]  # the only event types read from the log

    @abstractmethod
    def empty(self, game_id: str) -> S:
        """The state of a game before its first event."""

    @abstractmethod
    def evolve(self, state: S, event: Event, seq: int) -> S:
        """The state after event `seq` of the game (pure)."""

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
    checkpoint: Position


def catch_up(engine: Engine, projection: GameProjection[S], *, rebuild: bool = False) -> CatchUp:
    """Fold every settled event after the checkpoint into the projection (with `rebuild`:
    from an empty projection); one transaction, one projector at a time."""
    try:
        with engine.connect() as conn:
            conn = conn.execution_options(**{WRITE_OPTION: True})  # SQLite: BEGIN IMMEDIATE
            with conn.begin():
                return _catch_up(conn, projection, rebuild)
    except DBAPIError as exc:
        if _is_busy(exc):
            raise ConcurrencyConflict("the database is busy with another change: try again") from exc
        raise


def is_behind(engine: Engine, projection: GameProjection[S]) -> bool:
    """Whether settled events exist past the projection's checkpoint (a read; takes no lock)."""
    with engine.connect() as conn, conn.begin():
        return _horizon_bound(conn) > _checkpoint(conn, projection.name)


def checkpoint(engine: Engine, projection: GameProjection[S]) -> Position:
    """The projection's checkpoint: the global position of the last event it has seen."""
    with engine.connect() as conn, conn.begin():
        return _checkpoint(conn, projection.name)


def _catch_up(conn: Connection, projection: GameProjection[S], rebuild: bool) -> CatchUp:
    if conn.dialect.name == "postgresql":  # projectors take turns; writers are never blocked
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _lock_key(projection.name)})
    if rebuild:
        projection.clear(conn)
        conn.execute(t.projection_checkpoints.delete().where(t.projection_checkpoints.c.name == projection.name))
    start = _checkpoint(conn, projection.name)
    bound = _horizon_bound(conn)
    if bound <= start:
        return CatchUp(0, 0, start)
    folder = _Folder(conn, projection, fresh=rebuild or start == _START)
    cursor = start
    while True:
        rows = conn.execute(_events_after(conn, projection, cursor, bound)).all()
        for row in rows:
            folder.apply(StoredEvent.from_row(row[2:]))
        if len(rows) < BATCH:
            break
        cursor = (int(rows[-1][1]), int(rows[-1][0]))
    folder.flush()
    _set_checkpoint(conn, projection.name, bound, exists=start != _START)
    return CatchUp(folder.applied, len(folder.written), bound)


class _Folder(Generic[S]):
    """Game states being folded during one catch-up, written in batches."""

    def __init__(self, conn: Connection, projection: GameProjection[S], fresh: bool) -> None:
        self.conn, self.projection, self.fresh = conn, projection, fresh
        self.states: dict[str, S] = {}
        self.written: set[str] = set()
        self.applied = 0

    def apply(self, stored: StoredEvent) -> None:
        state = self.states.get(stored.game_id)
        if state is None:
            state = self._load(stored.game_id)
        if stored.seq <= self.projection.last_seq(state):
            return  # folded in already: an event is never counted twice
        self.states[stored.game_id] = self.projection.evolve(state, stored.event, stored.seq)
        self.applied += 1
        if len(self.states) >= FLUSH_GAMES:
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


def _events_after(
    conn: Connection, projection: GameProjection[S], cursor: Position, bound: Position
) -> Select[Any]:
    e = t.events
    if conn.dialect.name == "postgresql":
        key = tuple_(e.c.tx_id, e.c.position)
        window = and_(key > tuple_(*cursor), key <= tuple_(*bound))
    else:  # SQLite: one writer at a time, so position alone is the commit order (tx_id is 0)
        window = and_(e.c.position > cursor[1], e.c.position <= bound[1])
    return (
        select(e.c.position, e.c.tx_id, *(e.c[k] for k in RECORD_KEYS))
        .where(window, e.c.type.in_(sorted(projection.event_types)))
        .order_by(e.c.tx_id, e.c.position)
        .limit(BATCH)
    )


def _horizon_bound(conn: Connection) -> Position:
    """The greatest position whose events are all settled: nothing can be written before it.

    PostgreSQL: a transaction's id is taken before it writes, and every id below the oldest
    transaction still running (`pg_snapshot_xmin`) belongs to a finished transaction, so
    rows with such a tx_id are all visible now and no more will ever appear. Rows of
    transactions still running are left for the next catch-up, however early their
    `position` (a sequence value, taken before commit). SQLite: the last position.
    """
    if conn.dialect.name == "postgresql":
        row = conn.execute(
            text(
                "SELECT tx_id, position FROM events "
                "WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint "
                "ORDER BY tx_id DESC, position DESC LIMIT 1"
            )
        ).first()
    else:
        row = conn.execute(text("SELECT 0, MAX(position) FROM events")).first()
    if row is None or row[1] is None:
        return _START
    return int(row[0]), int(row[1])


def _checkpoint(conn: Connection, name: str) -> Position:
    c = t.projection_checkpoints.c
    row = conn.execute(select(c.tx_id, c.position).where(c.name == name)).first()
    return _START if row is None else (int(row[0]), int(row[1]))


def _set_checkpoint(conn: Connection, name: str, position: Position, exists: bool) -> None:
    table = t.projection_checkpoints
    values = {"tx_id": position[0], "position": position[1]}
    if exists:
        conn.execute(table.update().where(table.c.name == name).values(**values))
    else:
        conn.execute(table.insert().values(name=name, **values))


def _lock_key(name: str) -> int:
    """A 63-bit advisory lock key for the projection `name`."""
    return 0x5CA7_0000_0000 + zlib.crc32(name.encode("utf-8"))


def _is_busy(exc: DBAPIError) -> bool:
    """Whether a database error means another writer holds the database (SQLite busy/locked)."""
    message = str(exc.orig).lower()
    return "database is locked" in message or "database is busy" in message
