"""Push in the server: who is waiting for which game, woken by this process's own writes and by
every process's: on PostgreSQL by LISTEN/NOTIFY on one connection per server process, on SQLite
by one look at the log each second per server process (whatever the number of streams)."""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict
from collections.abc import Callable

from sqlalchemy import Engine

from scat_cli.server.limits import LOG
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.notify import Listener

#: The key of the change counter of every game at once (no game id is empty): `wait --any`'s.
ANY = ""


class Notifier:
    """A change counter per game, one of all games (ANY), and the asyncio waiters on them (thread-safe `changed`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._versions: dict[str, int] = defaultdict(int)
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = defaultdict(set)
        self.closed = False  # the server is stopping: every wait ends at once

    def close(self) -> None:
        """The server is stopping: wake every waiter of every game, now and from now on (any thread)."""
        with self._lock:
            self.closed = True
            waiters = [waiter for game_waiters in self._waiters.values() for waiter in game_waiters]
        for loop, event in waiters:
            loop.call_soon_threadsafe(event.set)

    def version(self, game_id: str) -> int:
        """How many changes of the game this process heard of (read before looking at the game)."""
        with self._lock:
            return self._versions[game_id]

    def changed(self, game_id: str) -> None:
        """The game has new events: wake its waiters and those of any game (from any thread)."""
        with self._lock:
            self._versions[game_id] += 1
            self._versions[ANY] += 1
            waiters = [*self._waiters.get(game_id, ()), *self._waiters.get(ANY, ())]
        for loop, event in waiters:
            loop.call_soon_threadsafe(event.set)

    async def wait(self, game_id: str, seen: int, timeout: float,
                   waking: Callable[[Callable[[], None]], object] | None = None) -> bool:
        """Until the game changes after version `seen`; False after `timeout` seconds (a timer: no
        task per wait, as a thousand idle streams each wait every second), or once woken early by
        whoever `waking` hands the wait's wake-up to (a stream whose client hung up: False too)."""
        event, loop = asyncio.Event(), asyncio.get_running_loop()
        with self._lock:
            if self._versions[game_id] != seen or self.closed:
                return True
            self._waiters[game_id].add((loop, event))
        if waking is not None:
            waking(event.set)
        timer = loop.call_later(timeout, event.set)
        try:
            await event.wait()
            with self._lock:
                return self._versions[game_id] != seen or self.closed
        finally:
            timer.cancel()
            with self._lock:
                self._waiters[game_id].discard((loop, event))
                if not self._waiters[game_id]:
                    del self._waiters[game_id]


def listen(engine: Engine, notifier: Notifier, stop: threading.Event) -> threading.Thread | None:
    """On PostgreSQL, a thread relaying every NOTIFY to `notifier` until `stop`; else None."""
    if engine.dialect.name != "postgresql":
        return None

    def relay() -> None:
        while not stop.is_set():
            try:
                listener = Listener(engine)
            except Exception as error:  # the database is away: try again shortly
                LOG.warning("cannot LISTEN for new events: %s", str(error).splitlines()[0] if str(error) else error)
                stop.wait(2.0)
                continue
            try:
                while not stop.is_set():
                    for game_id, _ in listener.notices(1.0):
                        notifier.changed(game_id)
            except Exception as error:
                LOG.warning("lost the LISTEN connection: %s", str(error).splitlines()[0] if str(error) else error)
            finally:
                listener.close()

    thread = threading.Thread(target=relay, name="scat-listen", daemon=True)
    thread.start()
    return thread


def watch_log(store: EventStore, notifier: Notifier, stop: threading.Event, every: float,
              wanted: Callable[[], bool]) -> threading.Thread | None:
    """On SQLite (no NOTIFY), a thread telling `notifier` of each game another process (or this
    one) appended to, from one look at the log every `every` seconds while `wanted()` (streams
    are open; the first look tells what changed since the last), until `stop`; None on
    PostgreSQL, whose notices tell."""
    if store.engine.dialect.name == "postgresql":
        return None

    def look() -> None:
        seen: int | None = None  # the newest position of the last look (None: none yet)
        while True:
            if seen is None or wanted():  # the first look at once: every later append is told
                try:
                    with store.read() as tx:
                        newest, changed = tx.games_changed_after(NO_POSITION if seen is None else seen)
                except Exception as error:  # the database is away: look again shortly
                    LOG.warning("cannot look for new events: %s", (str(error) or repr(error)).splitlines()[0])
                else:
                    for game_id in changed:
                        notifier.changed(game_id)
                    seen = newest
            if stop.wait(every):
                return

    thread = threading.Thread(target=look, name="scat-watch-log", daemon=True)
    thread.start()
    return thread


#: Past any position of the log: a look from it finds only the newest position.
NO_POSITION = 2**62
