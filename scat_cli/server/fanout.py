"""Event streams that fan out: per server process, one follower per game that has open streams
reads only the game's new events (woken by the Notifier, told of every process's appends by
PostgreSQL's notices or on SQLite by the process's one look at the log each second, and by a
look of its own now and then), redacts each once per kind of viewer and hands each stream the
events after its cursor; a stream never reads the log again itself."""

from __future__ import annotations

import asyncio
import bisect
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool

from scat_cli.server.answering import Answering
from scat_cli.server.limits import LOG
from scat_cli.server.push import Notifier
from scat_core.domain.evolve import evolve
from scat_core.domain.state import GameState
from scat_core.records.credentials import Credential
from scat_core.records.stored_log import StoredEvent
from scat_core.service.fanning import View, hands_to_show, seen_by_all, view_of
from scat_core.service.games import GameService
from scat_core.service.loading import replay

#: Past any seq a game will have: the upper bound of "every event after seq N".
NO_END = 2**31 - 1
#: How many streams a follower wakes at a time, before it lets requests being answered go first.
HAND_OUT = 16
#: How long, at most, a follower lets requests go first while it reads and hands out a batch of
#: events: then every stream is handed them at once, however busy the server.
HAND_OUT_PATIENCE = 0.5
#: (seq, SSE text per view): one event rendered once for each kind of viewer (None alone: all alike).
Rendered = tuple[int, dict[View, str]]


def sse(seen_seq: int, kind: str, data: str) -> str:
    """One server-sent event: its id (the seq), its type and its JSON."""
    return f"id: {seen_seq}\nevent: {kind}\ndata: {data}\n\n"


class StreamCaps:
    """How many event streams are open, per client address and in all; refuses one over either cap."""

    def __init__(self, per_address: int, total: int) -> None:
        self.per_address, self.total = per_address, total
        self.open: dict[str, int] = {}
        self.count = 0

    def take(self, address: str) -> str | None:
        """Count one more stream from `address`; else why not (the refusal's message)."""
        if self.count >= self.total:
            return f"too many open event streams on this server (at most {self.total}): try again later"
        if self.open.get(address, 0) >= self.per_address:
            return (f"too many open event streams from {address} (at most {self.per_address} per address): "
                    "close one or try again later")
        self.open[address] = self.open.get(address, 0) + 1
        self.count += 1
        return None

    def give_back(self, address: str) -> None:
        """One stream from `address` ended."""
        left = self.open.get(address, 0) - 1
        if left > 0:
            self.open[address] = left
        else:
            self.open.pop(address, None)
        self.count -= 1


@dataclass(eq=False)
class Subscriber:
    """One open stream of a game: the view it sees through and the last seq it was handed."""

    follower: Follower
    view: View
    token: Credential
    cursor: int
    look: bool = True  # his new hands looked at for him (R23), as a history read as him records it
    _news: bool = False
    _woken: asyncio.Event = field(default_factory=asyncio.Event)

    def poke(self) -> None:
        """The follower has news (or the server is stopping)."""
        self._news = True
        self._woken.set()

    async def wait(self, timeout: float) -> bool:
        """Until the follower has news (True) or `timeout` seconds pass (False); a timer, no task."""
        if not self._news:
            timer = asyncio.get_running_loop().call_later(timeout, self._woken.set)
            try:
                await self._woken.wait()
            finally:
                timer.cancel()
        news, self._news = self._news, False
        self._woken.clear()
        return news

    def news(self) -> list[tuple[int, str]]:
        """The events after the cursor, as this stream's view sees them, as SSE text (the cursor moves)."""
        chunks = self.follower.after(self.cursor, self.view)
        if chunks:
            self.cursor = chunks[-1][0]
        return chunks

    @property
    def ended(self) -> bool:
        """The game is over and this stream was handed its last event (or its follower failed, or found
        the game rolled back: `rolled_back`)."""
        return ((self.follower.finished and self.cursor >= self.follower.seq) or self.follower.failed
                or self.follower.rolled_back is not None)

    @property
    def rolled_back(self) -> str | None:
        """Why the game's history is not the one this stream was handed (cut back while followed), or None."""
        return self.follower.rolled_back

    def leave(self) -> None:
        """The stream ended: the follower forgets it (and stops once nobody follows)."""
        self.follower.leave(self)


