"""Opening the game service for a command: the database's, or a server's client with the same methods."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import typer

from scat_cli.settings import state

if TYPE_CHECKING:
    from scat_core.service.boundary import Games


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
    from scat_cli import wiring
    from scat_cli.seen_heads import save_seen, witnessed  # a game rolled back is noticed (seen_heads.py)
    from scat_cli.token_store import where

    given = state(ctx)
    with wiring.open_games(given.db_url, given.server) as opened:
        loaded()
        games = witnessed(opened, given.server if given.server else where(ctx), server=bool(given.server))
        try:
            yield games
        finally:
            save_seen(games)
