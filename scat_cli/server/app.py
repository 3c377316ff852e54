"""The FastAPI application of `scat serve`: one endpoint per use case of the game service.

Every game created here is protected (a bearer token per human). Responses are the
service's own values (scat_core.service.values), whose states and events the service has
already redacted for the authenticated viewer.
Refusals are ScatErrors mapped once, by exception handlers, to an HTTP status and the one
line the CLI prints. The app keeps no state but the database (and what its event streams'
followers read of it, fanout.py): several processes may serve one PostgreSQL database (the
store's optimistic concurrency keeps it consistent).
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from scat_cli.errors import exit_code
from scat_cli.server import wire
from scat_cli.server.fanout import Followers, StreamCaps, Subscriber, sse
from scat_cli.server.heavy_work import IMPORT_COST, STATS_COST, HeavyWork
from scat_cli.server.inflight import cap_worker_threads
from scat_cli.server.limits import LOG, LimitAndLog
from scat_cli.server.lost_reads import RetryLostReads
from scat_cli.server.push import ANY, Notifier, listen, watch_log
from scat_cli.server.sweep import start_sweeping
from scat_core.domain import commands as cmd
from scat_core.domain.audit import AuditReport
from scat_core.domain.errors import (
    AuthFailed,
    BadInput,
    ConcurrencyConflict,
    CorruptHistory,
    NotFound,
    RequestRefused,
    RuleViolation,
    ScatError,
    Throttled,
    TimedOut,
    TooManyFailures,
    Unavailable,
)
from scat_core.records.acting import ActingAccount, Credential
from scat_core.records.errors import DatabaseBusy, DatabaseReadOnly, StoreUnavailable
from scat_core.records.stats import StatsReport
from scat_core.service.accounts import AccountView
from scat_core.service.archive import AUDIT_PAGE, EXPORT_PAGE
from scat_core.service.games import GameService
from scat_core.service.values import (
    Audits,
    Export,
    Exports,
    GamesPage,
    History,
    Listing,
    Played,
    Position,
    Shown,
    SigningKey,
)
from scat_core.store.sql.database import masked_url

#: On SQLite, which has no NOTIFY, how often the server process looks at the log for moves
#: another process wrote (one look for all its streams).
POLL_SECONDS = 1.0
#: How long an event stream stays silent before it sends a keep-alive comment: within proxies'
#: idle timeouts and the client's read timeout (30 s), and cheap with a thousand streams open
#: (a waiting client gives up on time by its own read deadline, transport.Http.stream).
KEEP_ALIVE_SECONDS = 15.0
#: Every process's moves are told (NOTIFY on PostgreSQL, the look of the log on SQLite): a game's
#: follower and a `wait --any` stream look at the database anyway now and then.
PUSHED_POLL_SECONDS = 15.0
#: The caps of open event streams (`GET /games/{id}/events` and `POST /waiting`) per client address
#: and per process (`scat serve --max-streams-per-address`, `--max-streams`); over them: 429.
MAX_STREAMS_PER_ADDRESS = 50
MAX_STREAMS = 2000
#: How soon a client refused for too many open streams may try again (its Retry-After).
STREAMS_RETRY_AFTER = 5
#: The last message of an event stream cut short because the server is stopping (the client says so).
STOPPING = 'event: stopping\ndata: {"error": "the server is stopping"}\n\n'
Viewer = Annotated[str | None, Query(alias="as", max_length=wire.SHORT, description="See the game as this player.")]
AuditLimit = Annotated[int | None, Query(ge=1, le=wire.MAX_AUDIT_PAGE, description="Games in this page (default 50).")]
ExportLimit = Annotated[int | None, Query(ge=1, le=wire.MAX_EXPORT_PAGE,
                                          description="Games in this page (default 100).")]
After = Annotated[str | None, Query(max_length=wire.SHORT, description="Where the page starts: the `next` of the "
                                    "page before (none: the first page).")]


#: The OpenAPI responses of an event stream: the stream, or 429 over the caps of open streams.
STREAM_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/event-stream": {}}, "description": "The stream (server-sent events)."},
    429: {"model": wire.ErrorOut, "description": "Too many open streams from this address or on this server: "
          "try again after the Retry-After header's seconds."},
}
#: The OpenAPI responses of heavy work (audits and exports of every game, stats, imports): 429 once the share is spent.
THROTTLED: dict[int | str, dict[str, Any]] = {
    429: {"model": wire.ErrorOut, "description": "The caller's share of heavy work is spent for now: try again "
          "after the Retry-After header's seconds (scat_cli/server/heavy_work.py)."},
}


class EventStream(StreamingResponse):
    """A server-sent event stream that runs `closed` once it ends, however it ends (even unstarted)."""

    def __init__(self, content: AsyncIterator[str], closed: Callable[[], None]) -> None:
        super().__init__(content, media_type="text/event-stream",
                         headers={"cache-control": "no-cache", "x-accel-buffering": "no"})
        self.closed = closed

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.closed()


def account_name(request: Request) -> str | None:
    """The name of the account that signed `request` (None: unsigned)."""
    account: AccountView | None = getattr(request.state, "account", None)
    return account.name if account is not None else None


def caller_of(request: Request) -> str:
    """Whose share of heavy work a request spends: its account's, or its address's when it is signed by none."""
    name = account_name(request)
    return f"account {name}" if name is not None else f"address {request.client.host if request.client else '-'}"


def too_many_streams(message: str) -> JSONResponse:
    """The refusal of one more event stream over a cap: 429, told when to try again."""
    response = _error(429, message, TooManyFailures)
    response.headers["retry-after"] = str(STREAMS_RETRY_AFTER)
    return response


def bearer(authorization: Annotated[str | None, Header(max_length=1000)] = None) -> str | None:
    """The bearer token of the request, if any."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise BadInput("the Authorization header must be `Bearer TOKEN`")
    return token.strip()


