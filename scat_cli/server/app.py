"""The FastAPI application of `scat serve`: the routers of `routes/`, one endpoint per use case of
the game service.

Every game created here is protected (a bearer token per human, or the accounts' signatures).
Responses are the service's own values (scat_core.service.values), whose states and events the
service has already redacted for the authenticated viewer. Refusals are ScatErrors mapped once,
by the exception handlers of `routes/errors.py`, to an HTTP status and the one line the CLI
prints. The app keeps no state but the database (and what its event streams' followers read of
it, fanout.py): several processes may serve one PostgreSQL database (the store's optimistic
concurrency keeps it consistent). What the routes share reaches them as `app.state.server`
(`routes/deps.py`), never through a closure.
"""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

import asyncio
import signal
import threading
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI

from scat_cli.server.limits import LOG, LimitAndLog
from scat_cli.server.lost_reads import RetryLostReads

#: What pydantic says when FastAPI first builds the model of a request body (deferred, as scat's
#: wire models are): FastAPI names the body field after its parameter by an alias that pydantic
#: ignores there; harmless, but it read as an error in the server's log at the first POST.
BODY_ALIAS_WARNING = r"The 'alias' attribute with value '\w+' was provided to the `Field\(\)` function"


def quiet_body_alias_warning() -> None:
    """Keep pydantic's BODY_ALIAS_WARNING out of the server's log; every other warning goes on to it."""
    from pydantic import warnings as pydantic_warnings

    category = getattr(pydantic_warnings, "UnsupportedFieldAttributeWarning", UserWarning)  # pydantic >= 2.12
    warnings.filterwarnings("ignore", message=BODY_ALIAS_WARNING, category=category)


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


