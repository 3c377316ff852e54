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

This module is the unit of work; the work is done in: log_reads.py (reading the log,
and a command's load, checked by scat_core/records/stored_log.py), appending.py
(appends, whole games at once, and signed heads), games_list.py (the games read model and
snapshots) and database.py (engines, and database errors as scat's);
the hot path's statements (a command's load and lean append, a replay) run on the driver's
own cursor, through driver_sql.py.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from sqlalchemy import Engine, select
from sqlalchemy.engine import Connection

from scat_core.records.credentials import RequestNonce
from scat_core.records.errors import DatabaseReadOnly
from scat_core.records.games import GameRow, GameSummary, ListedAfter
from scat_core.records.signing import HEAD, HeadSignature, KeyRing, StoredSignature
from scat_core.records.stats import rows_named
from scat_core.records.stored_log import RECORD_KEYS, CommandLoad, GameSecret, KeptHead, StoredEvent, utc_now
from scat_core.store.sql import appending, games_list, log_reads
from scat_core.store.sql import tables as t
from scat_core.store.sql.account_log import spend_nonce
from scat_core.store.sql.appending import KnownHeads, read_signature, write_signature
from scat_core.store.sql.commit_groups import CommitGroups
from scat_core.store.sql.database import WRITE_OPTION, as_scat_errors, one_writer
from scat_core.store.sql.driver_sql import autocommit, fetch_all, named
from scat_core.store.sql.log_reads import load_for_command
from scat_core.store.sql.notify import announce, wait_for_head, wait_until

if TYPE_CHECKING:
    from scat_core.records.stats import PlayerRating, StatsReport


__all__ = ["RECORD_KEYS", "EventStore", "GameRow", "GameSecret", "GameSummary", "StoreTransaction", "StoredEvent",
           "utc_now"]


class StoreTransaction:
    """One open unit of work on the store; obtained from `EventStore.transaction()`."""

    def __init__(self, conn: Connection, writes: str = "any", keys: KeyRing | None = None,
                 heads: KnownHeads | None = None) -> None:
        self._conn = conn
        #: The head signatures this store last read or wrote (shared by its units of work).
        self._heads = heads if heads is not None else KnownHeads()
        # "lean" (a PostgreSQL command, no transaction around it): only the lean append (one
        # all-or-nothing statement) may write; "none" (a read, on every database): nothing may.
        self._writes = writes
        self.keys = keys if keys is not None else KeyRing.default()
        #: The new head (game -> seq) of each game this unit of work appended to: announced
        #: once it is committed (notify.announce); not the lean appends of PostgreSQL, whose
        #: one statement sends its notice itself (appending.py).
        self.moved: dict[str, int] = {}
        #: A PostgreSQL command's lean append, made ready but run only when the unit of work
        #: ends well (`EventStore.command`): the last act of the command, as a commit is.
        self.deferred: list[Callable[[], None]] | None = [] if writes == "lean" else None

    def _may_write(self, lean: bool = False) -> None:
        if self._writes != "any" and not (lean and self._writes == "lean"):
            raise RuntimeError("a read writes nothing, a command only by the lean append (with expected_hash) "
                               "and its request's nonce")

    @property
    def connection(self) -> Connection:
        """The open connection of this unit of work (for the signed_heads functions)."""
        return self._conn

    def read_signature(self, game_id: str, kind: str = HEAD) -> StoredSignature | None:
        """The stored signature of `kind` (HEAD or ORIGIN) of a game, or None."""
        return read_signature(self._conn, game_id, kind)

    def write_signature(self, game_id: str, kind: str, seq: int, head_hash: str, signature: HeadSignature) -> None:
        """Insert or replace the signature of `kind` of a game."""
        self._may_write()
        write_signature(self._conn, game_id, kind, seq, head_hash, signature)

    # ---- the log (log_reads.py) --------------------------------------------------------------

    def load(self, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
        """The game's events in seq order, up to seq `up_to` inclusive; NotFound if none."""
        return log_reads.load(self._conn, game_id, up_to)

    def load_between(
        self, game_id: str, after: int, up_to: int, types: Sequence[str] | None = None,
        newest_first: bool = False, limit: int | None = None,
    ) -> list[StoredEvent]:
        """The game's events with `after` < seq <= `up_to` (only of `types`, if given), in seq order
        or newest first, at most `limit` of them: a part of the log, read by the (game_id, seq) key."""
        return log_reads.load_between(self._conn, game_id, after, up_to, types, newest_first, limit)

    def load_unchecked(self, game_id: str) -> list[StoredEvent]:
        """The game's rows in the order the database sorts their seq, numbered right or not (for audits)."""
        return log_reads.load_unchecked(self._conn, game_id)

    def load_for_command(self, game_id: str, use_snapshot: bool = True, after: KeptHead | None = None) -> CommandLoad:
        """The snapshot and the events after it, or the events after the head kept (`after`) when the
        log still holds it and the snapshot is the one seen, verified against the games row's head (one query)."""
        load, signature = load_for_command(self._conn, game_id, use_snapshot, self.keys, after)
        last = load.events[-1].seq if load.events else load.snapshot_seq
        self._heads.remember(game_id, last, load.head_hash, signature)
        return load

    def load_raw(self, game_id: str) -> list[dict[str, Any]]:
        """The game's full records (envelope, prev_hash, hash) as stored, for export."""
        return [stored.record() for stored in self.load(game_id)]

    def first_events(self, game_ids: Sequence[str]) -> list[StoredEvent]:
        """The first event (seq 1) of each of `game_ids` that has one, in one query per 500 ids."""
        return log_reads.first_events(self._conn, game_ids)

    def head(self, game_id: str) -> tuple[int, str] | None:
        """(seq, hash) of the game's last event, or None when the game has no events."""
        return log_reads.head(self._conn, game_id)

    def game_ids(self) -> list[str]:
        """Every game id, oldest first (from the games read model, not the whole log)."""
        return games_list.game_ids(self._conn)

    def games_changed_after(self, position: int) -> tuple[int, list[str]]:
        """(The log's newest position, the games with an event after `position`): SQLite commits one
        writer at a time, so positions commit in order there (PostgreSQL: see its notices)."""
        return log_reads.games_changed_after(self._conn, position)

    def logged_game_ids(self) -> list[str]:
        """Every game id the log holds events of (a scan of the log: for audits of everything)."""
        return log_reads.logged_game_ids(self._conn)

    # ---- appends (appending.py) -------------------------------------------------------------------

    def append(
        self,
        game_id: str,
        expected_seq: int,
        events: Sequence[BaseModel],
        summary: GameSummary | None = None,
        snapshot: str | None = None,
        expected_hash: str | None = None,
        recorded_at: str | None = None,
    ) -> list[StoredEvent]:
        """Append `events` after seq `expected_seq`, chaining hashes; update the read model and,
        when given, the snapshot (the JSON of the state after the last event).

        With `expected_hash` (the hash of event `expected_seq`, as the caller verified it) and
        a summary, the lean path: no head query, each event hashed once, one statement on
        PostgreSQL, the games row moved only from that very head (else ConcurrencyConflict,
        nothing written), and a finished game's kept seed forgotten in the same write.
        """
        lean = appending.is_lean(expected_seq, summary, expected_hash)
        self._may_write(lean)
        stored = appending.append(self._conn, self.keys, game_id, expected_seq, events, summary, snapshot,
                                  expected_hash, self._heads, recorded_at,
                                  self.deferred.append if lean and self.deferred is not None else None)
        if stored and not (lean and self._conn.dialect.name == "postgresql"):  # the lean statement NOTIFYs itself
            self.moved[game_id] = stored[-1].seq
        return stored

    def append_raw(
        self, records: Sequence[Mapping[str, Any]], summary: GameSummary | None = None, snapshot: str | None = None
    ) -> list[StoredEvent]:
        """Insert exported records verbatim (recorded_at, hashes as given; nothing verified);
        `snapshot`, for records of one game, is the JSON of its state after the last."""
        self._may_write()
        stored = appending.append_raw(self._conn, self.keys, records, summary, snapshot)
        for event in stored:
            self.moved[event.game_id] = max(event.seq, self.moved.get(event.game_id, 0))
        return stored

    def append_many(self, games: Sequence[tuple[Sequence[Mapping[str, Any]], GameSummary, str | None]]) -> int:
        """The bulk path (imports, benchmarks): whole exported histories of new games, verbatim
        (nothing verified: the caller audited them), each with its games-row summary and its
        snapshot (or None), in a few statements; ConcurrencyConflict if one exists already.

        A record's `data` is a dict, or already its canonical JSON text (as stored: the rows of
        a history cloned many times are encoded once)."""
        self._may_write()
        added = appending.append_many(self._conn, self.keys, games)
        for records, _, _ in games:
            self.moved[str(records[-1]["game_id"])] = int(records[-1]["seq"])
        return added

    # ---- the games read model and the snapshots (games_list.py) ------------------------------

    def put_snapshot(self, game_id: str, seq: int, head_hash: str, state: str) -> None:
        """Keep `state` (JSON) as the game's snapshot at event `seq`, tagged with this code's rules."""
        self._may_write()
        games_list.put_snapshot(self._conn, self.keys, game_id, seq, head_hash, state)

    def get_game(self, game_id: str) -> GameRow | None:
        """The read-model row of one game, or None."""
        return games_list.get_game(self._conn, game_id)

    def find_rematch(self, game_id: str) -> str | None:
        """The id of the rematch of game `game_id` (one at most), or None."""
        return games_list.find_rematch(self._conn, game_id)

    def games_of(self, player: str, ended_since: str) -> list[GameRow]:
        """The games `player` sits in that wait or run, or that ended at or after `ended_since`."""
        return games_list.games_of(self._conn, player, ended_since)

    def get_games(self, game_ids: Sequence[str]) -> dict[str, GameRow]:
        """The read-model rows of those of `game_ids` that are games here, by id (one query)."""
        return games_list.get_games(self._conn, game_ids)

    def list_games(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None, first_for: str | None = None,
                   after: ListedAfter | None = None) -> list[GameRow]:
        """Games from the read model, newest activity first, optionally filtered (`waiting_for`:
        the player to act, matched case-insensitively), at most `limit`; `first_for`'s games first;
        `after`: those that follow a page's last row."""
        return games_list.list_games(self._conn, status, waiting_for, limit, first_for, after)

    def count_listed(self, status: str | None = None, waiting_for: str | None = None,
                     at_most: int | None = None) -> int:
        """How many games `list_games` lists without a limit, counting no further than `at_most`."""
        return games_list.count_listed(self._conn, status, waiting_for, at_most)

    def expired_games(self, now: str, limit: int = 100) -> list[str]:
        """Running games whose player to act ran out of move time by `now` (recorded_at text, R28)."""
        return games_list.expired_games(self._conn, now, limit)

    def turns_and_ends(self, player: str, ended_since: str) -> list[GameRow]:
        """The games `player` sits in where he is to act, or that finished at or after
        `ended_since`, oldest activity first (one query)."""
        return games_list.turns_and_ends(self._conn, player, ended_since)

    def count_games(self) -> int:
        """How many games the read model holds."""
        return games_list.count_games(self._conn)

    # ---- secrets and tokens (the functions at the end) -----------------------------------------

    def put_secret(self, game_id: str, seed: str, salt: str) -> None:
        """Keep the seed of a running game (and its commitment salt) outside the log."""
        self._may_write()
        put_secret(self._conn, game_id, seed, salt)

    def get_secret(self, game_id: str) -> GameSecret | None:
        """The kept seed and salt of a game, or None (never stored, or already revealed)."""
        return get_secret(self._conn, game_id)

    def secret_game_ids(self, among: Sequence[str] | None = None) -> set[str]:
        """The ids of the games whose seed is kept here (the running games made here), only `among` these if given."""
        return secret_game_ids(self._conn, among)

    def delete_secret(self, game_id: str) -> None:
        """Forget a game's kept seed (once the log reveals it)."""
        self._may_write()
        delete_secret(self._conn, game_id)

    def put_token_hash(self, game_id: str, player: str, token_hash: str) -> None:
        """Store the hash of a player's token for a protected game."""
        self._may_write()
        put_token_hash(self._conn, game_id, player, token_hash)

    def get_token_hash(self, game_id: str, player: str) -> str | None:
        """The stored token hash of a player, or None."""
        return get_token_hash(self._conn, game_id, player)

    def use_nonce(self, nonce: RequestNonce) -> bool:
        """Remember a signed request's nonce in this unit of work (a command's too: in its
        transaction, or on PostgreSQL its own statement before the append); False: a replay."""
        self._may_write(lean=True)
        return spend_nonce(self._conn, nonce.key_id, nonce.nonce, nonce.expires_at, nonce.now)


class EventStore:
    """The store over one engine; every access goes through `transaction()` (or `command()`)."""

    def __init__(self, engine: Engine, keys: KeyRing | None = None, commit_together: bool = False) -> None:
        self.engine = engine
        #: The signing key (loaded on first use) and the trusted keys; default: KeyRing.default().
        self.keys = keys if keys is not None else KeyRing.default()
        self._heads = KnownHeads()
        #: A server's commands that arrive together commit together (commit_groups.py); None: each alone.
        self.groups = CommitGroups() if commit_together else None

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[StoreTransaction]:
        """A unit of work: commit on clean exit, roll back on any exception; once committed, the
        games it appended to are announced (PostgreSQL NOTIFY, notify.announce). Without `write`
        (a read) its write methods are refused."""
        with as_scat_errors(self.engine), one_writer(self.engine, write), self.engine.connect() as conn:
            if write:
                conn = conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                tx = StoreTransaction(conn, writes="any" if write else "none", keys=self.keys, heads=self._heads)
                yield tx
            announce(conn, tx.moved)

    @contextmanager
    def command(self) -> Iterator[StoreTransaction]:
        """A unit of work whose one write is a lean append (`append` with `expected_hash`).

        On PostgreSQL it runs without a transaction around it: the append is one statement,
        all or nothing by itself, so a command costs two round trips instead of four; any
        other write is refused there. That statement is made ready by `append` and run when
        the unit of work ends well, its last act (as a commit is): whatever fails after the
        append, within the unit, leaves nothing written. Elsewhere it is `transaction()`.

        A store that commits together (`commit_together`: a server's) runs it instead as a member
        of a group of commands (commit_groups.py), in the group's transaction, and returns once
        the group's COMMIT holds its writes.
        """
        if self.groups is not None:
            with as_scat_errors(self.engine), self.groups.member(self._group_connection) as (conn, moved):
                tx = StoreTransaction(conn, keys=self.keys, heads=self._heads)
                yield tx
                moved.update(tx.moved)
            return
        if self.engine.dialect.name != "postgresql":
            with self.transaction() as tx:
                yield tx
            return
        with as_scat_errors(self.engine), self.engine.connect() as conn, autocommit(conn):
            conn = conn.execution_options(**{WRITE_OPTION: True})
            tx = StoreTransaction(conn, writes="lean", keys=self.keys, heads=self._heads)
            try:
                yield tx
                for write in tx.deferred or ():
                    write()
            finally:
                announce(conn, tx.moved)

    @contextmanager
    def _group_connection(self, moved: dict[str, int]) -> Iterator[Connection]:
        """A group's connection (its leader's, for the transaction the group begins and commits): once
        the group is done with it, `moved` announced."""
        with as_scat_errors(self.engine), one_writer(self.engine), self.engine.connect() as conn:
            yield conn.execution_options(**{WRITE_OPTION: True})
            announce(conn, moved)

    def catch_up_stats(self, rebuild: bool = False) -> int:
        """Fold the events the stats projection has not seen into it (all, with `rebuild`); how many."""
        # start-up time: the projection loads only when the statistics are read
        from scat_core.store.sql.projections import STATS, catch_up, is_behind

        with as_scat_errors(self.engine):  # a read-only database: DatabaseReadOnly
            if not rebuild and not is_behind(self.engine, STATS):
                return 0  # nothing new: no write transaction (no lock on SQLite)
            return catch_up(self.engine, STATS, rebuild=rebuild).events

    def read_stats(self, player: str | None = None) -> StatsReport:
        """The stats projection's report; with `player`, only his line (if he has one)."""
        # start-up time: the projection loads only when the statistics are read
        from scat_core.store.sql.projections import read_stats

        with as_scat_errors(self.engine), self.engine.connect() as conn, conn.begin():
            return read_stats(conn, player)

    def ratings(self, settled: str, rebuild: bool = False, players: Collection[str] | None = None,
                ) -> list[PlayerRating]:
        """Every rated player's rating (with `players`, theirs only: only their rows are read), from
        the ratings kept and caught up (ratings_table.py: only the games won since the last read are
        folded; those won before `settled` are kept); folded anew with `rebuild`. A read-only
        database's are folded in memory, nothing written."""
        # start-up time: the projection loads only when the ratings are read
        from scat_core.store.sql.ratings_table import kept_ratings, unsaved_ratings

        only = None if players is None else rows_named(players)
        try:
            with as_scat_errors(self.engine):
                return kept_ratings(self.engine, settled, rebuild, only)
        except DatabaseReadOnly:
            with as_scat_errors(self.engine), self.engine.connect() as conn, conn.begin():
                return unsaved_ratings(conn, settled, rebuild, only)

    def read_stats_unsaved(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """`read_stats` with what the projection has not seen folded in memory; writes nothing."""
        # start-up time: the projection loads only when the statistics are read
        from scat_core.store.sql.projections import read_stats_unsaved

        with as_scat_errors(self.engine), self.engine.connect() as conn:
            if conn.dialect.name == "postgresql":  # the fold and the rows it adds to: one snapshot
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                return read_stats_unsaved(conn, player, rebuild)

    def wait_for_head(self, game_id: str, head: Callable[[], int], after: int, timeout: float | None) -> bool:
        """Block until `head()` passes `after`: PostgreSQL pushes (LISTEN/NOTIFY), SQLite polls."""
        with as_scat_errors(self.engine):
            return wait_for_head(self.engine, head, after, game_id, timeout)

    def wait_until(self, found: Callable[[], bool], timeout: float | None) -> bool:
        """Block until `found()`, asked again on each new event of any game: PostgreSQL pushes
        (LISTEN/NOTIFY), SQLite polls."""
        with as_scat_errors(self.engine):
            return wait_until(self.engine, found, timeout)

    def read(self) -> AbstractContextManager[StoreTransaction]:
        """A read-only unit of work: a read transaction on SQLite (no write lock; one snapshot of
        the database for all its statements); on PostgreSQL plain statements without BEGIN and
        ROLLBACK around them (two round trips fewer), as under its READ COMMITTED each statement
        sees its own snapshot anyway. Nothing may be written through it (RuntimeError)."""
        if self.engine.dialect.name != "postgresql":
            return self.transaction(write=False)
        return self._autocommit_reads()

    @contextmanager
    def _autocommit_reads(self) -> Iterator[StoreTransaction]:
        with as_scat_errors(self.engine), self.engine.connect() as conn, autocommit(conn):
            yield StoreTransaction(conn, writes="none", keys=self.keys, heads=self._heads)


if TYPE_CHECKING:
    from scat_core.service.ports import Store

    def _is_a_store(store: EventStore) -> Store:
        """A EventStore is a Store (mypy checks this; it never runs)."""
        return store


# What is kept outside the log: a running game's seed (and salt), and players' token hashes.
def put_secret(conn: Connection, game_id: str, seed: str, salt: str) -> None:
    """Keep the seed of a running game (and its commitment salt) outside the log."""
    conn.execute(t.game_secrets.insert().values(game_id=game_id, seed=seed, salt=salt))


def get_secret(conn: Connection, game_id: str) -> GameSecret | None:
    """The kept seed and salt of a game, or None (never stored, or already revealed)."""
    row = conn.execute(
        select(t.game_secrets.c.seed, t.game_secrets.c.salt).where(t.game_secrets.c.game_id == game_id)
    ).first()
    return None if row is None else GameSecret(seed=row[0], salt=row[1])


def secret_game_ids(conn: Connection, among: Sequence[str] | None = None) -> set[str]:
    """The ids of the games whose seed is kept here (the running games made here), only `among` these if given."""
    query = select(t.game_secrets.c.game_id)
    if among is not None:
        query = query.where(t.game_secrets.c.game_id.in_(list(among)))
    return {str(row[0]) for row in conn.execute(query)}


def delete_secret(conn: Connection, game_id: str) -> None:
    """Forget a game's kept seed (once the log reveals it)."""
    conn.execute(t.game_secrets.delete().where(t.game_secrets.c.game_id == game_id))


def put_token_hash(conn: Connection, game_id: str, player: str, token_hash: str) -> None:
    """Store the hash of a player's token for a protected game."""
    conn.execute(t.player_tokens.insert().values(game_id=game_id, player=player, token_hash=token_hash))


#: A move's token check (every move of a protected game): on the driver's own cursor (driver_sql.py).
_TOKEN_HASH = "SELECT token_hash FROM player_tokens WHERE game_id = %(game_id)s AND player = %(player)s"


def get_token_hash(conn: Connection, game_id: str, player: str) -> str | None:
    """The stored token hash of a player, or None."""
    rows = fetch_all(conn, named(conn, _TOKEN_HASH), {"game_id": game_id, "player": player})
    return str(rows[0][0]) if rows else None