Token = Annotated[str | None, Depends(bearer)]


def acting(request: Request, token: str | None) -> Credential:
    """Who the request acts as: its bearer token, else the account its signature proved (verify.py)."""
    if token:
        return token
    account: AccountView | None = getattr(request.state, "account", None)
    return ActingAccount(account.name, account.key_id, account.public_key) if account is not None else None


#: Error type -> the HTTP status of its refusal: one line per branch of the error tree
#: (scat_core.domain.errors) and the leaves that say more; a type takes its nearest listed base's.
HTTP_STATUS: dict[type[ScatError], int] = {
    RuleViolation: 422,  # refused by the rules or the game's state
    CorruptHistory: 422,  # the game's stored history cannot be played on
    BadInput: 400,
    AuthFailed: 403,  # 401 when the request carried no credentials (see `scat_error`)
    RequestRefused: 401,
    TooManyFailures: 429,
    Throttled: 429,  # a caller's share of heavy work spent: with Retry-After
    NotFound: 404,
    ConcurrencyConflict: 409,
    Unavailable: 503,  # the database lost, restarting or busy: with Retry-After
    TimedOut: 408,
}
#: HTTP status -> the exit code of a refusal that is no ScatError (a bad path, a bad method).
STATUS_EXIT = {status: exit_code(kind) for kind, status in reversed(HTTP_STATUS.items())} | {
    401: exit_code(AuthFailed), 405: exit_code(BadInput), 413: exit_code(BadInput), 429: exit_code(TooManyFailures)}


def http_status(error: ScatError) -> int:
    """The HTTP status of the refusal `error` (see HTTP_STATUS)."""
    return next(HTTP_STATUS[kind] for kind in type(error).__mro__ if kind in HTTP_STATUS)


