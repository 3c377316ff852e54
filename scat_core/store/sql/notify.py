"""Telling waiters that a game has new events: PostgreSQL LISTEN/NOTIFY, else cheap polling.

On PostgreSQL the store itself announces each new head of a game, `pg_notify('scat_events',
'GAME:SEQ')`, to every process listening. A move (the lean append of appending.py: the player's
move and the bots' replies, one statement) sends it from that very statement, so inside its
transaction and without a round trip of its own (#23 item 2). Every other write (new games,
bots owed after one, imports, bulk loads) announces it once committed (`announce`, called by
EventStore for each unit of work that appended), on the same connection in a short
transaction of its own with `synchronous_commit` off. The price of the notice inside the
move's transaction: PostgreSQL serialises the commits of transactions that NOTIFY (a global
lock on the notice queue held through the commit's flush to disk), so concurrent moves on
different games commit one at a time (migration 0007 had moved 0006's trigger out of the
transaction for that; bench_server.py and bench_hotpath.py's writers measure both ways).

A notice sent after a commit can be lost (the process dies between its commit and its
notice, the connection drops): harmless, since a notice only wakes a waiter, which then
reads the game's head itself, and every waiter also looks at the head every
PUSHED_POLL_SECONDS without one. SQLite has no NOTIFY: a waiter polls the game's head, a
cheap indexed read.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.engine import Connection, make_url

CHANNEL = "scat_events"
POLL_SECONDS = 0.2  # SQLite: how often a waiter looks at the head
#: PostgreSQL: how often a waiter looks at the head when no notice came (one lost is thus late, not missed).
PUSHED_POLL_SECONDS = 5.0

#: One round trip, its own transaction (the connection is in autocommit then): the notice of
#: each head moved, sent when it commits, which need not wait for the disk (nothing to keep).
ANNOUNCE_ONE = f"SELECT set_config('synchronous_commit', 'off', true), pg_notify('{CHANNEL}', %s)"
_ANNOUNCE_MANY = (
    "SELECT set_config('synchronous_commit', 'off', true), "
    f"pg_notify('{CHANNEL}', payload) FROM unnest(%s::text[]) AS payload"
)
LOG = logging.getLogger(__name__)


def libpq_url(engine: Engine) -> str:
    """The engine's URL as psycopg itself takes it (no SQLAlchemy driver name)."""
    return make_url(engine.url).set(drivername="postgresql").render_as_string(hide_password=False)


def announce(conn: Connection, heads: Mapping[str, int]) -> None:
    """On PostgreSQL, NOTIFY the new head (game -> seq) of each game a committed unit of work moved.

    Call it only after the commit, on that connection (no transaction open on it). A failure
    is logged, never raised: the move stands, and waiters find it by looking (PUSHED_POLL_SECONDS).
    """
    if not heads or conn.dialect.name != "postgresql":
        return
    # only on PostgreSQL: SQLite installs need no psycopg
    import psycopg

    # Straight through the driver: a command pays this round trip, not SQLAlchemy's work around it too.
    driver: Any = conn.connection.driver_connection
    try:
        if driver.autocommit:
            send(driver, heads)
        else:  # after a transaction's commit: its own transaction, without BEGIN and COMMIT round trips
            driver.autocommit = True
            try:
                send(driver, heads)
            finally:
                driver.autocommit = False
    except psycopg.Error as error:  # the connection lost, say: the move stands all the same
        LOG.warning("could not announce new events of %s: %s", ", ".join(heads)[:200],
                    str(error).splitlines()[0] if str(error) else type(error).__name__)
        if driver.broken:
            conn.invalidate()  # as SQLAlchemy would have: the pool hands it out no more


def send(driver: Any, heads: Mapping[str, int]) -> None:
    """Send the notices of `heads` on the psycopg connection `driver` (in autocommit)."""
    payloads = [f"{game_id}:{seq}" for game_id, seq in heads.items()]
    if len(payloads) == 1:
        driver.execute(ANNOUNCE_ONE, (payloads[0],)).close()
    else:
        driver.execute(_ANNOUNCE_MANY, (payloads,)).close()


class Listener:
    """A dedicated PostgreSQL connection LISTENing on the channel (close it when done)."""

    def __init__(self, engine: Engine) -> None:
        # only on PostgreSQL: SQLite installs need no psycopg
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

    On PostgreSQL the wait is pushed (LISTEN before the first look, so nothing is missed) and
    the head is read again after each notice of the game and at least every
    PUSHED_POLL_SECONDS (a lost notice delays the waiter, never strands it); on SQLite it polls.
    """
    return wait_until(engine, lambda: head() > after, timeout, game_id)


def wait_until(engine: Engine, found: Callable[[], bool], timeout: float | None, game_id: str | None = None) -> bool:
    """Block until `found()`; False once `timeout` is over. It is asked at once, then on
    PostgreSQL after each notice (of `game_id`, or of any game without one) and at least every
    PUSHED_POLL_SECONDS, on SQLite every POLL_SECONDS (so `found` should be one cheap query)."""
    if timeout is not None and timeout <= 0:
        return found()  # one look, without a LISTEN connection
    deadline = None if timeout is None else time.monotonic() + timeout
    listener = Listener(engine) if engine.dialect.name == "postgresql" else None
    try:
        while True:
            if found():
                return True
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            if listener is None:
                time.sleep(POLL_SECONDS if left is None else min(POLL_SECONDS, left))
                continue
            look_again = PUSHED_POLL_SECONDS if left is None else min(PUSHED_POLL_SECONDS, left)
            for notified, _ in listener.notices(look_again):
                if game_id is None or notified == game_id:
                    break
    finally:
        if listener is not None:
            listener.close()
