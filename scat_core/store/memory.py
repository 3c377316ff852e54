"""The in-memory store: the service's ports (scat_core.service.ports) over plain dicts and tuples.

It keeps what the SQLAlchemy store keeps, with the same guarantees (tests/store/
test_store_contract.py runs one suite on both): a hash-chained log per game, appended only
after the head the caller saw (else ConcurrencyConflict and nothing written), the games row,
snapshot, kept seed, tokens and head signatures moved in the same unit of work, and a unit of
work that commits whole on a clean exit and not at all on an exception.

Writers take turns (one lock, as SQLite's BEGIN IMMEDIATE): each works on a copy of the
tables and publishes it on commit; readers see the last committed tables. Nothing is kept
on disk: the store lives as long as the object (tests, a throwaway game). The statistics are
the stats projection's fold over the events not yet seen, and `MemoryAccountLog` is the second
adapter of the account log (`AccountLog`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from scat_core.domain.errors import Hint, NotFound
from scat_core.domain.events import to_record
from scat_core.domain.names import looks_of
from scat_core.domain.snapshot import SNAPSHOT_TAG
from scat_core.domain.stats import HANDLED_TYPES, GameLine, player_key
from scat_core.records.credentials import RequestNonce
from scat_core.records.errors import ConcurrencyConflict, CorruptHistory, HistoryDamaged
from scat_core.records.games import GameRow, GameSummary, ListedAfter, NewGame, sits_and_waits
from scat_core.records.signing import (
    HEAD,
    HeadSignature,
    KeyRing,
    StoredSignature,
    is_sealed,
    next_signature,
    sealed_snapshot,
)
from scat_core.records.stats import fold_line, ratings, report
from scat_core.records.stored_log import (
    GENESIS_HASH,
    CommandLoad,
    GameSecret,
    KeptHead,
    StoredEvent,
    canonical_json,
    chain_hash_raw,
    resumed_load,
    utc_now,
    verified_load,
)
from scat_core.service.ports import AccountLog, AccountRecord

if TYPE_CHECKING:
    from scat_core.records.stats import PlayerRating, StatsReport


class MemoryAccountLog:
    """Account records and request nonces held by this process only."""

    def __init__(self) -> None:
        self.records: list[AccountRecord] = []
        self.nonces: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def matching(self, skeleton: str | None, key_id: str | None,
                 looks: Sequence[str] = ()) -> tuple[int, list[AccountRecord]]:
        """The log's last seq and every record of the accounts named alike or holding `key_id` ever."""
        with self._lock:
            wanted = {r.skeleton for r in self.records if r.skeleton == skeleton or r.key_id == key_id
                      or bool(looks and set(looks) & set(looks_of(r.account)))}
            return len(self.records), [r for r in self.records if r.skeleton in wanted]

    def append(self, expected_head: int, records: Sequence[AccountRecord]) -> None:
        """Append the records; ConcurrencyConflict when the log moved past `expected_head`."""
        with self._lock:
            if len(self.records) != expected_head:
                raise ConcurrencyConflict("the accounts changed meanwhile: try again")
            if [r.seq for r in records] != list(range(expected_head + 1, expected_head + 1 + len(records))):
                raise ConcurrencyConflict("the accounts changed meanwhile: try again")
            self.records.extend(records)

    def use_nonce(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """Remember the nonce; False when it is remembered already (a replay)."""
        with self._lock:
            self.nonces, fresh = remembered(self.nonces, key_id, nonce, expires_at, now)
            return fresh


def remembered(nonces: dict[tuple[str, str], int], key_id: str, nonce: str, expires_at: int,
               now: int) -> tuple[dict[tuple[str, str], int], bool]:
    """`nonces` (key -> expiry) without those expired by `now`, with the nonce added; and whether it
    was not there already (False: a replay)."""
    kept = {key: until for key, until in nonces.items() if until >= now}
    if (key_id, nonce) in kept:
        return kept, False
    kept[(key_id, nonce)] = expires_at
    return kept, True


_: type[AccountLog] = MemoryAccountLog

#: One stored event in RECORD_KEYS order: game_id, seq, type, schema_version, recorded_at, data (JSON), prev, hash.
Row = tuple[str, int, str, int, str, str, str, str]
#: A kept snapshot: seq, hash, state_version, rules_version, state, mac (its seal, records/signing.py).
Snapshot = tuple[int, str, int, str, str, str | None]


@dataclass
class _Tables:
    """Everything the store holds; a writer changes a copy (values are immutable, so a shallow one)."""

    events: dict[str, tuple[Row, ...]] = field(default_factory=dict)
    games: dict[str, GameRow] = field(default_factory=dict)
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    secrets: dict[str, GameSecret] = field(default_factory=dict)
    tokens: dict[tuple[str, str], str] = field(default_factory=dict)
    signatures: dict[tuple[str, str], StoredSignature] = field(default_factory=dict)
    nonces: dict[tuple[str, str], int] = field(default_factory=dict)  # (key_id, nonce) -> expires_at
    stats: dict[str, GameLine] = field(default_factory=dict)  # the stats projection, per game
    log: tuple[tuple[str, int], ...] = ()  # (game_id, seq) in commit order: the projection's global order
    stats_seen: int = 0  # how much of `log` the stats projection has folded

    def copy(self) -> _Tables:
        return _Tables(dict(self.events), dict(self.games), dict(self.snapshots), dict(self.secrets),
                       dict(self.tokens), dict(self.signatures), dict(self.nonces), dict(self.stats), self.log,
                       self.stats_seen)


class MemoryTransaction:
    """One unit of work on a MemoryStore (its tables, or a copy being written)."""

    def __init__(self, tables: _Tables, keys: KeyRing, writes: str = "any") -> None:
        self._t = tables
        self._keys = keys
        # As the SQL store on PostgreSQL: a command ("lean") writes only by the lean append
        # (there one statement, with no transaction around it), a read ("none") not at all.
        self._writes = writes

    def _may_write(self, lean: bool = False) -> None:
        if self._writes != "any" and not (lean and self._writes == "lean"):
            raise RuntimeError("a read writes nothing, a command only by the lean append (with expected_hash) "
                               "and its request's nonce")

    # ---- the log -------------------------------------------------------------------------

    def load(self, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
        """The game's events in seq order, up to seq `up_to` inclusive; NotFound if none."""
        rows = [row for row in self._t.events.get(game_id, ()) if up_to is None or row[1] <= up_to]
        if not rows and (up_to is None or self.head(game_id) is None):
            raise NotFound(f"no game {game_id!r} in this database", game_id=game_id, hint=Hint.LIST_GAMES)
        bad = next((seq for seq, row in enumerate(rows, start=1) if row[1] != seq), None)
        if bad is not None:
            raise CorruptHistory(f"the stored history of game {game_id} is damaged (event {bad} is missing or "
                                 f"not numbered {bad})", game_id=game_id, hint=Hint.FIND_BAD_EVENT)
        return StoredEvent.from_rows(rows)

    def load_between(
        self, game_id: str, after: int, up_to: int, types: Sequence[str] | None = None,
        newest_first: bool = False, limit: int | None = None,
    ) -> list[StoredEvent]:
        """The game's events with `after` < seq <= `up_to` (only of `types`), oldest or newest first."""
        rows = [row for row in self._t.events.get(game_id, ())
                if after < row[1] <= up_to and (types is None or row[2] in types)]
        if newest_first:
            rows.reverse()
        return StoredEvent.from_rows(rows[:limit])

    def load_unchecked(self, game_id: str) -> list[StoredEvent]:
        """The game's rows in seq order, numbered right or not."""
        return StoredEvent.from_rows(self._t.events.get(game_id, ()))

    def load_for_command(self, game_id: str, use_snapshot: bool = True, after: KeptHead | None = None) -> CommandLoad:
        """The snapshot and the events after it, or the events after the head kept (`after`) when the
        log still holds it and the snapshot is the one seen, verified against the games row's head."""
        rows = self._t.events.get(game_id, ())
        game = self._t.games.get(game_id)
        if game is None:
            return verified_load(game_id, [], len(rows))
        signed = (game_id, HEAD) in self._t.signatures
        secret = self._t.secrets.get(game_id)
        snap = self._t.snapshots.get(game_id)
        if after is not None:
            known = (game.head_seq, game.head_hash, snap[0] if snap else None, snap[1] if snap else None, None,
                     secret.seed if secret else None, secret.salt if secret else None)
            resumed = resumed_load(game_id, [(*known, *row) for row in rows if row[1] >= after.checked_from], after)
            if resumed is not None:
                return replace(resumed, head_signed=signed)
        if snap is not None and not is_sealed(self._keys.snapshot_key(), game_id, *snap):
            snap = None  # proves nothing: as if there were none (records/signing.py)
        usable = use_snapshot and snap is not None and (snap[2], snap[3]) == SNAPSHOT_TAG
        prefix = (game.head_seq, game.head_hash, snap[0] if snap else None, snap[1] if snap else None,
                  snap[4] if usable and snap else None, secret.seed if secret else None,
                  secret.salt if secret else None)
        start = snap[0] if usable and snap else 1
        joined: list[tuple[object, ...]] = [(*prefix, *row) for row in rows if row[1] >= start]
        joined = joined or [(*prefix, *(None,) * 8)]  # a games row without events (a LEFT JOIN's row)
        load = verified_load(game_id, joined, len(rows))
        return replace(load, head_signed=signed)

    def load_raw(self, game_id: str) -> list[dict[str, Any]]:
        """The game's full records as stored."""
        return [stored.record() for stored in self.load(game_id)]

    def first_events(self, game_ids: Sequence[str]) -> list[StoredEvent]:
        """The first event of each of `game_ids` that has one."""
        firsts = (self._t.events.get(game_id, ()) for game_id in dict.fromkeys(game_ids))
        return [StoredEvent.from_row(rows[0]) for rows in firsts if rows and rows[0][1] == 1]

    def head(self, game_id: str) -> tuple[int, str] | None:
        """(seq, hash) of the game's last event, or None."""
        rows = self._t.events.get(game_id)
        return (rows[-1][1], rows[-1][7]) if rows else None

    def logged_game_ids(self) -> list[str]:
        """Every game id the log holds events of."""
        return [game_id for game_id, rows in self._t.events.items() if rows]

    def games_changed_after(self, position: int) -> tuple[int, list[str]]:
        """(The log's newest position, the games with an event after `position`): positions count
        the log's events in commit order from 1."""
        newest = len(self._t.log)
        return newest, sorted({game_id for game_id, _ in self._t.log[max(position, 0):]})

    def append(
        self, game_id: str, expected_seq: int, events: Sequence[BaseModel], summary: GameSummary | None = None,
        snapshot: str | None = None, expected_hash: str | None = None, recorded_at: str | None = None,
    ) -> list[StoredEvent]:
        """Append `events` after seq `expected_seq`, chained, with the games row, snapshot and signature.

        ConcurrencyConflict (nothing written) unless the log's head is `expected_seq` (and, with
        `expected_hash`, the games row's head is that event); a lean append (`expected_hash` and
        a summary) of a finished game forgets its kept seed, as the SQL store's does.
        """
        lean = expected_hash is not None and summary is not None and expected_seq > 0
        self._may_write(lean)
        head_seq, prev_hash = self.head(game_id) or (0, GENESIS_HASH)
        game = self._t.games.get(game_id)
        if head_seq != expected_seq or (lean and (game is None or (game.head_seq, game.head_hash)
                                                  != (expected_seq, expected_hash))):
            raise ConcurrencyConflict(f"game {game_id} changed meanwhile (you saw event {expected_seq}, it is now at "
                                      f"{head_seq}): look again and retry")
        if lean:
            prev_hash = str(expected_hash)
        now = recorded_at or utc_now()
        rows: list[Row] = []
        for seq, event in enumerate(events, start=expected_seq + 1):
            event_type, version, data = to_record(event)
            data_json = canonical_json(data).decode("utf-8")
            digest = chain_hash_raw(prev_hash, game_id, seq, event_type, version, now, data_json)
            rows.append((game_id, seq, event_type, version, now, data_json, prev_hash, digest))
            prev_hash = digest
        if not rows:
            return []
        first, last = rows[0], rows[-1]
        signing = next_signature(self._keys, self.read_signature(game_id), game_id, expected_seq, first[6],
                                 last[1], last[7])
        if game is None and expected_seq > 0:  # a running game's row was removed: refused, never re-created
            raise HistoryDamaged(game_id, "the games list has no entry for it")
        rematch = summary.rematch_of if summary is not None and game is None else None
        if rematch is not None and any(row.rematch_of == rematch for row in self._t.games.values()):
            raise ConcurrencyConflict(f"game {rematch} has its rematch already: look again")
        self._add_rows(game_id, rows)
        self._move_games_row(game_id, game, last, summary)
        if snapshot is not None:
            self._t.snapshots[game_id] = self._sealed(game_id, last[1], last[7], snapshot)
        if lean and summary is not None and summary.status in ("finished", "cancelled"):
            self._t.secrets.pop(game_id, None)
        if signing is not None:
            self._t.signatures[(game_id, HEAD)] = StoredSignature(last[1], last[7], signing[1])
        return StoredEvent.from_rows(rows)

    def append_many(self, games: Sequence[NewGame]) -> int:
        """Add whole histories of new games verbatim, each head signed; ConcurrencyConflict if one exists."""
        self._may_write()
        count = 0
        for records, summary, snapshot in games:
            game_id = str(records[0]["game_id"])
            if game_id in self._t.events or game_id in self._t.games:
                raise ConcurrencyConflict("a game being added is in this database already: nothing added")
            rows = [_row_of(record) for record in records]
            self._add_rows(game_id, rows)
            created = rows[0][4]
            self._t.games[game_id] = _new_row(game_id, created, rows[-1], summary)
            if snapshot is not None:
                self._t.snapshots[game_id] = self._sealed(game_id, rows[-1][1], rows[-1][7], snapshot)
            signature = self._keys.sign_head(game_id, rows[-1][1], rows[-1][7])
            self.write_signature(game_id, HEAD, rows[-1][1], rows[-1][7], signature)
            count += len(rows)
        return count

    def _sealed(self, game_id: str, seq: int, head_hash: str, state: str) -> Snapshot:
        """The snapshot row of `state` at event `seq` (hash `head_hash`), sealed with this installation's key."""
        sealed = sealed_snapshot(self._keys, game_id, seq, head_hash, state)
        return seq, head_hash, sealed["state_version"], sealed["rules_version"], state, sealed["mac"]

    def _add_rows(self, game_id: str, rows: Sequence[Row]) -> None:
        self._t.events[game_id] = (*self._t.events.get(game_id, ()), *rows)
        self._t.log = (*self._t.log, *((game_id, row[1]) for row in rows))

    def _move_games_row(self, game_id: str, game: GameRow | None, last: Row, summary: GameSummary | None) -> None:
        if game is None:
            self._t.games[game_id] = _new_row(game_id, last[4], last, summary)
            return
        moved = replace(game, head_seq=last[1], head_hash=last[7], last_activity=last[4])
        self._t.games[game_id] = moved if summary is None else _summarized(moved, summary)

    # ---- the games read model ------------------------------------------------------------

    def get_game(self, game_id: str) -> GameRow | None:
        """The row of one game, or None."""
        return self._t.games.get(game_id)

    def find_rematch(self, game_id: str) -> str | None:
        """The id of the rematch of game `game_id`, or None."""
        return next((row.game_id for row in self._t.games.values() if row.rematch_of == game_id), None)

    def games_of(self, player: str, ended_since: str) -> list[GameRow]:
        """The games `player` sits in that wait or run, or that ended at or after `ended_since`."""
        key = player.casefold()
        rows = sorted(self._t.games.values(), key=lambda row: (row.last_activity, row.game_id))
        return [row for row in rows if any(name.casefold() == key for name in row.players)
                and (row.status in ("pending", "active") or row.last_activity >= ended_since)]

    def get_games(self, game_ids: Sequence[str]) -> dict[str, GameRow]:
        """The rows of those of `game_ids` that are games here, by id."""
        return {game_id: self._t.games[game_id] for game_id in game_ids if game_id in self._t.games}

    def list_games(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None, first_for: str | None = None,
                   after: ListedAfter | None = None) -> list[GameRow]:
        """Rows newest activity first (then by id), of one status, or waiting for a name (any case), at most
        `limit`; the games `first_for` sits in first; `after`: those that follow a page's last row."""
        rows = sorted((row for row in self._t.games.values() if status is None or row.status == status
                       or (status == "open" and row.status == "pending" and row.open_seats > 0)),
                      key=lambda row: row.game_id)
        rows.sort(key=lambda row: row.last_activity, reverse=True)
        if waiting_for is not None:
            wanted = waiting_for.casefold()
            rows = [row for row in rows if row.turn is not None and row.turn.casefold() == wanted]
        key = None if first_for is None else first_for.casefold()

        def seated(row: GameRow) -> bool:  # matched as `--as` matches names (the SQL adapter's game_seats)
            return key is not None and any(name.casefold() == key for name in row.players)

        if key is not None:
            rows.sort(key=lambda row: not seated(row))  # stable
        if after is not None:
            def follows(row: GameRow) -> bool:
                if key is not None and seated(row) != after.seated:
                    return not seated(row)  # the others follow the player's own games
                return row.last_activity < after.last_activity or (
                    row.last_activity == after.last_activity and row.game_id > after.game_id)

            rows = [row for row in rows if follows(row)]
        return rows if limit is None else rows[:limit]

    def count_listed(self, status: str | None = None, waiting_for: str | None = None,
                     at_most: int | None = None) -> int:
        """How many games `list_games` lists without a limit, counting no further than `at_most`."""
        counted = len(self.list_games(status, waiting_for))
        return counted if at_most is None else min(counted, at_most)

    def expired_games(self, now: str, limit: int = 100) -> list[str]:
        """Running games whose player to act ran out of move time by `now` (recorded_at text, R28)."""
        rows = sorted((row for row in self._t.games.values() if row.status in ("active", "pending")
                       and row.move_deadline is not None and row.move_deadline <= now),
                      key=lambda row: row.move_deadline or "")
        return [row.game_id for row in rows[:limit]]

    def turns_and_ends(self, player: str, ended_since: str) -> list[GameRow]:
        """The games `player` sits in where he is to act, or that finished at or after `ended_since`,
        oldest activity first."""
        rows = sorted(self._t.games.values(), key=lambda row: (row.last_activity, row.game_id))
        return sits_and_waits([row for row in rows if row.status in ("active", "pending")
                               or row.last_activity >= ended_since], player)

    def game_ids(self) -> list[str]:
        """Every listed game id, oldest first."""
        return [row.game_id for row in sorted(self._t.games.values(), key=lambda row: (row.created_at, row.game_id))]

    # ---- secrets, tokens, signatures ----------------------------------------------------

    def put_secret(self, game_id: str, seed: str, salt: str) -> None:
        """Keep a new game's seed and salt (ConcurrencyConflict if one is kept already, as a primary key)."""
        self._may_write()
        if game_id in self._t.secrets:
            raise ConcurrencyConflict(f"game {game_id} has a kept seed already")
        self._t.secrets[game_id] = GameSecret(seed=seed, salt=salt)

    def get_secret(self, game_id: str) -> GameSecret | None:
        """The kept seed and salt, or None."""
        return self._t.secrets.get(game_id)

    def secret_game_ids(self, among: Sequence[str] | None = None) -> set[str]:
        """The ids of the games whose seed is kept here, only `among` these if given."""
        return set(self._t.secrets) if among is None else set(self._t.secrets).intersection(among)

    def put_token_hash(self, game_id: str, player: str, token_hash: str) -> None:
        """Keep the hash of a player's token (ConcurrencyConflict if he has one, as a primary key)."""
        self._may_write()
        if (game_id, player) in self._t.tokens:
            raise ConcurrencyConflict(f"{player} of game {game_id} has a token already")
        self._t.tokens[(game_id, player)] = token_hash

    def get_token_hash(self, game_id: str, player: str) -> str | None:
        """The hash of a player's token, or None."""
        return self._t.tokens.get((game_id, player))

    def use_nonce(self, nonce: RequestNonce) -> bool:
        """Remember a signed request's nonce with this unit of work's writes; False: a replay."""
        self._may_write(lean=True)
        self._t.nonces, fresh = remembered(self._t.nonces, nonce.key_id, nonce.nonce, nonce.expires_at, nonce.now)
        return fresh

    def read_signature(self, game_id: str, kind: str = HEAD) -> StoredSignature | None:
        """The stored signature of `kind`, or None."""
        return self._t.signatures.get((game_id, kind))

    def write_signature(self, game_id: str, kind: str, seq: int, head_hash: str, signature: HeadSignature) -> None:
        """Insert or replace the signature of `kind`."""
        self._may_write()
        self._t.signatures[(game_id, kind)] = StoredSignature(seq, head_hash, signature)


def _row_of(record: Mapping[str, Any]) -> Row:
    data = record["data"]
    data_json = data if type(data) is str else canonical_json(data).decode("utf-8")
    return (str(record["game_id"]), int(record["seq"]), str(record["type"]), int(record["schema_version"]),
            str(record["recorded_at"]), data_json, str(record["prev_hash"]), str(record["hash"]))


def _new_row(game_id: str, created_at: str, last: Row, summary: GameSummary | None) -> GameRow:
    row = GameRow(game_id=game_id, status="active", players=(), bots=(), turn=None, hand_number=1, dealer=None,
                  created_at=created_at, last_activity=last[4], winner=None, head_seq=last[1], head_hash=last[7],
                  protected=False)
    return row if summary is None else _summarized(row, summary)


def _summarized(row: GameRow, summary: GameSummary) -> GameRow:
    return replace(row, status=summary.status, players=tuple(summary.players), bots=tuple(summary.bots),
                   turn=summary.turn, hand_number=summary.hand_number, dealer=summary.dealer,
                   winner=summary.winner, protected=summary.protected, move_deadline=summary.move_deadline,
                   awaiting=tuple(summary.awaiting), open_seats=summary.open_seats, rematch_of=summary.rematch_of,
                   result=row.result if summary.result is None else summary.result,
                   creation=row.creation if summary.creation is None else summary.creation)


class MemoryStore:
    """The service's store in memory (see the module's docstring); `GameService(MemoryStore())`."""

    def __init__(self, keys: KeyRing | None = None) -> None:
        self.keys = keys if keys is not None else KeyRing.default()
        self._tables = _Tables()
        self._writer = threading.Lock()
        self._changed = threading.Condition()

    def transaction(self) -> AbstractContextManager[MemoryTransaction]:
        """A unit of work: its writes are published on a clean exit, dropped on any exception."""
        return self._unit("any")

    def command(self) -> AbstractContextManager[MemoryTransaction]:
        """A command's unit of work: its one write is an `append` with `expected_hash` (the lean append)."""
        return self._unit("lean")

    @contextmanager
    def read(self) -> Iterator[MemoryTransaction]:
        """A unit of work that writes nothing, over the last committed tables."""
        yield MemoryTransaction(self._tables, self.keys, writes="none")

    @contextmanager
    def _unit(self, writes: str) -> Iterator[MemoryTransaction]:
        if not self._writer.acquire(timeout=30):
            raise ConcurrencyConflict("another change held the store too long: try again")
        try:
            tables = self._tables.copy()
            yield MemoryTransaction(tables, self.keys, writes)
            with self._changed:
                self._tables = tables
                self._changed.notify_all()
        finally:
            self._writer.release()

    def catch_up_stats(self, rebuild: bool = False) -> int:
        """Fold the events the stats have not seen into them (all, with `rebuild`); how many were folded."""
        with self._writer:
            tables = self._tables.copy()
            if rebuild:
                tables.stats, tables.stats_seen = {}, 0
            folded = fold_into(tables.stats, tables.events, tables.log[tables.stats_seen:])
            tables.stats_seen = len(tables.log)
            self._tables = tables
        return folded

    def read_stats(self, player: str | None = None) -> StatsReport:
        """The statistics as of the last catch-up; with `player`, his line only (if he has one)."""
        return report(list(self._tables.stats.values()), player)

    def ratings(self, settled: str, rebuild: bool = False, players: Collection[str] | None = None,
                ) -> list[PlayerRating]:
        """Every rated player's rating over the statistics' won games (with `players`, theirs only),
        folded from all of them at each read (nothing kept: `settled` does not matter here, nor `rebuild`)."""
        found = ratings(list(self._tables.stats.values()))
        if players is None:
            return found
        keys = {player_key(name) for name in players}
        return [row for row in found if player_key(row.name) in keys]

    def read_stats_unsaved(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """`read_stats` with what the stats have not seen folded into a copy of them; changes nothing."""
        tables = self._tables
        lines = {} if rebuild else dict(tables.stats)
        fold_into(lines, tables.events, tables.log[0 if rebuild else tables.stats_seen:])
        return report(list(lines.values()), player)

    def wait_for_head(self, game_id: str, head: Callable[[], int], after: int, timeout: float | None) -> bool:
        """Block until `head()` passes `after` (every commit wakes it); False once `timeout` seconds pass."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while head() <= after:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(left)
        return True

    def wait_until(self, found: Callable[[], bool], timeout: float | None) -> bool:
        """Block until `found()`, asked again after every commit; False once `timeout` seconds pass."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while not found():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(left)
        return True


if TYPE_CHECKING:
    from scat_core.service.ports import Store

    def _is_a_store(store: MemoryStore) -> Store:
        """A MemoryStore is a Store (mypy checks this; it never runs)."""
        return store

def fold_into(lines: MutableMapping[str, GameLine], events: Mapping[str, Sequence[Sequence[object]]],
              unseen: Iterable[tuple[str, int]]) -> int:
    """Fold the `unseen` events (game_id, seq; in commit order) of the projection's types into `lines`."""
    folded = 0
    for game_id, seq in unseen:
        row = events[game_id][seq - 1]
        if row[2] not in HANDLED_TYPES:
            continue
        line = lines.get(game_id) or GameLine(game_id)
        if seq <= line.last_seq:
            continue  # folded in already: an event is never counted twice
        stored = StoredEvent.from_row(row)
        lines[game_id] = fold_line(line, stored.event, seq, stored.recorded_at)
        folded += 1
    return folded
