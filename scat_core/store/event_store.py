"""The event store: an append-only, hash-chained log per game plus its read model.

Usage, one unit of work per command::

    store = EventStore(engine)
    with store.transaction() as tx:          # commits on clean exit, else rolls back
        history = tx.load(game_id)
        tx.append(game_id, history[-1].seq, new_events, summary)

`append` is optimistic: `expected_seq` is the seq of the last event the caller saw (0 for a
new game); if someone appended since, it raises ConcurrencyConflict and writes nothing.
On SQLite write transactions start with BEGIN IMMEDIATE so writers queue (busy timeout)
instead of deadlocking; on PostgreSQL the UNIQUE(game_id, seq) decides every race.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine, bindparam, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError

from scat_core.domain.errors import ConcurrencyConflict, CorruptHistory, HistoryDamaged, NotFound, StoreUnavailable
from scat_core.domain.events import to_record
from scat_core.domain.hashing import GENESIS_HASH, canonical_json, chain_hash_raw
from scat_core.domain.snapshot import SNAPSHOT_TAG
from scat_core.store import tables as t
from scat_core.store.database import WRITE_OPTION, busy_error, is_busy, safe_url
from scat_core.store.keys import KeyRing
from scat_core.store.lean import Row, append_after_head, insert_games
from scat_core.store.records import RECORD_KEYS, GameSecret, StoredEvent, utc_now
from scat_core.store.signed_heads import (
    lean_signature_params,
    sign_appended_head,
    sign_new_heads,
    signature_for_append,
)
from scat_core.store.verified import CommandLoad, load_for_command

__all__ = ["RECORD_KEYS", "EventStore", "GameRow", "GameSecret", "GameSummary", "StoreTransaction", "StoredEvent",
           "utc_now"]

_INSERT_CHUNK = 500  # rows per INSERT: 9 columns each, well under SQLite's 32,766 variables
# Built once: building and cache-keying a select costs more than fetching a short game.
_LOAD = (
    select(*(t.events.c[k] for k in RECORD_KEYS))
    .where(t.events.c.game_id == bindparam("game_id"))
    .order_by(t.events.c.seq)
)
_LOAD_UP_TO = _LOAD.where(t.events.c.seq <= bindparam("up_to"))


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


@dataclass(frozen=True)
class GameSummary:
    """What the games read model needs to know after an append (computed by the caller)."""

    status: str
    players: tuple[str, ...]
    turn: str | None = None
    hand_number: int = 1
    dealer: str | None = None
    winner: str | None = None
    protected: bool = False
    bots: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class GameRow:
    """One row of the games read model."""

    game_id: str
    status: str
    players: tuple[str, ...]
    bots: tuple[str, ...]
    turn: str | None
    hand_number: int
    dealer: str | None
    created_at: str
    last_activity: str
    winner: str | None
    head_seq: int
    head_hash: str
    protected: bool


def _is_lock_error(exc: DBAPIError) -> bool:
    """Whether a database error means another writer won: locked, serialization, deadlock."""
    text = str(exc.orig).lower()
    code = getattr(exc.orig, "sqlstate", None)
    return (
        "database is locked" in text
        or "database is busy" in text
        or code in {"40001", "40P01", "55P03"}
    )


class StoreTransaction:
    """One open unit of work on the store; obtained from `EventStore.transaction()`."""

    def __init__(self, conn: Connection, writes: str = "any", keys: KeyRing | None = None) -> None:
        self._conn = conn
        # Without a transaction around (PostgreSQL commands and reads): "lean", only the lean
        # append (one all-or-nothing statement) may write; "none", nothing may.
        self._writes = writes
        self.keys = keys if keys is not None else KeyRing.default()

    def _may_write(self, lean: bool = False) -> None:
        if self._writes != "any" and not (lean and self._writes == "lean"):
            raise RuntimeError("outside a transaction only the lean append (with expected_hash) may write")

    # ---- the log -------------------------------------------------------------------------

    def load(self, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
        """The game's events in seq order, up to seq `up_to` inclusive; NotFound if none."""
        if up_to is None:
            rows = self._conn.execute(_LOAD, {"game_id": game_id}).all()
        else:
            rows = self._conn.execute(_LOAD_UP_TO, {"game_id": game_id, "up_to": up_to}).all()
        if not rows and (up_to is None or self.head(game_id) is None):
            raise NotFound(f"no game {game_id!r} in this database (see `scat games`)")
        from_row = StoredEvent.from_row
        loaded = [from_row(row) for row in rows]
        bad = next((seq for seq, stored in enumerate(loaded, start=1) if stored.seq != seq), None)
        if bad is not None:
            raise CorruptHistory(
                f"the stored history of game {game_id} is damaged (event {bad} is missing or not numbered "
                f"{bad}); `scat audit {game_id}` names the first bad event"
            )
        return loaded

    def load_between(
        self, game_id: str, after: int, up_to: int, types: Sequence[str] | None = None,
        newest_first: bool = False, limit: int | None = None,
    ) -> list[StoredEvent]:
        """The game's events with `after` < seq <= `up_to` (only of `types`, if given), in seq order
        or newest first, at most `limit` of them: a part of the log, read by the (game_id, seq) key."""
        query = _between(tuple(types) if types is not None else None, newest_first, limit is not None)
        params: dict[str, Any] = {"game_id": game_id, "after": after, "up_to": up_to}
        if limit is not None:
            params["limit"] = limit
        return [StoredEvent.from_row(row) for row in self._conn.execute(query, params).all()]

    def load_unchecked(self, game_id: str) -> list[StoredEvent]:
        """The game's rows in the order the database sorts their seq, numbered right or not (for audits)."""
        return [StoredEvent.from_row(row) for row in self._conn.execute(_LOAD, {"game_id": game_id}).all()]

    def load_for_command(self, game_id: str, use_snapshot: bool = True) -> CommandLoad:
        """The snapshot and the events after it, verified against the games row's head (one query)."""
        return load_for_command(self._conn, game_id, use_snapshot)

    def load_raw(self, game_id: str) -> list[dict[str, Any]]:
        """The game's full records (envelope, prev_hash, hash) as stored, for export."""
        return [stored.record() for stored in self.load(game_id)]

    def first_events(self, game_ids: Sequence[str]) -> list[StoredEvent]:
        """The first event (seq 1) of each of `game_ids` that has one, in one query per 500 ids."""
        found: list[StoredEvent] = []
        ids = list(dict.fromkeys(game_ids))
        for start in range(0, len(ids), _INSERT_CHUNK):
            query = select(*(t.events.c[k] for k in RECORD_KEYS)).where(
                t.events.c.seq == 1, t.events.c.game_id.in_(ids[start : start + _INSERT_CHUNK])
            )
            found += [StoredEvent.from_row(row) for row in self._conn.execute(query)]
        return found

    def head(self, game_id: str) -> tuple[int, str] | None:
        """(seq, hash) of the game's last event, or None when the game has no events."""
        row = self._conn.execute(
            select(t.events.c.seq, t.events.c.hash)
            .where(t.events.c.game_id == game_id)
            .order_by(t.events.c.seq.desc())
            .limit(1)
        ).first()
        if row is None:
            return None
        if not isinstance(row[0], int):  # SQLite keeps any text in an INTEGER column (#14 item 7)
            raise CorruptHistory(
                f"the stored history of game {game_id} is damaged (an event is numbered {row[0]!r}); "
                f"`scat audit {game_id}` names the first bad event"
            )
        return int(row[0]), str(row[1])

    def game_ids(self) -> list[str]:
        """Every game id, oldest first (from the games read model, not the whole log)."""
        rows = self._conn.execute(
            select(t.games.c.game_id).order_by(t.games.c.created_at, t.games.c.game_id)
        )
        return [str(r[0]) for r in rows]

    def logged_game_ids(self) -> list[str]:
        """Every game id the log holds events of (a scan of the log: for audits of everything)."""
        rows = self._conn.execute(select(t.events.c.game_id).where(t.events.c.seq == 1))
        return [str(r[0]) for r in rows]

    def append(
        self,
        game_id: str,
        expected_seq: int,
        events: Sequence[BaseModel],
        summary: GameSummary | None = None,
        snapshot: str | None = None,
        expected_hash: str | None = None,
    ) -> list[StoredEvent]:
        """Append `events` after seq `expected_seq`, chaining hashes; update the read model and,
        when given, the snapshot (the JSON of the state after the last event).

        With `expected_hash` (the hash of event `expected_seq`, as the caller verified it) and
        a summary, the lean path: no head query, each event hashed once, one statement on
        PostgreSQL, the games row moved only from that very head (else ConcurrencyConflict,
        nothing written), and a finished game's kept seed forgotten in the same write.
        """
        lean = expected_hash is not None and summary is not None and expected_seq > 0
        self._may_write(lean)
        if not lean:
            head = self.head(game_id)
            head_seq, prev_hash = head if head is not None else (0, GENESIS_HASH)
            if head_seq != expected_seq:
                raise ConcurrencyConflict(
                    f"game {game_id} changed meanwhile (you saw event {expected_seq}, it is now at "
                    f"{head_seq}): look again and retry"
                )
        else:
            prev_hash = str(expected_hash)
        now = utc_now()
        stored: list[StoredEvent] = []
        rows: list[Row] = []
        for seq, event in enumerate(events, start=expected_seq + 1):
            event_type, version, data = to_record(event)
            data_json = canonical_json(data).decode("utf-8")
            digest = chain_hash_raw(prev_hash, game_id, seq, event_type, version, now, data_json)
            rows.append((seq, event_type, version, data_json, now, prev_hash, digest))
            stored.append(
                StoredEvent(
                    game_id=game_id, seq=seq, type=event_type, schema_version=version, recorded_at=now,
                    data=data, prev_hash=prev_hash, hash=digest,
                )
            )
            prev_hash = digest
        if not stored:
            return stored
        if lean:
            assert expected_hash is not None and summary is not None
            state_version, rules_version = SNAPSHOT_TAG
            kept = None if snapshot is None else {
                "state_version": state_version, "rules_version": rules_version, "state": snapshot}
            signing = signature_for_append(self._conn, self.keys, game_id, expected_seq, expected_hash, rows[-1][0],
                                           rows[-1][6])
            append_after_head(self._conn, game_id, (expected_seq, expected_hash), rows, _games_values(summary), kept,
                              lean_signature_params(signing))
            return stored
        self._insert(stored)
        self._update_read_model(game_id, stored[-1], summary, new=expected_seq == 0)
        if snapshot is not None:
            self.put_snapshot(game_id, stored[-1].seq, stored[-1].hash, snapshot)
        self._sign_head(stored)
        return stored

    def append_raw(
        self, records: Sequence[Mapping[str, Any]], summary: GameSummary | None = None, snapshot: str | None = None
    ) -> list[StoredEvent]:
        """Insert exported records verbatim (recorded_at, hashes as given; nothing verified);
        `snapshot`, for records of one game, is the JSON of its state after the last."""
        self._may_write()
        stored = [
            StoredEvent(
                game_id=str(r["game_id"]), seq=int(r["seq"]), type=str(r["type"]),
                schema_version=int(r["schema_version"]), recorded_at=str(r["recorded_at"]),
                data=dict(r["data"]), prev_hash=str(r["prev_hash"]), hash=str(r["hash"]),
            )
            for r in records
        ]
        self._insert(stored)
        for game_id in dict.fromkeys(s.game_id for s in stored):
            mine = sorted((s for s in stored if s.game_id == game_id), key=lambda s: s.seq)
            self._update_read_model(game_id, mine[-1], summary, created_at=mine[0].recorded_at, new=True)
            if snapshot is not None:
                self.put_snapshot(game_id, mine[-1].seq, mine[-1].hash, snapshot)
            self._sign_head(mine)
        return stored

    def append_many(self, games: Sequence[tuple[Sequence[Mapping[str, Any]], GameSummary, str | None]]) -> int:
        """The bulk path (imports, benchmarks): whole exported histories of new games, verbatim
        (nothing verified: the caller audited them), each with its games-row summary and its
        snapshot (or None), in a few statements; ConcurrencyConflict if one exists already.

        A record's `data` is a dict, or already its canonical JSON text (as stored: the rows of
        a history cloned many times are encoded once)."""
        self._may_write()
        events: list[tuple[str, int, str, int, str, str, str, str]] = []
        rows: list[dict[str, Any]] = []
        snapshots: list[dict[str, Any]] = []
        state_version, rules_version = SNAPSHOT_TAG
        for records, summary, snapshot in games:
            first, last = records[0], records[-1]
            game_id = str(first["game_id"])
            events += [
                (str(r["game_id"]), int(r["seq"]), str(r["type"]), int(r["schema_version"]),
                 r["data"] if type(r["data"]) is str else canonical_json(r["data"]).decode("utf-8"),
                 str(r["recorded_at"]), str(r["prev_hash"]), str(r["hash"]))
                for r in records
            ]
            head = {"head_seq": int(last["seq"]), "head_hash": str(last["hash"])}
            rows.append({**_games_values(summary), **head, "game_id": game_id,
                         "created_at": str(first["recorded_at"]), "last_activity": str(last["recorded_at"])})
            if snapshot is not None:
                snapshots.append({**head, "game_id": game_id, "state_version": state_version,
                                  "rules_version": rules_version, "state": snapshot})
        try:
            insert_games(self._conn, events, rows, snapshots)
        except IntegrityError as exc:
            raise ConcurrencyConflict("a game being added is in this database already: nothing added") from exc
        sign_new_heads(self._conn, self.keys, [(row["game_id"], row["head_seq"], row["head_hash"]) for row in rows])
        return len(events)

    def _insert(self, stored: Sequence[StoredEvent]) -> None:
        if not stored:
            return
        rows = [
            {**s.envelope(), "data": canonical_json(s.data).decode("utf-8"),
             "prev_hash": s.prev_hash, "hash": s.hash}
            for s in stored
        ]
        try:
            # One multi-row INSERT per chunk: a single statement either lands or fails whole
            # (no driver pipeline left to abort), and stays under SQLite's variable limit.
            for start in range(0, len(rows), _INSERT_CHUNK):
                self._conn.execute(t.events.insert().values(rows[start : start + _INSERT_CHUNK]))
        except IntegrityError as exc:
            raise ConcurrencyConflict(
                f"game {stored[0].game_id} changed meanwhile (event {stored[0].seq} already "
                "exists): look again and retry"
            ) from exc

    def _sign_head(self, appended: Sequence[StoredEvent]) -> None:
        """Sign the head `appended` leads to, over a head signed by a known key (signed_heads)."""
        first, last = appended[0], appended[-1]
        sign_appended_head(self._conn, self.keys, last.game_id, first.seq - 1, first.prev_hash, last.seq, last.hash)

    @property
    def connection(self) -> Connection:
        """The open connection of this unit of work (for the signed_heads functions)."""
        return self._conn

    # ---- the games read model and the snapshots --------------------------------------------

    def put_snapshot(self, game_id: str, seq: int, head_hash: str, state: str) -> None:
        """Keep `state` (JSON) as the game's snapshot at event `seq`, tagged with this code's rules."""
        self._may_write()
        state_version, rules_version = SNAPSHOT_TAG
        values = {"seq": seq, "hash": head_hash, "state_version": state_version,
                  "rules_version": rules_version, "state": state}
        # Each dialect's insert is imported here: importing the PostgreSQL dialect costs every
        # command on SQLite about a tenth of its start-up (issue #8).
        if self._conn.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            pg = pg_insert(t.game_snapshots).values(game_id=game_id, **values)
            self._conn.execute(pg.on_conflict_do_update(index_elements=["game_id"], set_=values))
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            lite = sqlite_insert(t.game_snapshots).values(game_id=game_id, **values)
            self._conn.execute(lite.on_conflict_do_update(index_elements=["game_id"], set_=values))

    def _update_read_model(
        self, game_id: str, last: StoredEvent, summary: GameSummary | None, created_at: str | None = None,
        new: bool = False,
    ) -> None:
        values: dict[str, Any] = {
            "head_seq": last.seq, "head_hash": last.hash, "last_activity": last.recorded_at,
        }
        if summary is not None:
            values.update(_games_values(summary))
        updated = self._conn.execute(
            t.games.update().where(t.games.c.game_id == game_id).values(**values)
        )
        if updated.rowcount == 0:
            if not new:  # a running game's row was removed: refused, never silently re-created
                raise HistoryDamaged(game_id, "the games list has no entry for it")
            defaults: dict[str, Any] = {
                "status": "active", "players": "[]", "bots": "[]", "turn": None,
                "hand_number": 1, "dealer": None, "winner": None, "protected": False,
            }
            self._conn.execute(
                t.games.insert().values(
                    **{**defaults, **values}, game_id=game_id, created_at=created_at or last.recorded_at
                )
            )

    def get_game(self, game_id: str) -> GameRow | None:
        """The read-model row of one game, or None."""
        row = self._conn.execute(select(t.games).where(t.games.c.game_id == game_id)).first()
        return None if row is None else _game_row(row._mapping)

    def list_games(
        self, status: str | None = None, waiting_for: str | None = None
    ) -> list[GameRow]:
        """Games from the read model, newest activity first, optionally filtered.

        `waiting_for` matches the name of the player to act case-insensitively, as `--as`
        matches names, Unicode included: the games table is small, so the casefold is done
        here, on the rows where someone is to act.
        """
        query = select(t.games)
        if status is not None:
            query = query.where(t.games.c.status == status)
        if waiting_for is not None:
            query = query.where(t.games.c.turn.is_not(None))
        query = query.order_by(t.games.c.last_activity.desc(), t.games.c.game_id)
        rows = [_game_row(r._mapping) for r in self._conn.execute(query)]
        if waiting_for is not None:
            wanted = waiting_for.casefold()
            rows = [row for row in rows if row.turn is not None and row.turn.casefold() == wanted]
        return rows

    def count_games(self) -> int:
        """How many games the read model holds."""
        return int(self._conn.execute(select(func.count()).select_from(t.games)).scalar_one())

    # ---- secrets and tokens --------------------------------------------------------------

    def put_secret(self, game_id: str, seed: str, salt: str) -> None:
        """Keep the seed of a running game (and its commitment salt) outside the log."""
        self._may_write()
        self._conn.execute(t.game_secrets.insert().values(game_id=game_id, seed=seed, salt=salt))

    def get_secret(self, game_id: str) -> GameSecret | None:
        """The kept seed and salt of a game, or None (never stored, or already revealed)."""
        row = self._conn.execute(
            select(t.game_secrets.c.seed, t.game_secrets.c.salt).where(
                t.game_secrets.c.game_id == game_id
            )
        ).first()
        return None if row is None else GameSecret(seed=row[0], salt=row[1])

    def secret_game_ids(self) -> set[str]:
        """The ids of the games whose seed is kept here (the running games made here)."""
        return {str(row[0]) for row in self._conn.execute(select(t.game_secrets.c.game_id))}

    def delete_secret(self, game_id: str) -> None:
        """Forget a game's kept seed (once the log reveals it)."""
        self._may_write()
        self._conn.execute(t.game_secrets.delete().where(t.game_secrets.c.game_id == game_id))

    def put_token_hash(self, game_id: str, player: str, token_hash: str) -> None:
        """Store the hash of a player's token for a protected game."""
        self._may_write()
        self._conn.execute(
            t.player_tokens.insert().values(game_id=game_id, player=player, token_hash=token_hash)
        )

    def get_token_hash(self, game_id: str, player: str) -> str | None:
        """The stored token hash of a player, or None."""
        return self._conn.execute(
            select(t.player_tokens.c.token_hash).where(
                t.player_tokens.c.game_id == game_id, t.player_tokens.c.player == player
            )
        ).scalar_one_or_none()