def told_to_clients(error: ScatError) -> ScatError:
    """`error` as a client may read it: a database the server cannot use is named by no URL, host or
    driver message (those are the operator's, in the log), only by its type and what to do."""
    if isinstance(error, DatabaseReadOnly):
        return DatabaseReadOnly("the server's database is read-only: only reads work for now")
    if isinstance(error, StoreUnavailable):
        return type(error)("the server's database is unavailable: try again later")
    return error


class SeatsFromOne(JSONResponse):
    """Every response: JSON, each game state's seats counted from 1 (see `wire.seats_from_one`)."""

    def render(self, content: Any) -> bytes:
        return super().render(wire.seats_from_one(content))


def _error(status: int, message: str, told_as: type[ScatError]) -> JSONResponse:
    """A refusal that is no ScatError, with the exit code of the error type it is told as."""
    return JSONResponse({"error": message, "exit_code": exit_code(told_as)}, status_code=status)


def _validation_message(error: RequestValidationError) -> str:
    """The first problem of a request that does not fit its model, as one line."""
    problems = error.errors()
    if not problems:
        return "bad request"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path"))
    message = " ".join(str(first.get("msg", "invalid")).split())
    return f"bad request: {where}: {message}" if where else f"bad request: {message}"


def on_exit_signal(action: Callable[[], None]) -> None:
    """Run `action` in this event loop as soon as SIGTERM/SIGINT asks the server to exit, then the
    signal's handler (uvicorn's, which waits for the open requests before the lifespan ends)."""
    if threading.current_thread() is not threading.main_thread():
        return  # a server in a thread (tests): its owner stops it
    loop = asyncio.get_running_loop()

    def first_ours(previous: Callable[[int, Any], Any]) -> Callable[[int, Any], None]:
        def handler(sig: int, frame: Any) -> None:
            loop.call_soon_threadsafe(action)  # no lock taken in a signal handler
            previous(sig, frame)
        return handler

    for number in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(number)
        if callable(previous):
            signal.signal(number, first_ours(previous))  # uvicorn puts back its saved handlers when done


def waiting_as(games: GameService, body: wire.WaitAnyIn) -> tuple[str, dict[str, str]]:
    """Who a `wait --any` waits as, and the games it may wait in: today those of the player's
    per-game tokens that are his (AuthFailed when none is); server accounts will answer here."""
    proven = games.any_turn.proven(body.player, body.tokens)
    if not proven:
        raise AuthFailed(f"none of the tokens sent is {body.player}'s in a game of this server: scat sends "
                         "those it remembers for him (from `new`, or given once with --token)", player=body.player)
    return body.player, proven


