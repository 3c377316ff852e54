"""The one wiring point: the only place that chooses the adapter the game service runs on.

A command of the CLI opens its games with `service(ctx)` (through `open_games`: a database, or
with `--server` the client of a Scat backend: the same methods, the same values, its answers
checked against the positions this user saw, remembered.py), `scat serve` with `open_database`,
and tests with either (a test of the service alone builds it over the memory adapter itself:
`GameService(MemoryStore())`). Each adapter is imported inside the function that builds it, on
purpose: a command through a server loads no SQLAlchemy, and a local one no HTTP client
(start-up time, tests/server/test_client_imports.py).
"""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from scat_cli.settings import state

if TYPE_CHECKING:
    from scat_cli.remote.client import RemoteGames
    from scat_core.service.boundary import Games
    from scat_core.service.games import GameService
    from scat_core.service.loading import Clock
    from scat_core.store.sql.event_store import EventStore


def open_database(url: str | None = None, *, pre_ping: bool = False, serving: bool = False,
                  commit_together: bool = False, clock: Clock | None = None) -> GameService[EventStore]:
    """The service over the database at `url` (or $SCAT_DB_URL, or the default file), with its account
    log; its schema brought up to date first. `pre_ping` (a server): each pooled connection is tested
    before use; `serving`: a server's service, which claims turns out of move time itself (R28);
    `commit_together`: the commands that arrive together are committed in one transaction (a server's,
    store/sql/commit_groups.py); `clock`: the time it reads (the system's by default)."""
    from scat_core.service.games import GameService
    from scat_core.service.loading import system_clock
    from scat_core.store.sql.account_log import SqlAccountLog
    from scat_core.store.sql.database import open_engine
    from scat_core.store.sql.event_store import EventStore

    engine = open_engine(url, pre_ping=pre_ping)
    return GameService(EventStore(engine, commit_together=commit_together), clock or system_clock,
                       accounts=SqlAccountLog(engine), server=serving)


def open_server(url: str) -> RemoteGames:
    """The client of the Scat backend at `url` (a context manager: its connection is closed on leaving)."""
    from scat_cli.remote.client import RemoteGames

    return RemoteGames(url)


@contextmanager
def open_games(db_url: str | None = None, server: str | None = None) -> Iterator[Games]:
    """The games a command plays: the backend at `server` when one is given, else the database at
    `db_url` (see `open_database`); closed, or its engine disposed of, on leaving."""
    if server:
        with open_server(server) as remote:
            yield remote
        return
    opened = open_database(db_url)
    try:
        yield opened
    finally:
        opened.store.engine.dispose()


def loaded() -> None:
    """Call once a command has imported what it uses: the garbage collector back to normal.

    The objects made so far (modules, classes: they live until exit) are frozen out of the
    collector's sight and its usual thresholds restored (see scat_cli/__init__.py). Once
    per process; `service` calls it.
    """
    import gc

    import scat_cli

    if gc.get_threshold() != scat_cli.GC_THRESHOLDS:
        gc.freeze()
        gc.set_threshold(*scat_cli.GC_THRESHOLDS)


@contextmanager
def service(ctx: typer.Context) -> Iterator[Games]:
    """The game service over this invocation's database, disposed of afterwards; with
    --server, the client of that backend, which has the same methods and values."""
    from scat_cli.remembered import save_seen, where, witnessed  # a game rolled back is noticed

    given = state(ctx)
    with open_games(given.db_url, given.server) as opened:
        loaded()
        games = witnessed(opened, given.server if given.server else where(ctx), server=bool(given.server))
        try:
            yield games
        finally:
            save_seen(games)
