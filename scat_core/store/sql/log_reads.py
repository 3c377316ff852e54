"""Reading the log: a game's events whole, in part, or only its head, by the (game_id, seq) key.

Commands read through command_load.py (snapshot + tail, checked against the games row's head);
these are the plain reads of exports, audits, views and the stats projection.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection

from scat_core.domain.errors import Hint, NotFound
from scat_core.records.errors import CorruptHistory
from scat_core.records.stored_log import RECORD_KEYS, StoredEvent
from scat_core.store.sql import tables as t
from scat_core.store.sql.driver_sql import fetch_all, placeholder

IDS_CHUNK = 500  # ids or rows per statement: well under SQLite's 32,766 variables
# Built once: building and cache-keying a select costs more than fetching a short game.
_HEAD = (
    select(t.events.c.seq, t.events.c.hash)
    .where(t.events.c.game_id == bindparam("game_id"))
    .order_by(t.events.c.seq.desc())
    .limit(1)
)
assert RECORD_KEYS[0] == "game_id"  # a game's own log: the rest of the columns (StoredEvent.of_game)


@cache
def _load_sql(mark: str, up_to: bool) -> str:
    """A game's log (up to a seq) on the driver's cursor, `mark` its placeholder: the game_id
    column is not fetched, the WHERE clause names it."""
    bound = f" AND seq <= {mark}" if up_to else ""
    return f"SELECT {', '.join(RECORD_KEYS[1:])} FROM {t.events.name} WHERE game_id = {mark}{bound} ORDER BY seq"


_BETWEEN: dict[tuple[tuple[str, ...] | None, bool, bool], Any] = {}


def _between(types: tuple[str, ...] | None, newest_first: bool, limited: bool) -> Any:
    """The statement of `load_between`, built once per shape (building one costs more than running it)."""
    key = (types, newest_first, limited)
    query = _BETWEEN.get(key)
    if query is None:
        seq = t.events.c.seq
        query = select(*(t.events.c[k] for k in RECORD_KEYS)).where(
            t.events.c.game_id == bindparam("game_id"), seq > bindparam("after"), seq <= bindparam("up_to")
        )
        if types is not None:
            query = query.where(t.events.c.type.in_(types))
        query = query.order_by(seq.desc() if newest_first else seq)
        if limited:
            query = query.limit(bindparam("limit"))
        _BETWEEN[key] = query
    return query


def head(conn: Connection, game_id: str) -> tuple[int, str] | None:
    """(seq, hash) of the game's last event, or None when the game has no events."""
    row = conn.execute(_HEAD, {"game_id": game_id}).first()
    if row is None:
        return None
    if not isinstance(row[0], int):  # SQLite keeps any text in an INTEGER column (#14 item 7)
        raise CorruptHistory(
            f"the stored history of game {game_id} is damaged (an event is numbered {row[0]!r})",
            game_id=game_id, hint=Hint.FIND_BAD_EVENT,
        )
    return int(row[0]), str(row[1])


def load(conn: Connection, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
    """The game's events in seq order, up to seq `up_to` inclusive; NotFound if none."""
    mark = placeholder(conn)
    if up_to is None:
        rows = fetch_all(conn, _load_sql(mark, False), (game_id,))
    else:
        rows = fetch_all(conn, _load_sql(mark, True), (game_id, up_to))
    if not rows and (up_to is None or head(conn, game_id) is None):
        raise NotFound(f"no game {game_id!r} in this database", game_id=game_id, hint=Hint.LIST_GAMES)
    numbered = [row[0] for row in rows]
    if numbered != list(range(1, len(numbered) + 1)):
        bad = next(seq for seq, found in enumerate(numbered, start=1) if found != seq)
        raise CorruptHistory(
            f"the stored history of game {game_id} is damaged (event {bad} is missing or not numbered "
            f"{bad})", game_id=game_id, hint=Hint.FIND_BAD_EVENT,
        )
    return StoredEvent.of_game(game_id, rows)


def load_between(
    conn: Connection, game_id: str, after: int, up_to: int, types: Sequence[str] | None = None,
    newest_first: bool = False, limit: int | None = None,
) -> list[StoredEvent]:
    """The game's events with `after` < seq <= `up_to` (only of `types`, if given), in seq order
    or newest first, at most `limit` of them."""
    query = _between(tuple(types) if types is not None else None, newest_first, limit is not None)
    params: dict[str, Any] = {"game_id": game_id, "after": after, "up_to": up_to}
    if limit is not None:
        params["limit"] = limit
    return StoredEvent.from_rows(conn.execute(query, params).all())


def load_unchecked(conn: Connection, game_id: str) -> list[StoredEvent]:
    """The game's rows in the order the database sorts their seq, numbered right or not (for audits)."""
    return StoredEvent.of_game(game_id, fetch_all(conn, _load_sql(placeholder(conn), False), (game_id,)))


def first_events(conn: Connection, game_ids: Sequence[str]) -> list[StoredEvent]:
    """The first event (seq 1) of each of `game_ids` that has one, in one query per 500 ids."""
    found: list[StoredEvent] = []
    ids = list(dict.fromkeys(game_ids))
    for start in range(0, len(ids), IDS_CHUNK):
        query = select(*(t.events.c[k] for k in RECORD_KEYS)).where(
            t.events.c.seq == 1, t.events.c.game_id.in_(ids[start : start + IDS_CHUNK])
        )
        found += StoredEvent.from_rows(conn.execute(query))
    return found


def games_changed_after(conn: Connection, position: int) -> tuple[int, list[str]]:
    """(The log's newest position, the games with an event after `position`), by the position key."""
    newest = conn.execute(select(func.max(t.events.c.position))).scalar()
    if newest is None or newest <= position:
        return int(newest or 0), []
    changed = select(t.events.c.game_id).distinct().where(t.events.c.position > position,
                                                          t.events.c.position <= newest)
    return int(newest), sorted({str(row[0]) for row in conn.execute(changed)})


def logged_game_ids(conn: Connection) -> list[str]:
    """Every game id the log holds events of (a scan of the log: for audits of everything)."""
    return [str(r[0]) for r in conn.execute(select(t.events.c.game_id).where(t.events.c.seq == 1))]
