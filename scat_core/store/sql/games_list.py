"""The games list (the `games` read model) and the snapshots kept beside it.

One row per game: who plays, whose turn, the head (seq, hash) it was last played at. It is
written by every append in the same unit of work (see appending.py), never on
its own; the snapshot of the folded state at the head is kept beside it (docs/audit.md, "Snapshots").
`scat db check` looks at the snapshots here too (`snapshot_problems`): a row whose seal fails or
whose event is not in the log is named as damage; rows from before seals (mac NULL) are not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Integer, func, literal, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from scat_core.domain.errors import Hint
from scat_core.records.errors import ConcurrencyConflict, CorruptHistory, HistoryDamaged
from scat_core.records.games import GameRow, GameSummary, ListedAfter, sits_and_waits
from scat_core.records.signing import KeyRing, is_sealed, sealed_snapshot
from scat_core.records.stored_log import StoredEvent
from scat_core.store.sql import tables as t

#: The games list's filter of the lobby: pending games with a seat any account may take (`scat games --open`).
OPEN = "open"


def games_values(summary: GameSummary) -> dict[str, Any]:
    """The games row's columns that a summary sets."""
    return {
        "status": summary.status, "players": json.dumps(list(summary.players)),
        "bots": json.dumps(list(summary.bots)), "turn": summary.turn, "hand_number": summary.hand_number,
        "dealer": summary.dealer, "winner": summary.winner, "protected": summary.protected,
        "move_deadline": summary.move_deadline, "turn_key": turn_key(summary.turn),
        "awaiting": json.dumps(list(summary.awaiting)), "open_seats": summary.open_seats,
        "rematch_of": summary.rematch_of, "result": summary.result,
        "creation": summary.creation,
    }


def written(value: int | str) -> Any:
    """`value` (a LIMIT, a status) written into the statement, not sent as a parameter. PostgreSQL
    plans a statement the driver prepared once for every execution (a generic plan) only when
    that plan looks no dearer than one made for the values given: with a LIMIT unknown, a list
    over large tables looked dear, so it was planned anew at every execution (across 16
    partitions: the public games page cost 1.3x at 200,000 games what it cost at 1,000, its
    bounded count 2.7x); with a status unknown, one plan would serve the rare statuses and the
    common ones alike. Written, each is planned for itself once."""
    return literal(value, Integer if isinstance(value, int) else None, literal_execute=True)


def turn_key(name: str | None) -> str | None:
    """A player's name as the games read model matches it: casefolded, as `--as` matches names."""
    return None if name is None else name.casefold()


def _names(m: Any, column: str) -> tuple[str, ...]:
    """The JSON list of names in a games row's `column`; CorruptHistory when it was damaged."""
    try:
        names = json.loads(m[column])
    except (ValueError, TypeError, RecursionError):
        names = None
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        game_id = m["game_id"]
        raise CorruptHistory(
            f"the games list entry of game {game_id} is damaged ({column} is not a list of names)",
            game_id=game_id, hint=Hint.CHECK_HISTORY,
        )
    return tuple(names)


def game_row(m: Any) -> GameRow:
    """A games row (a mapping of its columns) as a GameRow; CorruptHistory if its names are damaged."""
    return GameRow(
        game_id=m["game_id"], status=m["status"], players=_names(m, "players"),
        bots=_names(m, "bots"), turn=m["turn"], hand_number=m["hand_number"],
        dealer=m["dealer"], created_at=m["created_at"], last_activity=m["last_activity"],
        winner=m["winner"], head_seq=m["head_seq"], head_hash=m["head_hash"],
        protected=bool(m["protected"]), move_deadline=m["move_deadline"], awaiting=_names(m, "awaiting"),
        open_seats=m["open_seats"], rematch_of=m["rematch_of"], result=m.get("result"),
        creation=m["creation"],
    )


