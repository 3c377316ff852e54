"""Telling waiters that a game has new events: PostgreSQL LISTEN/NOTIFY, else cheap polling.

On PostgreSQL a trigger on the games read model (migration 0006) sends `NOTIFY scat_events,
'GAME:SEQ'` whenever a game's head moves, in the writing transaction: the notice goes out
exactly when the events are committed, to every process listening, whatever wrote them.
SQLite has no such thing: a waiter polls the game's head, a cheap indexed read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

CHANNEL = "scat_events"
POLL_SECONDS = 0.2  # SQLite: how often a waiter looks at the head


def libpq_url(engine: Engine) -> str:
    """The engine's URL as psycopg itself takes it (no SQLAlchemy driver name)."""
    return make_url(engine.url).set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """A dedicated PostgreSQL connection LISTENing on the channel (close it when done)."""

    def __init__(self, engine: Engine) -> None:
        import psycopg

        self._conn = psycopg.connect(libpq_url(engine), autocommit=True)
        self._conn.execute(f"LISTEN {CHANNEL}")

    def notices(self, timeout: float) -> Iterator[tuple[str, int]]:
        """(game, seq) of each notice that arrives within `timeout` seconds."""
        for notice in self._conn.notifies(timeout=max(timeout, 0.0)):
            game_id, _, seq = notice.payload.rpartition(":")
            yield game_id, int(seq) if seq.isdigit() else 0

    def close(self) -> None:
        """Stop listening."""
        self._conn.close()


def wait_for_head(engine: Engine, head: Callable[[], int], after: int, game_id: str, timeout: float | None) -> bool:
    """Block until `head()` (the game's last seq) passes `after`; False once `timeout` is over.

    On PostgreSQL the wait is pushed (LISTEN before the first look, so nothing is missed);
    on SQLite it polls.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    listener = Listener(engine) if engine.dialect.name == "postgresql" else None
    try:
        while True:
            if head() > after:
                return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            if listener is None:
                time.sleep(POLL_SECONDS if left is None else min(POLL_SECONDS, left))
                continue
            for notified, _ in listener.notices(5.0 if left is None else min(5.0, left)):
                if notified == game_id:
                    break
    finally:
        if listener is not None:
            listener.close()
