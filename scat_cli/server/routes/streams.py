"""The event streams: a game's events as they are appended (`GET /games/{id}/events`) and one stream
for all of a player's games until one waits for him (`POST /waiting`, `scat wait --any`). Each is
capped per client address and per process (429 over the caps)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncGenerator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from scat_cli.server.fanout import Subscriber, sse
from scat_cli.server.limits import ANSWERED, SERVER_SEND
from scat_cli.server.push import ANY
from scat_cli.server.routes.deps import Acting, Server, ServerState, SignedBy, Viewer, credential_of
from scat_cli.server.routes.errors import STREAM_RESPONSES, too_many_streams
from scat_cli.server.verify import FAILURES_ALLOWED
from scat_cli.wire import bodies
from scat_core.domain.errors import AuthFailed
from scat_core.records.credentials import ActingAccount
from scat_core.service.accounts import AccountView
from scat_core.service.games import GameService

router = APIRouter()
#: The last message of an event stream cut short because the server is stopping (the client says so).
STOPPING = 'event: stopping\ndata: {"error": "the server is stopping"}\n\n'
#: The event that ends a game's stream whose history was cut back while followed (fanout.Follower.rolled_back).
ROLLED_BACK = "rolledback"


class HungUp:
    """Whether the client of a stream hung up, and who to wake when it does."""

    def __init__(self) -> None:
        self.gone = False
        self.wake: Callable[[], None] = lambda: None

    def now(self) -> None:
        """The client hung up: say so, and wake the stream so that it ends."""
        self.gone = True
        self.wake()


class EventStream(Response):
    """A server-sent event stream that runs `closed` once it ends, however it ends (even unstarted).

    Lighter than Starlette's StreamingResponse, as a thousand of them may be open: no task group,
    one small task that hears the client hang up (`hung_up`), and the body's chunks handed to the
    server's own `send` (`SERVER_SEND`, put in the scope by LimitAndLog), past the middlewares'
    wrappers, which read only a response's start and end (both still go through them). Once it
    streams, it no longer counts as a request being answered (`ANSWERED`, answering.py)."""

    def __init__(self, content: AsyncGenerator[str, None], closed: Callable[[], None], hung_up: HungUp) -> None:
        self.status_code, self.background = 200, None
        self.raw_headers = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache"),
                            (b"x-accel-buffering", b"no")]  # no content-length: the body ends when the stream does
        self.content, self.closed, self.hung_up = content, closed, hung_up

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        hearing = asyncio.ensure_future(self._hear_hang_up(receive))
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            scope.get(ANSWERED, lambda: None)()  # streaming now: no longer a request to let through first
            body = scope.get(SERVER_SEND, send)
            async for chunk in self.content:
                if self.hung_up.gone:
                    return
                await body({"type": "http.response.body", "body": chunk.encode(), "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            hearing.cancel()
            await self.content.aclose()
            self.closed()

    async def _hear_hang_up(self, receive: Any) -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        self.hung_up.now()


def proven_tokens(games: GameService, player: str, body: bodies.WaitAnyIn,
                  wrong: Callable[[int], None]) -> dict[str, str]:
    """The tokens of `body` that are `player`'s (AnyTurn.proven, at most FAILURES_ALLOWED wrong
    ones looked at); `wrong` is told how many were wrong (a scrypt each in an old game) when that many
    refused nothing (a WrongToken is counted by the error handler, routes/errors.py)."""
    proven = games.any_turn.proven(player, body.tokens, FAILURES_ALLOWED)
    if proven.wrong:
        wrong(len(proven.wrong))
    return proven.kept


def waiting_as(games: GameService, body: bodies.WaitAnyIn, account: str | None,
               wrong: Callable[[int], None]) -> tuple[str, dict[str, str]]:
    """Who a `wait --any` for another player than the request's `account` (None: unsigned) waits
    as, and the games it may wait in: those of the player's per-game tokens that are his
    (AuthFailed when none is, worded for an account when the request has one)."""
    proven = proven_tokens(games, body.player, body, wrong)
    if proven:
        return body.player, proven
    if account is not None:
        raise AuthFailed(f"you are {account} on this server, not {body.player}: you wait as {account} (leave "
                         f"--as out), or as {body.player} with his tokens of games that have tokens",
                         player=body.player)
    raise AuthFailed(f"none of the tokens sent is {body.player}'s in a game of this server: scat sends "
                     "those it remembers for him (from `new`, or given once with --token)", player=body.player)


@router.get("/games/{game_id}/events", response_class=StreamingResponse, responses=STREAM_RESPONSES)
async def events(request: Request, game_id: str, server: Server, credential: Acting, viewer: Viewer = None,
                 after: Annotated[int, Query(ge=0, le=2**31)] = 0,
                 look: Annotated[bool, Query(description="false: record no look at the viewer's face-down hand "
                                                         "(R23): it stays face down")] = True) -> Response:
    """Server-sent events: each event after seq `after`, as `viewer` may see it, as it is appended
    (a keep-alive comment meanwhile); 429 over the caps of open streams."""
    caps, notifier, keep_alive = server.caps, server.notifier, server.keep_alive_seconds
    address = request.client.host if request.client else "-"
    refused = caps.take(address)
    if refused is not None:
        return too_many_streams(refused)
    subscriber: Subscriber | None = None
    try:  # the game's follower first, so that it has every event after this stream's first page
        subscriber = await server.followers.subscribe(game_id, viewer, credential, look)
        first = await run_in_threadpool(server.games.log_of, game_id, viewer, credential, look)  # refuses first
    except BaseException:
        if subscriber is not None:
            subscriber.leave()
        caps.give_back(address)
        raise
    subscriber.cursor = max(after, first.events[-1].seq if first.events else 0, subscriber.cursor)
    watching, hung_up = subscriber, HungUp()
    hung_up.wake = watching.poke
    told = "".join(sse(event.seq, event.type, event.model_dump_json()) for event in first.events if event.seq > after)
    over = first.state.status == "finished"
    del first  # a stream keeps no history: a thousand of them may be open

    async def stream() -> AsyncGenerator[str, None]:  # all the events at hand in one write
        if told:
            yield told
        if over:
            return
        while True:
            news = watching.news()
            if news:
                yield "".join(text for _, text in news)
            if watching.rolled_back is not None:  # the client stops, naming it (client.RemoteGames.watch)
                yield f"event: {ROLLED_BACK}\ndata: {json.dumps({'reason': watching.rolled_back})}\n\n"
                return
            if watching.ended or hung_up.gone:
                return
            if notifier.closed:
                yield STOPPING
                return
            if not await watching.wait(keep_alive):
                yield ": still here\n\n"  # keeps proxies open, tells the client the server is there

    def closed() -> None:
        watching.leave()
        caps.give_back(address)

    return EventStream(stream(), closed, hung_up)


@router.post("/waiting", response_class=StreamingResponse, responses=STREAM_RESPONSES)
async def waiting(request: Request, body: bodies.WaitAnyIn, server: Server, account: SignedBy) -> Response:
    """Server-sent events for `wait --any`, one stream for all of a player's games: first
    `told` (the cursor to send again when reconnecting), then, once a game waits for him
    or ended, `found` (a WaitedAny) and the end; a comment each second until then; 429 over
    the caps of open streams."""
    address = request.client.host if request.client else "-"
    if body.tokens:  # each may cost a scrypt (an old game's): not from an address that sent too many wrong ones lately
        server.verifier.hold_back_tokens(address, server.verifier.clock())
    refused = server.caps.take(address)
    if refused is not None:
        return too_many_streams(refused)
    hung_up = HungUp()
    try:
        response = await waiting_stream(hung_up, body, server, account, address)
    except BaseException:
        server.caps.give_back(address)
        raise
    return EventStream(response, lambda: server.caps.give_back(address), hung_up)


async def waiting_stream(hung_up: HungUp, body: bodies.WaitAnyIn, server: ServerState,
                         account: AccountView | None, address: str) -> AsyncGenerator[str, None]:
    """The stream of `POST /waiting`, once its player is proven (`account`: the one that signed it);
    it ends as soon as its client hangs up (HungUp wakes its wait). Its wrong tokens count against
    the client's `address` (verify.py)."""
    games, notifier = server.games, server.notifier
    credential = credential_of(None, account)

    def wrong(count: int) -> None:
        server.verifier.wrong_tokens.failed(address, server.verifier.clock(), count)

    if isinstance(credential, ActingAccount) and credential.name.casefold() == body.player.strip().casefold():
        player = credential.name  # his account's games, and any token game whose token he proves he has
        tokens = await run_in_threadpool(proven_tokens, games, player, body, wrong) if body.tokens else {}
    else:
        account_name = credential.name if isinstance(credential, ActingAccount) else None
        player, tokens, credential = *(await run_in_threadpool(waiting_as, games, body, account_name, wrong)), None
    seen = notifier.version(ANY)
    poll = server.pushed_poll_seconds  # every process's moves wake it (see watch_log): a look now and then anyway
    looking = games.any_turn.looking(player, tokens, body.told, credential, body.look)
    first = await run_in_threadpool(looking.look)

    def waking(wake: Callable[[], None]) -> None:
        hung_up.wake = wake

    async def stream() -> AsyncGenerator[str, None]:
        nonlocal seen
        yield f"event: told\ndata: {looking.told.model_dump_json()}\n\n"
        current, looked = first, time.monotonic()
        while True:
            if current is not None:
                yield f"event: found\ndata: {current.model_dump_json()}\n\n"
                return
            if notifier.closed:
                yield STOPPING
                return
            if hung_up.gone:
                return
            woke = await notifier.wait(ANY, seen, server.keep_alive_seconds, waking)  # its client hanging up ends it
            if hung_up.gone:
                return
            if notifier.closed:
                continue
            if not woke:
                yield ": still here\n\n"
                if time.monotonic() - looked < poll:
                    continue
            seen = notifier.version(ANY)
            current = await run_in_threadpool(looking.look)
            looked = time.monotonic()

    return stream()