#: A games row as the lists read it: every column but the result (kilobytes of a finished game's
#: JSON that `show` reads from its own row, `get_game`, and no list prints).
_LISTED = select(*(column for column in t.games.c if column.name != "result"))


def update_games_row(
    conn: Connection, game_id: str, last: StoredEvent, summary: GameSummary | None, created_at: str | None = None,
    new: bool = False,
) -> None:
    """Move the game's row to head `last` (and `summary`); a `new` game's row is created,
    a running game's missing row is HistoryDamaged (refused, never silently re-created)."""
    values: dict[str, Any] = {
        "head_seq": last.seq, "head_hash": last.hash, "last_activity": last.recorded_at,
    }
    if summary is not None:
        values.update(games_values(summary))
        for kept in ("result", "creation"):
            if values[kept] is None:
                del values[kept]  # the row keeps what it has (a result: a message after the end)
    updated = conn.execute(t.games.update().where(t.games.c.game_id == game_id).values(**values))
    if updated.rowcount and summary is not None:  # a seat taken (`scat join`): its game_seats row too
        known = conn.execute(select(func.count()).select_from(t.game_seats)
                             .where(t.game_seats.c.game_id == game_id)).scalar_one()
        joined = seat_rows(game_id, summary.players)[known:]
        if joined:
            conn.execute(t.game_seats.insert(), joined)
    if updated.rowcount == 0:
        if not new:
            raise HistoryDamaged(game_id, "the games list has no entry for it")
        defaults: dict[str, Any] = {
            "status": "active", "players": "[]", "bots": "[]", "turn": None,
            "hand_number": 1, "dealer": None, "winner": None, "protected": False,
        }
        created = created_at or last.recorded_at
        conn.execute(t.games.insert().values(**{**defaults, **values}, game_id=game_id, created_at=created))
        if summary is not None and summary.rematch_of is not None:
            try:
                conn.execute(t.game_rematches.insert().values(rematch_of=summary.rematch_of, game_id=game_id))
            except IntegrityError as exc:  # the one rematch of that game, made meanwhile
                raise ConcurrencyConflict(f"game {summary.rematch_of} has its rematch already: look again") from exc
        seats = seat_rows(game_id, summary.players if summary is not None else ())
        if seats:
            conn.execute(t.game_seats.insert(), seats)


def seat_rows(game_id: str, players: Sequence[str]) -> list[dict[str, Any]]:
    """The game_seats rows of a new game: one per seat, the name as the list matches it (`turn_key`)."""
    return [{"game_id": game_id, "seat": seat, "name_key": name.casefold()} for seat, name in enumerate(players)]


def put_snapshot(conn: Connection, keys: KeyRing, game_id: str, seq: int, head_hash: str, state: str) -> None:
    """Keep `state` (JSON) as the game's snapshot at event `seq`, tagged with this code's rules and
    sealed with this installation's key (records/signing.py)."""
    values = {"seq": seq, "hash": head_hash, **sealed_snapshot(keys, game_id, seq, head_hash, state)}
    # Each dialect's insert is imported here: importing the PostgreSQL dialect costs every
    # command on SQLite about a tenth of its start-up (issue #8).
    if conn.dialect.name == "postgresql":
        # start-up time: a dialect's module loads only on its database
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        pg = pg_insert(t.game_snapshots).values(game_id=game_id, **values)
        conn.execute(pg.on_conflict_do_update(index_elements=["game_id"], set_=values))
    else:
        # start-up time: a dialect's module loads only on its database
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        lite = sqlite_insert(t.game_snapshots).values(game_id=game_id, **values)
        conn.execute(lite.on_conflict_do_update(index_elements=["game_id"], set_=values))


def get_game(conn: Connection, game_id: str) -> GameRow | None:
    """The read-model row of one game, or None."""
    row = conn.execute(select(t.games).where(t.games.c.game_id == game_id)).first()
    return None if row is None else game_row(row._mapping)


