"""The ports of the game service: exactly what it needs of a store, as Protocols it owns.

An adapter is any class with these methods: `scat_core.store.sql.event_store.EventStore` over
SQLAlchemy (SQLite, PostgreSQL) and `scat_core.store.memory.MemoryStore` (plain dicts, for
tests); mypy checks that both satisfy `Store` (see the checks at the end of their modules),
and tests/store/test_store_contract.py holds both to the same behaviour. The types they speak
are `scat_core.records`'; nothing here imports an adapter.

A unit of work (`transaction()`, `command()`, `read()`) is all or nothing: it commits on a
clean exit and rolls back on any exception. Every write of a command happens in one. The
account service's port, `AccountLog` (the append-only account log and the nonces of signed
requests), is here too: `store/sql/account_log.py` and `store/memory.py` adapt it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pydantic import BaseModel

    from scat_core.records.credentials import RequestNonce
    from scat_core.records.games import GameRow, GameSummary, ListedAfter, NewGame
    from scat_core.records.signing import HeadSignature, KeyRing, StoredSignature
    from scat_core.records.stats import PlayerRating, StatsReport
    from scat_core.records.stored_log import CommandLoad, GameSecret, KeptHead, StoredEvent



class EventLog(Protocol):
    """The append-only, hash-chained log of each game (seq from 1, each event chained to the one before)."""

    def load(self, game_id: str, up_to: int | None = None) -> list[StoredEvent]:
        """The game's events in seq order, up to `up_to`; NotFound if none, CorruptHistory if misnumbered."""
        ...

    def load_between(
        self, game_id: str, after: int, up_to: int, types: Sequence[str] | None = None,
        newest_first: bool = False, limit: int | None = None,
    ) -> list[StoredEvent]:
        """The events with `after` < seq <= `up_to` (only of `types`), oldest or newest first, at most `limit`."""
        ...

    def load_unchecked(self, game_id: str) -> list[StoredEvent]:
        """The game's events in seq order, numbered right or not (for audits)."""
        ...

    def load_for_command(self, game_id: str, use_snapshot: bool = True, after: KeptHead | None = None) -> CommandLoad:
        """The snapshot, the events after it, the kept seed and the head, verified against the games row.

        `after`: the head the caller kept the state of, and the snapshot it saw; when the log still
        holds both and the snapshot is the same, the load is `resumed`: the events from that
        snapshot's on checked, those after the kept head returned, the snapshot's state not read.
        HistoryDamaged when the log is not the one the games row recorded; NotFound for no game.
        """
        ...

    def load_raw(self, game_id: str) -> list[dict[str, Any]]:
        """The game's full records (envelope, prev_hash, hash) as stored."""
        ...

    def first_events(self, game_ids: Sequence[str]) -> list[StoredEvent]:
        """The first event of each of `game_ids` that has one."""
        ...

    def head(self, game_id: str) -> tuple[int, str] | None:
        """(seq, hash) of the game's last event, or None without events."""
        ...

    def logged_game_ids(self) -> list[str]:
        """Every game id the log holds events of."""
        ...

    def games_changed_after(self, position: int) -> tuple[int, list[str]]:
        """(The log's newest position, the ids of the games with an event after `position`): what
        changed since a look that saw `position`, where writers commit one at a time (SQLite,
        memory; a position on PostgreSQL may commit after a higher one: its notices tell instead)."""
        ...

    def append(
        self, game_id: str, expected_seq: int, events: Sequence[BaseModel], summary: GameSummary | None = None,
        snapshot: str | None = None, expected_hash: str | None = None, recorded_at: str | None = None,
    ) -> list[StoredEvent]:
        """Append `events` after seq `expected_seq` (hash `expected_hash`), chained, with the games row,
        the snapshot and the head's signature; ConcurrencyConflict (nothing written) if the head moved.

        `recorded_at`: the events' time as the caller's clock decided it (R28); None: the store's clock.

        With `expected_hash` and a summary, a finished game's kept seed is forgotten in the same write.
        """
        ...

    def append_many(self, games: Sequence[NewGame]) -> int:
        """Add whole histories of new games verbatim, each head signed; ConcurrencyConflict if one exists."""
        ...


class GamesReadModel(Protocol):
    """The games list: one row per game, moved by every append in the same unit of work."""

    def get_game(self, game_id: str) -> GameRow | None:
        """The row of one game, or None."""
        ...

    def get_games(self, game_ids: Sequence[str]) -> dict[str, GameRow]:
        """The rows of those of `game_ids` that are games here, by id (one read, however many)."""
        ...

    def list_games(self, status: str | None = None, waiting_for: str | None = None,
                   limit: int | None = None, first_for: str | None = None,
                   after: ListedAfter | None = None) -> list[GameRow]:
        """Rows newest activity first, of one status ("open": the lobby, pending games with an open seat),
        or whose player to act is `waiting_for` (any case), at most `limit` (a page costs the same
        however many games there are); with `first_for`, the games that player sits in come first
        (each part newest activity first); `after`: the rows that follow the row a page ended with
        (a cursor: each page costs the same however deep)."""
        ...

    def find_rematch(self, game_id: str) -> str | None:
        """The id of the rematch of game `game_id` (one at most), or None."""
        ...

    def games_of(self, player: str, ended_since: str) -> list[GameRow]:
        """The games `player` sits in (any case) that wait for their players or run, or that ended at
        or after `ended_since` (a recorded time), oldest activity first (`scat status`)."""
        ...

    def count_listed(self, status: str | None = None, waiting_for: str | None = None,
                     at_most: int | None = None) -> int:
        """How many rows `list_games` gives without a limit, counting no further than `at_most`."""
        ...

    def expired_games(self, now: str, limit: int = 100) -> list[str]:
        """Running games whose player to act ran out of move time by `now` (recorded_at text, R28),
        longest out first: found in the read model, no event log read."""
        ...

    def turns_and_ends(self, player: str, ended_since: str) -> list[GameRow]:
        """The rows of the games `player` sits in (any case) where he is to act in a running game,
        or that finished at or after `ended_since` (a recorded time), oldest activity first; one
        query however many games there are (what `scat wait --any` looks at on each poll)."""
        ...

    def game_ids(self) -> list[str]:
        """Every listed game id, oldest first."""
        ...


