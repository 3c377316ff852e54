"""The peer of the #13 benchmark: the `eventsourcing` library doing the same shape of work.

A table of cards is an aggregate; a command gets it from the library's repository, decides
the events scat's command at the same point of its game appended (as many) and saves them
with the library's optimistic concurrency control, in its own transaction; a replay loads
aggregates of the same length as scat's games. Needs the `bench` extra:
`pip install -e '.[bench]'`.

The library runs in one of the settings of SETTINGS (#23 item 5: the best it can do, beside
how it runs by default), all documented by eventsourcing 9.5 (application.py, persistence):

* "no cache": the default; every command reads the aggregate's whole history;
* "cache": `AGGREGATE_CACHE_MAXSIZE` (its aggregate cache) with the default fast-forward: a
  command reads only the events after the cached version, so it stays right with several
  processes writing (as scat's command does: it checks the head it acts on);
* "cache+snapshots": the same and snapshotting (`snapshotting_intervals`, every
  SNAPSHOT_EVERY events), for the loads the cache misses;
* "cache, no fast-forward": `AGGREGATE_CACHE_FASTFORWARD=n` and
  `DEEPCOPY_FROM_AGGREGATE_CACHE=n` (and on PostgreSQL `POSTGRES_ENABLE_DB_FUNCTIONS=y`, one
  function call per save): a command reads nothing, it trusts the copy the last save left in
  memory. Right only while this process is the one writer (a second one is not seen).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy.engine import make_url

try:
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event
except ImportError:  # the optional `bench` extra is not installed
    Application = None  # type: ignore[assignment,misc]

CARDS = ("AS", "10H", "QD", "7C", "2S", "KH")
SNAPSHOT_EVERY = 10  # events between two snapshots, in the "cache+snapshots" setting


def available() -> bool:
    """Whether the eventsourcing library is installed."""
    return Application is not None


if Application is not None:

    class Table(Aggregate):
        """A table of cards: the hand of the player to act, one card changed per command."""

        @event("Opened")
        def __init__(self, players: int) -> None:
            self.players = players
            self.hand: list[str] = []
            self.turns = 0

        @event("Played")
        def play(self, card: str) -> None:
            self.hand = [*self.hand[-2:], card]
            self.turns += 1

    class Tables(Application):  # type: ignore[type-arg]
        """The application holding the tables."""

    class SnapshottingTables(Application):  # type: ignore[type-arg]
        """The application holding the tables, snapshotting each every SNAPSHOT_EVERY events."""

        snapshotting_intervals = {Table: SNAPSHOT_EVERY}  # noqa: RUF012 (the library's own class variable)

#: The library's settings compared (see the module's docstring): label -> (settings, snapshots).
SETTINGS: dict[str, tuple[dict[str, str], bool]] = {
    "no cache": ({}, False),
    "cache": ({"AGGREGATE_CACHE_MAXSIZE": "10000"}, False),
    "cache+snapshots": ({"AGGREGATE_CACHE_MAXSIZE": "10000"}, True),
    "cache, no fast-forward": ({"AGGREGATE_CACHE_MAXSIZE": "10000", "AGGREGATE_CACHE_FASTFORWARD": "n",
                                "DEEPCOPY_FROM_AGGREGATE_CACHE": "n", "POSTGRES_ENABLE_DB_FUNCTIONS": "y"}, False),
}
#: The settings safe with several writers: the goal is measured against the best of them.
SAFE = ("cache", "cache+snapshots")


def environment(sqlite_path: str | None = None, postgres_url: str | None = None,
                schema: str | None = None) -> dict[str, str]:
    """The library's settings for an SQLite file or a PostgreSQL schema."""
    if sqlite_path is not None:
        return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": sqlite_path}
    assert postgres_url is not None
    url = make_url(postgres_url)
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_DBNAME": str(url.database),
        "POSTGRES_HOST": str(url.host or "127.0.0.1"), "POSTGRES_PORT": str(url.port or 5432),
        "POSTGRES_USER": str(url.username or "postgres"), "POSTGRES_PASSWORD": str(url.password or ""),
    }
    if schema:
        env["POSTGRES_SCHEMA"] = schema
    return env


def open_app(env: dict[str, str], setting: str = "no cache") -> Any:
    """The application on that database in one of SETTINGS (tables created on first use)."""
    extra, snapshots = SETTINGS[setting]
    return (SnapshottingTables if snapshots else Tables)(env={**env, **extra})


def commands(app: Any, count: int, per_game: int) -> float:
    """Commands/s: load the aggregate, play a card, save; `per_game` commands per table."""
    return commands_like(app, [(1, [1] * per_game)] * (count // per_game + 1), count)[0]


#: A game as scat played it: (events its creation appended, events each command appended).
Game = tuple[int, Sequence[int]]


def commands_like(app: Any, games: Sequence[Game], count: int | None = None) -> tuple[float, float]:
    """(commands/s, events per game): tables made of as many events as scat's `games` when made, each
    command getting the table and saving as many events as scat's command at that point appended."""
    done, spent, lengths, tables = 0, 0.0, 0, 0
    for created, appended in games:
        if count is not None and done >= count:
            break
        table = Table(players=3)
        for turn in range(created - 1):
            table.play(CARDS[turn % len(CARDS)])
        app.save(table)
        table_id = table.id
        for events in appended[:None if count is None else count - done]:
            started = time.perf_counter()
            table = app.repository.get(table_id)
            for turn in range(events):
                table.play(CARDS[(table.turns + turn) % len(CARDS)])
            app.save(table)
            spent += time.perf_counter() - started
            done += 1
        lengths += table.version
        tables += 1
    return done / spent, lengths / tables


def tables_of(app: Any, lengths: Sequence[int]) -> list[UUID]:
    """Tables with these numbers of events, saved in one go each (for replays)."""
    ids = []
    for length in lengths:
        table = Table(players=3)
        for turn in range(length - 1):
            table.play(CARDS[turn % len(CARDS)])
        app.save(table)
        ids.append(table.id)
    return ids


def replay(app: Any, ids: Sequence[UUID]) -> int:
    """Load every table from its events; the number of events replayed."""
    return sum(app.repository.get(table_id).version for table_id in ids)