def _games_values(summary: GameSummary) -> dict[str, Any]:
    """The games row's columns that a summary sets."""
    return {
        "status": summary.status, "players": json.dumps(list(summary.players)),
        "bots": json.dumps(list(summary.bots)), "turn": summary.turn, "hand_number": summary.hand_number,
        "dealer": summary.dealer, "winner": summary.winner, "protected": summary.protected,
    }


def _names(m: Any, column: str) -> tuple[str, ...]:
    """The JSON list of names in a games row's `column`; CorruptHistory when it was damaged."""
    try:
        names = json.loads(m[column])
    except (ValueError, TypeError, RecursionError):
        names = None
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        game_id = m["game_id"]
        raise CorruptHistory(
            f"the games list entry of game {game_id} is damaged ({column} is not a list of names): "
            f"`scat audit {game_id}` checks its history"
        )
    return tuple(names)


def _game_row(m: Any) -> GameRow:
    return GameRow(
        game_id=m["game_id"], status=m["status"], players=_names(m, "players"),
        bots=_names(m, "bots"), turn=m["turn"], hand_number=m["hand_number"],
        dealer=m["dealer"], created_at=m["created_at"], last_activity=m["last_activity"],
        winner=m["winner"], head_seq=m["head_seq"], head_hash=m["head_hash"],
        protected=bool(m["protected"]),
    )