class Follower:
    """One game followed for this process's streams: its state, and its recent events rendered once per view."""

    def __init__(self, followers: Followers, game_id: str) -> None:
        self.followers, self.game_id = followers, game_id
        self.state, self.seq, self.finished, self.failed = GameState(), 0, False, False
        self.head_hash = ""  # the hash of the event at `seq`: a history cut back under it is noticed by it
        self.rolled_back: str | None = None  # why the log is no longer the one followed (its streams end)
        self.subscribers: set[Subscriber] = set()
        self.rendered: list[Rendered] = []  # seq ascending: the events some subscriber may still need
        self.loaded: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task[None] | None = None

    def subscribe(self, viewer: str | None, token: Credential, look: bool = True) -> Subscriber:
        """A new stream, handed the events after the follower's seq until its first page sets its cursor
        (`look=False`: its player's new hands are not looked at for it, R23)."""
        subscriber = Subscriber(self, view_of(self.state, viewer), token, self.seq, look)
        self.subscribers.add(subscriber)
        return subscriber

    def leave(self, subscriber: Subscriber) -> None:
        """Forget `subscriber`; nobody left: stop following."""
        self.subscribers.discard(subscriber)
        if not self.subscribers:
            self.followers.drop(self)

    def after(self, cursor: int, view: View) -> list[tuple[int, str]]:
        """(seq, SSE text) of each event after `cursor` as `view` sees it."""
        start = bisect.bisect_right(self.rendered, cursor, key=lambda item: item[0])
        return [(seq, texts.get(view, texts[None])) for seq, texts in self.rendered[start:]]

    async def run(self, seen: int) -> None:
        """Follow the game until nobody listens, it ends, or the server stops; should it fail, its
        streams end (their clients open them again)."""
        try:
            await self._follow(seen)
        except Exception:
            LOG.exception("the follower of game %s failed", self.game_id)
            self.failed = True
            self.followers.drop(self)
            self._poke_all()

    async def _follow(self, seen: int) -> None:
        notifier, poll = self.followers.notifier, self.followers.poll
        while True:
            await notifier.wait(self.game_id, seen, poll)
            if notifier.closed:
                self._poke_all()
                return
            seen = notifier.version(self.game_id)
            watched = {s.view: s.token for s in self.subscribers if s.view is not None and s.look}
            until = asyncio.get_running_loop().time() + HAND_OUT_PATIENCE  # the read, too, after the requests
            await self.followers.answering.let_through(until)
            try:
                batch = await run_in_threadpool(self._read_new, watched)
            except Exception as error:  # the database is away, say: look again at the next wake
                LOG.warning("cannot follow game %s: %s", self.game_id, (str(error) or repr(error)).splitlines()[0])
                continue
            if batch is not None:
                self._add(*batch)
                await self._hand_out(until)
            if self.rolled_back is not None:
                self.followers.drop(self)
                self._poke_all()
                return
            if self.finished:
                self.followers.drop(self)
                return

    def _read_new(self, watched: dict[int, Credential]) -> tuple[GameState, list[Rendered]] | None:
        """The state after the events after the follower's seq, and each rendered once per view (None:
        no new event); one read of the store. First, when a new hand lies face down before a player
        who watches, his look (R23), as a history read as him would record it."""
        new = self._load_after(self.seq - 1) if self.seq else self._load_after(0)
        if self.seq:
            known = new.pop(0) if new else None
            if known is None or known.hash != self.head_hash:
                self.rolled_back = (f"the server's log of it went back to before event {self.seq}, which was shown "
                                    "while watched: its history was cut back to an older head (rolled back)"
                                    if known is None else
                                    f"the server shows another event {self.seq} than the one shown while watched: "
                                    "its history was rewritten (rolled back and played on)")
                LOG.warning("game %s was rolled back under its followers: %s", self.game_id, self.rolled_back)
                return None
        if not new:
            return None
        looks = hands_to_show(evolved(self.state, new), new, sorted(watched))
        for seat in looks:
            name = self.state.players[seat].name
            try:
                self.followers.games.playing.look(self.game_id, name, watched[seat])
            except Exception as error:  # his token no longer holds, say: his hand stays face down
                LOG.warning("cannot show %s his hand in game %s: %s", name, self.game_id, error)
        if looks:
            new += self._load_after(new[-1].seq)
        self.head_hash = new[-1].hash
        state, seen = seen_by_all(self.state, new)
        rendered: list[Rendered] = []
        for item in seen:
            if item.everyone is not None:
                rendered.append((item.seq, {None: sse(item.seq, item.everyone.type, item.everyone.model_dump_json())}))
            else:
                rendered.append((item.seq, {view: sse(item.seq, event.type, event.model_dump_json())
                                            for view, event in item.by_view.items()}))
        return state, rendered

    def _load_after(self, seq: int) -> list[StoredEvent]:
        """The stored events after `seq`, in seq order (one read, counted)."""
        self.followers.reads += 1
        with self.followers.games.store.read() as tx:
            new = tx.load_between(self.game_id, seq, NO_END)
        if any(stored.seq != seq + index + 1 for index, stored in enumerate(new)):
            raise RuntimeError(f"the log of game {self.game_id} skips a seq after {seq}")
        return new

    def load(self) -> int:
        """Read the whole game once, to follow it from its head; the Notifier's version before the read."""
        seen = self.followers.notifier.version(self.game_id)
        self.followers.reads += 1
        with self.followers.games.store.read() as tx:
            stored = tx.load(self.game_id)
        self.state = replay(self.game_id, stored)
        self.seq = stored[-1].seq if stored else 0
        self.head_hash = stored[-1].hash if stored else ""
        self.finished = self.state.status == "finished"
        return seen

    def _add(self, state: GameState, rendered: list[Rendered]) -> None:
        """Keep the new events' texts, hand them to every subscriber, forget what all were handed."""
        self.state, self.seq = state, rendered[-1][0]
        self.finished = state.status == "finished"
        self.rendered += rendered
        floor = min((s.cursor for s in self.subscribers), default=self.seq)
        del self.rendered[:bisect.bisect_right(self.rendered, floor, key=lambda item: item[0])]

    async def _hand_out(self, until: float) -> None:
        """Wake every subscriber, HAND_OUT at a time: between them, requests being answered (a move, a
        health check) go first, until the event loop's time `until`, rather than after a thousand
        streams' writes."""
        answering = self.followers.answering
        for index, subscriber in enumerate(list(self.subscribers)):
            subscriber.poke()
            if index % HAND_OUT == HAND_OUT - 1:
                await asyncio.sleep(0)
                await answering.let_through(until)

    def _poke_all(self) -> None:
        for subscriber in list(self.subscribers):
            subscriber.poke()


