"""The peer of the #13 benchmark: the `eventsourcing` library doing the same shape of work.

A table of cards is an aggregate; a command loads it from its events (the library's
repository, no snapshots, as it is used by default), decides one event and saves it with
the library's optimistic concurrency control, in its own transaction; a replay loads
aggregates of the same length as scat's games. Needs the `bench` extra:
`pip install -e '.[bench]'`.
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


def open_app(env: dict[str, str]) -> Any:
    """The application on that database (tables created on first use)."""
    return Tables(env=env)


def commands(app: Any, count: int, per_game: int) -> float:
    """Commands/s: load the aggregate, play a card, save; `per_game` commands per table."""
    done, spent = 0, 0.0
    while done < count:
        table = Table(players=3)
        app.save(table)
        table_id = table.id
        for turn in range(min(per_game, count - done)):
            started = time.perf_counter()
            table = app.repository.get(table_id)
            table.play(CARDS[turn % len(CARDS)])
            app.save(table)
            spent += time.perf_counter() - started
            done += 1
    return done / spent


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