class SecretsAndTokens(Protocol):
    """What is kept outside the log: a running game's seed and salt, the hashes of player tokens."""

    def put_secret(self, game_id: str, seed: str, salt: str) -> None:
        """Keep a new game's seed and salt."""
        ...

    def get_secret(self, game_id: str) -> GameSecret | None:
        """The kept seed and salt, or None (never kept here, or forgotten once revealed)."""
        ...

    def secret_game_ids(self, among: Sequence[str] | None = None) -> set[str]:
        """The ids of the games whose seed is kept here, only `among` these if given."""
        ...

    def put_token_hash(self, game_id: str, player: str, token_hash: str) -> None:
        """Keep the hash of a player's token."""
        ...

    def get_token_hash(self, game_id: str, player: str) -> str | None:
        """The hash of a player's token, or None."""
        ...


class HeadSignatures(Protocol):
    """Each game's signed head ("head") and the signature it was imported with ("origin")."""

    def read_signature(self, game_id: str, kind: str = "head") -> StoredSignature | None:
        """The stored signature of `kind`, or None."""
        ...

    def write_signature(self, game_id: str, kind: str, seq: int, head_hash: str, signature: HeadSignature) -> None:
        """Insert or replace the signature of `kind`."""
        ...


class RequestNonces(Protocol):
    """The nonces of the signed requests served lately: each request is served once."""

    def use_nonce(self, nonce: RequestNonce) -> bool:
        """Remember `nonce` until it expires, with the unit of work's other writes (a command's too);
        False when it is remembered already (a replayed request)."""
        ...


class UnitOfWork(EventLog, GamesReadModel, SecretsAndTokens, HeadSignatures, RequestNonces, Protocol):
    """One open unit of work: the log, the games list, secrets, tokens, signatures and nonces together."""


class Store(Protocol):
    """A store the service runs on: units of work, the signing keys, statistics and waiting."""

    @property
    def keys(self) -> KeyRing:
        """The key that signs heads here and the keys trusted here."""
        ...

    def transaction(self) -> AbstractContextManager[UnitOfWork]:
        """A unit of work for any writes: commit on a clean exit, roll back on an exception."""
        ...

    def command(self) -> AbstractContextManager[UnitOfWork]:
        """A unit of work whose one write is an `append` with `expected_hash` (a command's)."""
        ...

    def read(self) -> AbstractContextManager[UnitOfWork]:
        """A unit of work that writes nothing."""
        ...

    def catch_up_stats(self, rebuild: bool = False) -> int:
        """Fold the events the statistics have not seen into them (all, with `rebuild`); how many."""
        ...

    def read_stats(self, player: str | None = None) -> StatsReport:
        """The statistics as of the last catch-up; with `player`, his line only (if he has one)."""
        ...

    def ratings(self, settled: str, rebuild: bool = False, players: Collection[str] | None = None,
                ) -> list[PlayerRating]:
        """Every rated player's rating over the won games of the statistics as of their last
        catch-up (records/stats.py's fold, highest first); with `players`, only theirs (names, any
        case; as humans and as bots); folded anew with `rebuild`. A store may
        keep the fold of the games won before `settled` (recorded_at text) and fold only those won
        since its last read; it writes nothing on a read-only database."""
        ...

    def read_stats_unsaved(self, player: str | None = None, rebuild: bool = False) -> StatsReport:
        """`read_stats` with the events they have not seen (all, with `rebuild`) folded in memory;
        writes nothing (the statistics of a read-only database)."""
        ...

    def wait_for_head(self, game_id: str, head: Callable[[], int], after: int, timeout: float | None) -> bool:
        """Block until `head()` passes `after` (woken by appends); False once `timeout` seconds pass."""
        ...

    def wait_until(self, found: Callable[[], bool], timeout: float | None) -> bool:
        """Block until `found()`, asked at once and again after appends to any game (each notice
        on PostgreSQL, a few times a second on SQLite); False once `timeout` seconds pass."""
        ...


@dataclass(frozen=True)
class AccountRecord:
    """One stored account event: its place in the log (seq from 1), the account it is about
    (name and name skeleton), the key it names, its type, schema version, data and time."""

    seq: int
    account: str
    skeleton: str
    key_id: str
    type: str
    schema_version: int
    data: dict[str, Any]
    recorded_at: str


class AccountLog(Protocol):
    """The log of every account event, numbered from 1 across all accounts, never changed."""

    def matching(self, skeleton: str | None, key_id: str | None,
                 looks: Sequence[str] = ()) -> tuple[int, list[AccountRecord]]:
        """The log's last seq (0: empty) and, in seq order, every record of each account whose
        name has `skeleton` (names.skeleton, the record's), or one of `looks` (skeletons.looks_of,
        through the name index the adapter folds from the records), or that has ever held the
        key `key_id`."""
        ...

    def append(self, expected_head: int, records: Sequence[AccountRecord]) -> None:
        """Append `records` (numbered from `expected_head` + 1) in one unit of work;
        ConcurrencyConflict when the log's last seq is no longer `expected_head`."""
        ...

    def use_nonce(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """Remember `nonce` of `key_id` until `expires_at` (Unix seconds); False when it is remembered
        already (a replay). Nonces expired by `now` may be forgotten."""
        ...