def evolved(state: GameState, new: list[StoredEvent]) -> GameState:
    """The state after `new`, from `state` (the state before them)."""
    for stored in new:
        state = evolve(state, stored.event)
    return state


class Followers:
    """The followers of this process, one per game with open streams; `reads` counts their store reads."""

    def __init__(self, games: GameService, notifier: Notifier, poll: float, answering: Answering) -> None:
        self.games, self.notifier, self.poll, self.answering = games, notifier, poll, answering
        self.following: dict[str, Follower] = {}
        self.reads = 0

    async def subscribe(self, game_id: str, viewer: str | None, token: Credential, look: bool = True) -> Subscriber:
        """A stream of the game, from the follower's head (the follower started and loaded first if none)."""
        follower = self.following.get(game_id)
        if follower is None:
            follower = self.following[game_id] = Follower(self, game_id)
            try:
                seen = await run_in_threadpool(follower.load)
            except BaseException as error:
                self.drop(follower)
                follower.loaded.set_exception(error if isinstance(error, Exception) else RuntimeError("cancelled"))
                follower.loaded.exception()  # retrieved: nobody else may wait for it
                raise
            follower.loaded.set_result(None)
            if not follower.finished:
                follower.task = asyncio.get_running_loop().create_task(follower.run(seen))
        else:
            await asyncio.shield(follower.loaded)
        return follower.subscribe(viewer, token, look)

    def drop(self, follower: Follower) -> None:
        """Stop `follower` (nobody listens, or the game is over): a new stream starts a new one."""
        if self.following.get(follower.game_id) is follower:
            del self.following[follower.game_id]
        if not follower.subscribers and follower.task is not None and follower.task is not asyncio.current_task():
            follower.task.cancel()