@contextmanager
def _races_as_conflicts(engine: Engine) -> Iterator[None]:
    """Database errors as ours: another program's lock as DatabaseBusy (exit 5, after the
    bounded wait), lost races as ConcurrencyConflict, an undecodable row as CorruptHistory, a
    lost or read-only database as StoreUnavailable (#14 items 7, 8)."""
    try:
        yield
    except (OperationalError, InterfaceError) as exc:
        if is_busy(exc):
            raise busy_error(exc) from exc
        if _is_lock_error(exc):
            raise ConcurrencyConflict("another change won the race: try again") from exc
        if "could not decode" in str(exc.orig).lower():  # a row written outside scat, not UTF-8
            reason = str(exc.orig).split(" with text")[0]
            raise CorruptHistory(
                f"a stored row cannot be read back ({reason}): it was damaged outside scat"
            ) from exc
        raise _unavailable(engine, exc) from exc
    except DBAPIError as exc:
        if _is_lock_error(exc):
            raise ConcurrencyConflict("another change won the race: try again") from exc
        raise


def _unavailable(engine: Engine, exc: DBAPIError) -> StoreUnavailable:
    """A database that cannot be used now (connection lost, read-only ...), as one clear error."""
    lines = str(exc.orig if exc.orig is not None else exc).strip().splitlines()
    reason = lines[0].strip() if lines else type(exc).__name__
    url = safe_url(engine)
    if "readonly" in reason or "read-only" in reason:
        return StoreUnavailable(f"database {url} is read-only: this command would write to it "
                                f"({reason}); commands that only read it still work")
    return StoreUnavailable(f"cannot use database {url}: {reason}")