def get_games(conn: Connection, game_ids: Sequence[str]) -> dict[str, GameRow]:
    """The read-model rows of those of `game_ids` that are games here, by id (one query)."""
    if not game_ids:
        return {}
    rows = conn.execute(_LISTED.where(t.games.c.game_id.in_(list(game_ids))))
    return {row.game_id: row for row in (game_row(found._mapping) for found in rows)}


def _filtered(query: Any, status: str | None, waiting_for: str | None) -> Any:
    """`query` over the games rows of one status ("open": the lobby, pending games with an open seat), or
    whose player to act is `waiting_for` (any case)."""
    if status == OPEN:
        query = query.where(t.games.c.status == written("pending"), t.games.c.open_seats > 0)
    elif status is not None:  # a few statuses, of very different sizes: each planned for itself (`written`)
        query = query.where(t.games.c.status == written(status))
    if waiting_for is not None:
        query = query.where(t.games.c.turn_key == turn_key(waiting_for))
    return query


def _after(query: Any, after: ListedAfter | None) -> Any:
    """`query` over the rows that follow `after` in the list's order (newest activity first, then by id):
    a range of the last_activity index, however deep the page."""
    if after is None:
        return query
    games = t.games.c
    return query.where(games.last_activity <= after.last_activity,
                       (games.last_activity < after.last_activity) | (games.game_id > after.game_id))


def list_games(conn: Connection, status: str | None = None, waiting_for: str | None = None,
               limit: int | None = None, first_for: str | None = None,
               after: ListedAfter | None = None) -> list[GameRow]:
    """Games from the read model, newest activity first, optionally filtered, at most `limit`;
    with `first_for`, the games that player sits in first (a server's account: `scat games`).

    `waiting_for` matches the name of the player to act case-insensitively, as `--as`
    matches names, Unicode included (the casefolded name is kept in `turn_key`, indexed with
    the last activity: a page costs the same however many games there are). `first_for` is
    matched the same way, through the indexed seats of game_seats.
    """
    query = _filtered(_LISTED, status, waiting_for)
    query = query.order_by(t.games.c.last_activity.desc(), t.games.c.game_id)
    if first_for is None:
        return _rows(conn, _after(query, after), limit, written_limit=True)
    seated = t.games.c.game_id.in_(select(t.game_seats.c.game_id).where(t.game_seats.c.name_key == turn_key(first_for)))
    in_others = after is not None and not after.seated  # the page began past the player's own games
    first = [] if in_others else _rows(conn, _after(query.where(seated), after), limit)
    if limit is not None and len(first) >= limit:
        return first
    return first + _rows(conn, _after(query.where(~seated), after if in_others else None),
                         None if limit is None else limit - len(first))


def _rows(conn: Connection, query: Any, limit: int | None, written_limit: bool = False) -> list[GameRow]:
    """The games rows `query` selects, at most `limit`: written into the statement if `written_limit`
    (see `written`), else a parameter. A player's own games first (`first_for`) keep it a parameter,
    so that PostgreSQL plans them for the name given at each call: one plan for every name would
    be the one for names that sit in many games (the bots'), which walks the whole list for a name
    that sits in a few (350 ms at 200,000 games)."""
    if limit is not None:
        query = query.limit(written(limit) if written_limit else limit)
    return [game_row(r._mapping) for r in conn.execute(query)]


def count_listed(conn: Connection, status: str | None = None, waiting_for: str | None = None,
                 at_most: int | None = None) -> int:
    """How many games `list_games` would list without a limit (an index-only count), counting no
    further than `at_most` (a count whose work is bounded however many games there are)."""
    if at_most is None:
        return int(conn.execute(_filtered(select(func.count()).select_from(t.games), status, waiting_for)).scalar_one())
    counted = _filtered(select(t.games.c.game_id), status, waiting_for).limit(written(at_most)).subquery()
    return int(conn.execute(select(func.count()).select_from(counted)).scalar_one())