def create_app(db_url: str | None = None, *, testing: bool = False, claim_every: float | None = None,
               tokens: bool = False, max_streams_per_address: int = MAX_STREAMS_PER_ADDRESS,
               max_streams: int = MAX_STREAMS) -> FastAPI:
    """The app over the database at `db_url`; `testing` allows games with --seed/--deck;
    `claim_every` (seconds): how often it claims turns out of move time itself (R28; None: never);
    `tokens`: it also serves requests without an account (games protected by per-game tokens);
    at most `max_streams_per_address` event streams open from one client address, `max_streams` in all."""
    from scat_cli.server.account_routes import account_router
    from scat_cli.server.verify import RequestVerifier
    from scat_core.service.accounts import AccountService
    from scat_core.store.sql.account_log import SqlAccountLog

    games = GameService.open(db_url, pre_ping=True)  # a pooled connection lost to a restart is replaced
    accounts = AccountService(SqlAccountLog(games.store.engine))
    verifier = RequestVerifier(accounts, tokens=tokens)
    notifier, stop = Notifier(), threading.Event()
    followers = Followers(games, notifier, PUSHED_POLL_SECONDS)
    caps = StreamCaps(max_streams_per_address, max_streams)
    heavy = HeavyWork()  # each caller's share of audits, exports, stats and imports (heavy_work.py)
    watch_every = POLL_SECONDS

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        cap_worker_threads(games.store.engine)  # in-flight requests: at most the pool's connections (inflight.py)
        listen(games.store.engine, notifier, stop)  # PostgreSQL: hear other processes' moves
        watch_log(games.store, notifier, stop, watch_every, lambda: caps.count > 0)  # SQLite: look for them
        on_exit_signal(notifier.close)  # the event streams end at once, so the server can stop
        if claim_every is not None:
            start_sweeping(games, notifier.changed, claim_every, stop)
        yield
        notifier.close()
        stop.set()

    app = FastAPI(title="Scat", version="2", lifespan=lifespan, default_response_class=SeatsFromOne,
                  description="The Scat (Thirty-One) game backend. Seats count from 1, as the CLI counts them: a "
                  "game state's players[].seat, seats, dealer (0 before the first deal), turn, knocker, had_turn "
                  "and looked; hands is a list in seat order (hands[0] is seat 1's).",
                  dependencies=[Depends(verifier)])  # a signed request proves its account first (verify.py)
    app.state.games, app.state.testing, app.state.notifier = games, testing, notifier
    app.state.accounts, app.state.verifier = accounts, verifier
    app.state.followers, app.state.stream_caps, app.state.heavy_work = followers, caps, heavy
    app.include_router(account_router(accounts, verifier))
    app.add_middleware(RetryLostReads, engine=games.store.engine)  # a GET that lost its connection: once more
    app.add_middleware(LimitAndLog)

    @app.exception_handler(ScatError)
    async def scat_error(request: Request, error: ScatError) -> JSONResponse:
        status = http_status(error)
        if status == 403 and "authorization" not in request.headers:
            status = 401
        if isinstance(error, StoreUnavailable | DatabaseBusy):
            LOG.warning("database unavailable on %s %s: %s", request.method, request.url.path,
                        getattr(error, "reason", "") or type(error).__name__)
        told = told_to_clients(error)
        headers = {"retry-after": str(told.retry_after)} if told.retry_after is not None else None
        return JSONResponse(wire.ErrorOut.of(told).model_dump(exclude_none=True), status_code=status,
                            headers=headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> JSONResponse:
        return _error(400, _validation_message(error), BadInput)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(error.detail), "exit_code": STATUS_EXIT.get(error.status_code, 2)},
                            status_code=error.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        if isinstance(error, ClientDisconnect):  # refused as too large, or gone: nobody to answer
            return _error(400, "the client went away", BadInput)
        LOG.exception("unexpected error on %s", request.url.path)
        return _error(500, "the server failed on this request (see its log)", ScatError)

    @app.get("/key", response_model=SigningKey)
    def signing_key() -> SigningKey:
        """The server's public key, which signs its games' heads: `scat key trust --server URL` trusts it."""
        return games.signing_key()

    @app.get("/health", response_model=wire.HealthOut)
    def health() -> wire.HealthOut:
        with games.store.read() as tx:
            tx.game_ids()
        return wire.HealthOut(database=games.store.engine.dialect.name)

    @app.post("/games", response_model=Played, status_code=201)
    def new_game(body: wire.CreateIn, request: Request) -> Played:
        """Create a game. Signed by an account: its humans are accounts (the creator one of them),
        who sign their moves; else protected by tokens, which come back once."""
        from scat_core.domain.cards import parse_deck
        from scat_core.domain.events import PlayerSeat

        if (body.seed is not None or body.deck is not None) and not testing:
            raise BadInput("this server refuses --seed and --deck (whoever created the game would know every "
                           "hand); only a server started with --testing accepts them")
        seats = [PlayerSeat(name=seat.name, is_bot=seat.is_bot) for seat in body.players]
        deck = parse_deck(body.deck) if body.deck is not None else None
        account: AccountView | None = request.state.account
        viewer = body.viewer
        if account is not None:
            humans = iter(accounts.seat(account.name, [seat.name for seat in seats if not seat.is_bot]))
            seats = [seat if seat.is_bot else PlayerSeat(name=next(humans), is_bot=False) for seat in seats]
            viewer = account.name
        if account is not None:
            played = games.new_game_of_accounts(seats, options=body.options, dealer=body.dealer, seed=body.seed,
                                                deck=deck, viewer=viewer)
        else:
            played = games.new_game(seats, options=body.options, dealer=body.dealer, seed=body.seed, deck=deck,
                                    protect=True, viewer=viewer)
        notifier.changed(played.game_id)
        return played

    @app.get("/games", response_model=list[Listing])
    def game_list(request: Request, status: Annotated[str | None, Query(pattern="^(active|finished)$")] = None,
                  waiting_for: Annotated[str | None, Query(max_length=wire.SHORT)] = None,
                  limit: Annotated[int | None, Query(ge=1, le=wire.MAX_PAGE)] = None) -> list[Listing]:
        """The games list, newest activity first (at most `limit`); an account's own games first."""
        return games.game_list(status, waiting_for, limit, account_name(request))

    @app.get("/games/page", response_model=GamesPage)
    def games_page(request: Request, status: Annotated[str | None, Query(pattern="^(active|finished)$")] = None,
                   waiting_for: Annotated[str | None, Query(max_length=wire.SHORT)] = None,
                   limit: Annotated[int | None, Query(ge=1, le=wire.MAX_PAGE)] = None) -> GamesPage:
        """`scat games`: the newest `limit` games of the list (an account's own first) and how many match in all."""
        return games.games_page(status, waiting_for, limit, account_name(request))

    @app.get("/games/{game_id}", response_model=Shown)
    def show(game_id: str, request: Request, token: Token, viewer: Viewer = None,
             look: Annotated[bool, Query(description="false: record no look at a face-down hand (R23), "
                                                     "as `scat play` shows it")] = True) -> Shown:
        """The game as the viewer may know it, his news since his last move, the result once over."""
        shown = games.show(game_id, viewer, acting(request, token), look)
        if viewer is not None:
            notifier.changed(game_id)  # a look may be recorded (R23), bots may have moved
        return shown

    @app.get("/games/{game_id}/head", response_model=Position)
    def position(game_id: str) -> Position:
        """Where the game stands (its last event's seq and hash): what a player signs his move at."""
        return games.position(game_id)

    def move(game_id: str, command: cmd.PlayerCommand, request: Request, token: str | None,
             body: wire.MoveIn) -> Played:
        signature = body.signature.signed() if body.signature is not None else None
        try:
            return games.move(game_id, command, acting(request, token), signature)
        finally:
            notifier.changed(game_id)  # this process's watchers, at once (SQLite has no NOTIFY)

    @app.post("/games/{game_id}/draw", response_model=Played)
    def draw(game_id: str, body: wire.MoveIn, request: Request, token: Token) -> Played:
        if body.source is None:
            raise BadInput("draw needs a source: stock or discard")
        return move(game_id, cmd.Draw(body.player, body.source), request, token, body)

    @app.post("/games/{game_id}/discard", response_model=Played)
    def discard(game_id: str, body: wire.MoveIn, request: Request, token: Token) -> Played:
        from scat_core.domain.cards import parse_card

        if body.card is None:
            raise BadInput("discard needs a card, e.g. AS or 10H")
        return move(game_id, cmd.Discard(body.player, parse_card(body.card)), request, token, body)

    @app.post("/games/{game_id}/knock", response_model=Played)
    def knock(game_id: str, body: wire.MoveIn, request: Request, token: Token) -> Played:
        return move(game_id, cmd.Knock(body.player), request, token, body)

    @app.post("/games/{game_id}/declare", response_model=Played)
    def declare(game_id: str, body: wire.MoveIn, request: Request, token: Token) -> Played:
        return move(game_id, cmd.Declare31(body.player), request, token, body)

    @app.post("/games/{game_id}/resign", response_model=Played)
    def resign(game_id: str, body: wire.MoveIn, request: Request, token: Token) -> Played:
        return move(game_id, cmd.Resign(body.player), request, token, body)

    @app.post("/games/{game_id}/throw-down", response_model=Played)
    def throw_down(game_id: str, body: wire.MoveIn, request: Request, token: Token) -> Played:
        return move(game_id, cmd.ThrowDown(body.player), request, token, body)

    @app.post("/games/{game_id}/claim", response_model=Played)
    def claim(game_id: str, body: wire.ClaimIn, request: Request, token: Token) -> Played:
        signature = body.signature.signed() if body.signature is not None else None
        try:
            return games.claim(game_id, body.player, acting(request, token), signature)
        finally:
            notifier.changed(game_id)

    @app.get("/games/{game_id}/log", response_model=History)
    def log(game_id: str, request: Request, token: Token, viewer: Viewer = None) -> History:
        """Every event as the viewer may see it."""
        return games.log(game_id, viewer, acting(request, token))

    @app.get("/games/{game_id}/replay", response_model=History)
    def replay(game_id: str, request: Request, token: Token, viewer: Viewer = None,
               to: Annotated[int | None, Query(ge=-(2**31), le=2**31)] = None) -> History:
        """The game as after event `to`, as the viewer could see it then."""
        return games.replay(game_id, to, viewer, acting(request, token))

    @app.get("/games/{game_id}/events", response_class=StreamingResponse, responses=STREAM_RESPONSES)
    async def events(request: Request, game_id: str, token: Token, viewer: Viewer = None,
                     after: Annotated[int, Query(ge=0, le=2**31)] = 0) -> Response:
        """Server-sent events: each event after seq `after`, as `viewer` may see it, as it is appended
        (a comment each second meanwhile); 429 over the caps of open streams."""
        address = request.client.host if request.client else "-"
        refused = caps.take(address)
        if refused is not None:
            return too_many_streams(refused)
        subscriber: Subscriber | None = None
        credential = acting(request, token)
        try:  # the game's follower first, so that it has every event after this stream's first page
            subscriber = await followers.subscribe(game_id, viewer, credential)
            first = await run_in_threadpool(games.log, game_id, viewer, credential)  # refuses before streaming
        except BaseException:
            if subscriber is not None:
                subscriber.leave()
            caps.give_back(address)
            raise
        subscriber.cursor = max(after, first.events[-1].seq if first.events else 0, subscriber.cursor)
        watching = subscriber

        async def stream() -> AsyncIterator[str]:  # all the events at hand in one write
            told = "".join(sse(event.seq, event.type, event.model_dump_json())
                           for event in first.events if event.seq > after)
            if told:
                yield told
            if first.state.status == "finished":
                return
            while True:
                news = watching.news()
                if news:
                    yield "".join(text for _, text in news)
                if watching.ended:
                    return
                if notifier.closed:
                    yield STOPPING
                    return
                if not await watching.wait(KEEP_ALIVE_SECONDS):
                    yield ": still here\n\n"  # keeps proxies open, tells the client the server is there

        def closed() -> None:
            watching.leave()
            caps.give_back(address)

        return EventStream(stream(), closed)

    @app.post("/waiting", response_class=StreamingResponse, responses=STREAM_RESPONSES)
    async def waiting(request: Request, body: wire.WaitAnyIn) -> Response:
        """Server-sent events for `wait --any`, one stream for all of a player's games: first
        `told` (the cursor to send again when reconnecting), then, once a game waits for him
        or ended, `found` (a WaitedAny) and the end; a comment each second until then; 429 over
        the caps of open streams."""
        address = request.client.host if request.client else "-"
        refused = caps.take(address)
        if refused is not None:
            return too_many_streams(refused)
        try:
            response = await waiting_stream(request, body)
        except BaseException:
            caps.give_back(address)
            raise
        return EventStream(response, lambda: caps.give_back(address))

    async def waiting_stream(request: Request, body: wire.WaitAnyIn) -> AsyncIterator[str]:
        """The stream of `POST /waiting`, once its player is proven."""
        credential = acting(request, None)
        if isinstance(credential, ActingAccount) and credential.name.casefold() == body.player.strip().casefold():
            player, tokens = credential.name, dict(body.tokens)  # his account's games, and any token game he has
        else:
            player, tokens, credential = *(await run_in_threadpool(waiting_as, games, body)), None
        seen = notifier.version(ANY)
        poll = PUSHED_POLL_SECONDS  # every process's moves wake it (see watch_log): a look now and then anyway
        looking = games.any_turn.looking(player, tokens, body.told, credential)
        first = await run_in_threadpool(looking.look)

        async def stream() -> AsyncIterator[str]:
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
                woke = await notifier.wait(ANY, seen, KEEP_ALIVE_SECONDS)
                if await request.is_disconnected():
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

    @app.get("/ids/{prefix}", response_model=wire.GameIdOut)
    def resolve(prefix: str) -> wire.GameIdOut:
        """The one game whose id starts with `prefix` (404 none, 400 several)."""
        return wire.GameIdOut(game_id=games.resolve_game_id(prefix))

    @app.get("/games/{game_id}/audit", response_model=AuditReport)
    def audit(game_id: str, strict: bool = False) -> AuditReport:
        """The audit of one game (its head's signature judged by the keys this server trusts)."""
        return games.audit(game_id, strict)

    @app.get("/audit", response_model=Audits, responses=THROTTLED)
    def audit_all(request: Request, strict: bool = False, limit: AuditLimit = None, after: After = None) -> Audits:
        """The audit of every game, oldest first, a page at a time: at most `limit` games, those after the game
        `after` (the `next` of the page before; the last page has none). A page costs the caller's share
        of heavy work one unit a game (429 and Retry-After when it is spent: heavy_work.py)."""
        heavy.take(caller_of(request), limit or AUDIT_PAGE)
        return games.audit_page(strict, after, limit)

    @app.get("/games/{game_id}/export", response_model=Export)
    def export(game_id: str) -> Export:
        """The full history of a finished game (this server exports no running game)."""
        return games.export(game_id, running=False)

    @app.get("/export", response_model=Exports, responses=THROTTLED)
    def export_all(request: Request, limit: ExportLimit = None, after: After = None) -> Exports:
        """Every finished game's history, the others skipped with the reason, a page at a time: at most
        `limit` games, those after the game `after` (the `next` of the page before; the last page has none).
        A page costs the caller's share of heavy work one unit a game (429 when it is spent)."""
        heavy.take(caller_of(request), limit or EXPORT_PAGE)
        return games.export_page(False, after, limit)

    @app.post("/import", response_model=AuditReport, status_code=201, responses=THROTTLED)
    def import_(body: wire.ImportIn, request: Request) -> AuditReport:
        """Audit an export and, only if it holds, store it (a share of the caller's heavy work: 429 when spent)."""
        heavy.take(caller_of(request), IMPORT_COST)
        return games.import_records(body.records, body.strict)

    @app.get("/stats", response_model=StatsReport, responses=THROTTLED)
    def stats(request: Request, player: Annotated[str | None, Query(max_length=wire.SHORT)] = None) -> StatsReport:
        """Figures per player and overall (rebuilding them is the operator's: `scat --db URL stats --rebuild`);
        a share of the caller's heavy work (429 when spent)."""
        heavy.take(caller_of(request), STATS_COST)
        return games.stats(player=player)

    LOG.info("serving the games of %s", masked_url(str(games.store.engine.url.render_as_string(False))))
    return app


def app_from_environment() -> Any:
    """The app for `uvicorn --factory scat_cli.server.app:app_from_environment` ($SCAT_DB_URL)."""
    import os

    return create_app(None, testing=os.environ.get("SCAT_SERVER_TESTING") == "1",
                      tokens=os.environ.get("SCAT_SERVER_TOKENS") == "1")