def create_app(db_url: str | None = None, *, testing: bool = False, claim_every: float | None = None,
               tokens: bool = False, max_streams_per_address: int = MAX_STREAMS_PER_ADDRESS,
               max_streams: int = MAX_STREAMS, new_games_per_hour: int | None = None,
               max_registrations_per_address: int | None = None, registration: str = "open",
               commit_together: bool = True) -> FastAPI:
    """The app over the database at `db_url`; `testing` allows games with --seed/--deck;
    `claim_every` (seconds): how often it claims turns out of move time itself (R28; None: never);
    `tokens`: it also serves requests without an account (games protected by per-game tokens);
    at most `max_streams_per_address` event streams open from one client address, `max_streams` in all;
    one account (or an unsigned request's address) creates at most `new_games_per_hour` games an hour
    (None: heavy_work.NEW_GAMES_PER_HOUR); at most `max_registrations_per_address` registrations an
    hour from one address (None: verify.py's default);
    `registration`: who may register, "open" (anyone), "invite" (with an invite code) or "closed";
    `commit_together`: the commands that arrive together are committed together (commit_groups.py)."""
    from scat_cli import wiring
    from scat_cli.server.answering import Answering
    from scat_cli.server.docs_pages import serve_docs
    from scat_cli.server.fanout import Followers, StreamCaps
    from scat_cli.server.heavy_work import NEW_GAMES_PER_HOUR, HeavyWork, new_games
    from scat_cli.server.inflight import cap_worker_threads
    from scat_cli.server.push import Notifier, listen, watch_log
    from scat_cli.server.routes import about, accounts, games, moves, records, streams
    from scat_cli.server.routes.deps import ServerState
    from scat_cli.server.routes.errors import handle_errors
    from scat_cli.server.sweep import start_sweeping
    from scat_cli.server.verify import REGISTRATIONS_PER_ADDRESS, RequestVerifier
    from scat_core.store.sql.database import masked_url
    from scat_core.store.sql.server_rows import SqlInvites

    service = wiring.open_database(db_url, pre_ping=True,  # a connection lost to a restart is replaced
                                   serving=True, commit_together=commit_together)
    server_key_id = one_key_per_database(service)
    accounts_ = service.accounts
    assert accounts_ is not None  # a database's service has its account log
    verifier = RequestVerifier(accounts_, tokens=tokens, spent_by_the_command=moves.NONCE_SPENT_BY_THE_MOVE,
                               server_key_id=server_key_id,
                               registrations_per_address=max_registrations_per_address or REGISTRATIONS_PER_ADDRESS)
    notifier, stop, answering = Notifier(), threading.Event(), Answering()
    caps = StreamCaps(max_streams_per_address, max_streams)
    server = ServerState(games=service, accounts=accounts_, verifier=verifier, notifier=notifier,
                         followers=Followers(service, notifier, PUSHED_POLL_SECONDS, answering), caps=caps,
                         heavy=HeavyWork(),  # each caller's share of audits, exports, stats and imports
                         new_games=new_games(new_games_per_hour or NEW_GAMES_PER_HOUR),  # and of game creation
                         testing=testing, poll_seconds=POLL_SECONDS, keep_alive_seconds=KEEP_ALIVE_SECONDS,
                         pushed_poll_seconds=PUSHED_POLL_SECONDS, registration=registration,
                         invites=SqlInvites(service.store.engine))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        cap_worker_threads(service.store.engine)  # in-flight requests: at most the pool's connections (inflight.py)
        listen(service.store.engine, notifier, stop)  # PostgreSQL: hear other processes' moves
        watch_log(service.store, notifier, stop, server.poll_seconds, lambda: caps.count > 0)  # SQLite: look
        on_exit_signal(notifier.close)  # the event streams end at once, so the server can stop
        if claim_every is not None:
            start_sweeping(service, notifier.changed, claim_every, stop)
        yield
        notifier.close()
        stop.set()

    quiet_body_alias_warning()
    app = FastAPI(title="Scat", version="2", lifespan=lifespan,
                  docs_url=None, redoc_url=None,  # served with assets installed with scat: serve_docs below
                  description="The Scat (Thirty-One) game backend. Seats count from 1, as the CLI counts them: a "
                  "game state's players[].seat, seats, dealer (0 before the first deal), turn, knocker, had_turn "
                  "and looked; hands is a list in seat order (hands[0] is seat 1's).",
                  dependencies=[Depends(verifier),  # a signed request proves its account first (verify.py)
                                Depends(verifier.token_checks, scope="function")])  # a bearer: counted while answered
    app.state.server = server  # the routes' (routes/deps.py), and tests' and tools'
    for area in (about, games, moves, streams, records, accounts):
        app.include_router(area.router)
    serve_docs(app)
    handle_errors(app)
    app.add_middleware(RetryLostReads, engine=service.store.engine)  # a GET that lost its connection: once more
    app.add_middleware(LimitAndLog, answering=answering)  # and counts the requests being answered (fanout.py)
    LOG.info("serving the games of %s", masked_url(str(service.store.engine.url.render_as_string(False))))
    return app


def one_key_per_database(service: Any) -> str:
    """The key id this process signs with, which its database records as its server's (the first
    process to serve it records its own); BadInput when the database records another key: the
    processes of one database are one server, which clients know by its key."""
    from datetime import UTC, datetime

    from scat_core.domain.errors import BadInput
    from scat_core.store.sql.server_rows import recorded_server_key

    keys = service.store.keys
    now = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    recorded, _ = recorded_server_key(service.store.engine, keys.key_id, keys.public_key, now)
    if recorded != keys.key_id:
        service.store.engine.dispose()
        raise BadInput(f"this database is served with the key {recorded}, and this process would sign with the key "
                       f"{keys.key_id} ({keys.key_path}): the processes of one database are one server, with one "
                       "key (its clients know it by that key): start it with the key file of the others "
                       "(SCAT_KEY_FILE)")
    return str(keys.key_id)


def app_from_environment() -> Any:
    """The app for `uvicorn --factory scat_cli.server.app:app_from_environment` ($SCAT_DB_URL)."""
    import os

    return create_app(None, testing=os.environ.get("SCAT_SERVER_TESTING") == "1",
                      tokens=os.environ.get("SCAT_SERVER_TOKENS") == "1")