class EventStore:
    """The store over one engine; every access goes through `transaction()` (or `command()`)."""

    def __init__(self, engine: Engine, keys: KeyRing | None = None) -> None:
        self.engine = engine
        #: The signing key (loaded on first use) and the trusted keys; default: KeyRing.default().
        self.keys = keys if keys is not None else KeyRing.default()

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[StoreTransaction]:
        """A unit of work: commit on clean exit, roll back on any exception."""
        with _races_as_conflicts(self.engine), self.engine.connect() as conn:
            if write:
                conn = conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                yield StoreTransaction(conn, keys=self.keys)

    @contextmanager
    def command(self) -> Iterator[StoreTransaction]:
        """A unit of work whose one write is a lean append (`append` with `expected_hash`).

        On PostgreSQL it runs without a transaction around it: the append is one statement,
        all or nothing by itself, so a command costs two round trips instead of four; any
        other write is refused there. Elsewhere it is `transaction()`.
        """
        if self.engine.dialect.name != "postgresql":
            with self.transaction() as tx:
                yield tx
            return
        with _races_as_conflicts(self.engine), self.engine.connect() as conn:
            conn = conn.execution_options(isolation_level="AUTOCOMMIT", **{WRITE_OPTION: True})
            yield StoreTransaction(conn, writes="lean", keys=self.keys)

    def read(self) -> AbstractContextManager[StoreTransaction]:
        """A read-only unit of work: a read transaction on SQLite (no write lock; one snapshot of
        the database for all its statements); on PostgreSQL plain statements without BEGIN and
        ROLLBACK around them (two round trips fewer), as under its READ COMMITTED each statement
        sees its own snapshot anyway. Nothing may be written through it there."""
        if self.engine.dialect.name != "postgresql":
            return self.transaction(write=False)
        return self._autocommit_reads()

    @contextmanager
    def _autocommit_reads(self) -> Iterator[StoreTransaction]:
        with _races_as_conflicts(self.engine), self.engine.connect() as conn:
            yield StoreTransaction(conn.execution_options(isolation_level="AUTOCOMMIT"), writes="none", keys=self.keys)