def expired_games(conn: Connection, now: str, limit: int) -> list[str]:
    """Running games whose player to act ran out of move time by `now` (R28), and games whose
    invitations expired by then, longest out first."""
    query = (select(t.games.c.game_id).where(t.games.c.move_deadline <= now,
                                             t.games.c.status.in_(("active", "pending")))
             .order_by(t.games.c.move_deadline).limit(written(limit)))
    return [str(r[0]) for r in conn.execute(query)]


def turns_and_ends(conn: Connection, player: str, ended_since: str) -> list[GameRow]:
    """The games `player` sits in (any case) where he is to act, or that finished at or after
    `ended_since` (a recorded time), oldest activity first: one query, however many games.

    The names are matched here, casefolded as `--as` matches them (see `list_games`): the
    query keeps only the rows where someone is to act or that ended since.
    """
    games = t.games.c
    query = _LISTED.where(
        ((games.status == "active") & games.turn.is_not(None)) | (games.status == "pending")
        | (games.status.in_(("finished", "cancelled")) & (games.last_activity >= ended_since))
    ).order_by(games.last_activity, games.game_id)
    return sits_and_waits([game_row(r._mapping) for r in conn.execute(query)], player)


def find_rematch(conn: Connection, game_id: str) -> str | None:
    """The id of the rematch of `game_id` (game_rematches: one at most), or None."""
    found = conn.execute(select(t.game_rematches.c.game_id).where(t.game_rematches.c.rematch_of == game_id)).first()
    return None if found is None else str(found[0])


def games_of(conn: Connection, player: str, ended_since: str) -> list[GameRow]:
    """The games `player` sits in (matched as `--as` matches names, through game_seats' index) that
    wait for their players or run, or that ended at or after `ended_since`, oldest activity first."""
    games = t.games.c
    seated = games.game_id.in_(select(t.game_seats.c.game_id).where(t.game_seats.c.name_key == turn_key(player)))
    query = _LISTED.where(seated, games.status.in_(("pending", "active")) | (
        games.last_activity >= ended_since)).order_by(games.last_activity, games.game_id)
    return [game_row(r._mapping) for r in conn.execute(query)]


def count_games(conn: Connection) -> int:
    """How many games the read model holds."""
    return int(conn.execute(select(func.count()).select_from(t.games)).scalar_one())


def game_ids(conn: Connection) -> list[str]:
    """Every game id, oldest first (from the games read model, not the whole log)."""
    rows = conn.execute(select(t.games.c.game_id).order_by(t.games.c.created_at, t.games.c.game_id))
    return [str(r[0]) for r in rows]

#: Rows read per fetch: the states are a few KiB each.
_PAGE = 500


def snapshot_problems(conn: Connection, key: bytes) -> dict[str, str]:
    """What is wrong with each sealed snapshot that does not match (game id -> why), under `key`
    (KeyRing.snapshot_key); every game's snapshot is read once, a page at a time."""
    s, e = t.game_snapshots.c, t.events.c
    query = (
        select(s.game_id, s.seq, s.hash, s.state_version, s.rules_version, s.state, s.mac, e.hash)
        .select_from(t.game_snapshots.outerjoin(t.events, (e.game_id == s.game_id) & (e.seq == s.seq)))
        .where(s.mac.is_not(None))
        .order_by(s.game_id)
    )
    problems: dict[str, str] = {}
    rows: Any = conn.execution_options(yield_per=_PAGE).execute(query)  # rows unpack as tuples; each value converted
    for game_id, seq, head_hash, version, rules, state, mac, logged in rows:
        if not is_sealed(key, str(game_id), int(seq), str(head_hash), int(version), str(rules), str(state),
                         None if mac is None else str(mac)):
            problems[str(game_id)] = ("its seal does not verify under this installation's key: the snapshot was "
                                      "changed outside scat (or written by another installation)")
        elif logged != head_hash:
            problems[str(game_id)] = (f"it was folded at event {seq}, which the log no longer holds as it was: "
                                      "the events were changed outside scat")
    return problems
