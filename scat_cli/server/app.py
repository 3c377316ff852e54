"""The FastAPI application of `scat serve`: one endpoint per use case of the game service.

Every game created here is protected (a bearer token per human). Every state and event a
response carries is redacted for the authenticated viewer first (scat_core.domain.views).
Refusals are ScatErrors mapped once, by exception handlers, to an HTTP status and the one
line the CLI prints. The app keeps no state but the database: several processes may serve
one PostgreSQL database (the store's optimistic concurrency keeps it consistent).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from scat_cli.server import wire
from scat_cli.server.limits import LOG, LimitAndLog
from scat_cli.server.push import Notifier, listen
from scat_core.domain import commands as cmd
from scat_core.domain.errors import AuthFailed, BadInput, RuleViolation, ScatError
from scat_core.domain.views import redact_state
from scat_core.service.games import GameService, Outcome
from scat_core.store.database import masked_url

#: What replaying a forged history may raise instead of a verdict (as in `scat audit`).
UNREPLAYABLE = (IndexError, KeyError, TypeError, ValueError)
#: How long an event stream sleeps without news before it looks at the database itself (a move
#: written by another process on SQLite, which has no NOTIFY), and sends a keep-alive comment.
POLL_SECONDS = 1.0
PUSHED_POLL_SECONDS = 15.0  # PostgreSQL: every process's moves are NOTIFYed; look anyway now and then
Viewer = Annotated[str | None, Query(alias="as", max_length=wire.SHORT, description="See the game as this player.")]


def bearer(authorization: Annotated[str | None, Header(max_length=1000)] = None) -> str | None:
    """The bearer token of the request, if any."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise BadInput("the Authorization header must be `Bearer TOKEN`")
    return token.strip()


Token = Annotated[str | None, Depends(bearer)]


def _outcome(outcome: Outcome, viewer: str | None, tokens: dict[str, str] | None = None) -> wire.OutcomeOut:
    """What a command did, redacted for `viewer`."""
    finished = outcome.state.status == "finished"
    seen = [wire.EventOut.of(s, e, finished) for s, e in outcome.seen_by(viewer)]
    public = seen if viewer is None else [wire.EventOut.of(s, e, finished) for s, e in outcome.seen_by(None)]
    return wire.OutcomeOut(game_id=outcome.game_id, viewer=viewer, state=redact_state(outcome.state, viewer),
                           before=redact_state(outcome.before, viewer), events=seen, public_events=public,
                           tokens=tokens or {})


def _error(status: int, message: str, exit_code: int) -> JSONResponse:
    return JSONResponse({"error": message, "exit_code": exit_code}, status_code=status)


def _validation_message(error: RequestValidationError) -> str:
    """The first problem of a request that does not fit its model, as one line."""
    problems = error.errors()
    if not problems:
        return "bad request"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path"))
    message = " ".join(str(first.get("msg", "invalid")).split())
    return f"bad request: {where}: {message}" if where else f"bad request: {message}"


def create_app(db_url: str | None = None, *, testing: bool = False) -> FastAPI:
    """The app over the database at `db_url`; `testing` allows games with --seed/--deck."""
    games = GameService.open(db_url)
    notifier, stop = Notifier(), threading.Event()

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        listen(games.store.engine, notifier, stop)  # PostgreSQL: hear other processes' moves
        yield
        stop.set()

    app = FastAPI(title="Scat", version="1", description="The Scat (Thirty-One) game backend.", lifespan=lifespan)
    app.state.games, app.state.testing, app.state.notifier = games, testing, notifier
    app.add_middleware(LimitAndLog)

    @app.exception_handler(ScatError)
    async def scat_error(request: Request, error: ScatError) -> JSONResponse:
        status = wire.ERROR_STATUS.get(error.exit_code, 422)
        if isinstance(error, AuthFailed) and "authorization" not in request.headers:
            status = 401
        return _error(status, str(error), error.exit_code)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> JSONResponse:
        return _error(400, _validation_message(error), 2)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        return _error(error.status_code, str(error.detail), wire.EXIT_CODES.get(error.status_code, 2))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        if isinstance(error, ClientDisconnect):  # refused as too large, or gone: nobody to answer
            return _error(400, "the client went away", 2)
        if type(error).__module__.startswith("sqlalchemy"):
            LOG.warning("database error on %s: %s", request.url.path, str(error).splitlines()[0])
            return _error(503, "the server's database is unavailable: try again later", 1)
        LOG.exception("unexpected error on %s", request.url.path)
        return _error(500, "the server failed on this request (see its log)", 1)

    @app.get("/health", response_model=wire.HealthOut)
    def health() -> wire.HealthOut:
        with games.store.read() as tx:
            tx.game_ids()
        return wire.HealthOut(database=games.store.engine.dialect.name)

    @app.post("/games", response_model=wire.OutcomeOut, status_code=201)
    def create(body: wire.CreateIn) -> wire.OutcomeOut:
        from scat_core.domain.events import PlayerSeat

        if (body.seed is not None or body.deck is not None) and not testing:
            raise BadInput("this server refuses --seed and --deck (whoever created the game would know every "
                           "hand); only a server started with --testing accepts them")
        seats = [PlayerSeat(name=seat.name, is_bot=seat.is_bot) for seat in body.players]
        from scat_core.domain.cards import parse_deck

        deck = parse_deck(body.deck) if body.deck is not None else None
        outcome = games.create_game(seats, options=body.options, dealer=body.dealer, seed=body.seed,
                                    deck=deck, protect=True)
        viewer = body.viewer
        seat = outcome.state.seat_of(viewer) if viewer else None
        if seat is None or outcome.state.players[seat].is_bot:
            viewer = None  # only a human of this game, whose token the creator receives
        notifier.changed(outcome.game_id)
        return _outcome(outcome, viewer, outcome.tokens)

    @app.get("/games", response_model=wire.GamesOut)
    def list_games(status: Annotated[str | None, Query(pattern="^(active|finished)$")] = None,
                   waiting_for: Annotated[str | None, Query(max_length=wire.SHORT)] = None) -> wire.GamesOut:
        rows, read_only = games.list_games_read_only(status, waiting_for)
        return wire.GamesOut(games=[wire.GameRowOut(**row.__dict__) for row in rows], read_only=sorted(read_only))

    @app.get("/games/{game_id}", response_model=wire.ViewOut)
    def show(game_id: str, token: Token, viewer: Viewer = None) -> wire.ViewOut:
        state = games.look(game_id, viewer, token)
        if viewer is not None:
            notifier.changed(game_id)  # a look may be recorded (R23), bots may have moved
        read_only = state.status != "finished" and games.is_read_only(game_id)
        return wire.ViewOut(state=redact_state(state, viewer), read_only=read_only)

    def move(game_id: str, command: cmd.PlayerCommand, token: str | None) -> wire.OutcomeOut:
        try:
            return _outcome(games.act(game_id, command, token), command.player)
        finally:
            notifier.changed(game_id)  # this process's watchers, at once (SQLite has no NOTIFY)

    @app.post("/games/{game_id}/draw", response_model=wire.OutcomeOut)
    def draw(game_id: str, body: wire.MoveIn, token: Token) -> wire.OutcomeOut:
        if body.source is None:
            raise BadInput("draw needs a source: stock or discard")
        return move(game_id, cmd.Draw(body.player, body.source), token)

    @app.post("/games/{game_id}/discard", response_model=wire.OutcomeOut)
    def discard(game_id: str, body: wire.MoveIn, token: Token) -> wire.OutcomeOut:
        from scat_core.domain.cards import parse_card

        if body.card is None:
            raise BadInput("discard needs a card, e.g. AS or 10H")
        return move(game_id, cmd.Discard(body.player, parse_card(body.card)), token)

    @app.post("/games/{game_id}/knock", response_model=wire.OutcomeOut)
    def knock(game_id: str, body: wire.MoveIn, token: Token) -> wire.OutcomeOut:
        return move(game_id, cmd.Knock(body.player), token)

    @app.post("/games/{game_id}/declare", response_model=wire.OutcomeOut)
    def declare(game_id: str, body: wire.MoveIn, token: Token) -> wire.OutcomeOut:
        return move(game_id, cmd.Declare31(body.player), token)

    @app.post("/games/{game_id}/resign", response_model=wire.OutcomeOut)
    def resign(game_id: str, body: wire.MoveIn, token: Token) -> wire.OutcomeOut:
        return move(game_id, cmd.Resign(body.player), token)

    @app.post("/games/{game_id}/throw-down", response_model=wire.OutcomeOut)
    def throw_down(game_id: str, body: wire.MoveIn, token: Token) -> wire.OutcomeOut:
        return move(game_id, cmd.ThrowDown(body.player), token)

    def history(game_id: str, viewer: str | None, token: str | None, up_to: int | None,
                as_then: bool) -> wire.HistoryOut:
        state, shown = games.look_at_history(game_id, viewer, token, up_to=up_to, as_then=as_then)
        hashes = up_to is None and state.status == "finished"  # while running a hash would betray a card
        return wire.HistoryOut(state=redact_state(state, viewer),
                               events=[wire.EventOut.of(s, e, hashes) for s, e in shown])

    @app.get("/games/{game_id}/log", response_model=wire.HistoryOut)
    def log(game_id: str, token: Token, viewer: Viewer = None) -> wire.HistoryOut:
        return history(game_id, viewer, token, None, False)

    @app.get("/games/{game_id}/replay", response_model=wire.HistoryOut)
    def replay(game_id: str, token: Token, viewer: Viewer = None,
               to: Annotated[int | None, Query(ge=-(2**31), le=2**31)] = None) -> wire.HistoryOut:
        return history(game_id, viewer, token, to, True)

    @app.get("/games/{game_id}/events", response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}}}})
    async def events(request: Request, game_id: str, token: Token, viewer: Viewer = None,
                     after: Annotated[int, Query(ge=0, le=2**31)] = 0) -> StreamingResponse:
        """Server-sent events: each event after seq `after`, as `viewer` may see it, as it is appended."""
        seen = notifier.version(game_id)
        poll = PUSHED_POLL_SECONDS if games.store.engine.dialect.name == "postgresql" else POLL_SECONDS
        first = await run_in_threadpool(history, game_id, viewer, token, None, False)  # refuses before streaming

        async def stream() -> AsyncIterator[str]:
            nonlocal seen
            last, current = after, first
            while True:
                for event in current.events:
                    if event.seq > last:
                        yield f"id: {event.seq}\nevent: {event.type}\ndata: {event.model_dump_json()}\n\n"
                        last = event.seq
                if current.state.status == "finished" or stop.is_set():
                    return
                woke = await notifier.wait(game_id, seen, poll)
                if await request.is_disconnected():
                    return
                if not woke:
                    yield ": still here\n\n"  # a comment keeps proxies from closing an idle stream
                seen = notifier.version(game_id)
                current = await run_in_threadpool(history, game_id, viewer, token, None, False)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-cache", "x-accel-buffering": "no"})

    @app.post("/chance", response_model=wire.ChanceOut)
    def chance(body: wire.ChanceIn) -> wire.ChanceOut:
        """Which games were created with a chosen seed or deck (whoever chose them can know every hand)."""
        return wire.ChanceOut(chosen=games.chosen_chance(body.game_ids))

    @app.get("/ids/{prefix}", response_model=wire.GameIdOut)
    def resolve(prefix: str) -> wire.GameIdOut:
        """The one game whose id starts with `prefix` (404 none, 400 several)."""
        return wire.GameIdOut(game_id=games.resolve_game_id(prefix))

    @app.get("/games/{game_id}/news", response_model=wire.NewsOut)
    def news(game_id: str, token: Token,
             viewer: Annotated[str, Query(alias="as", max_length=wire.SHORT)]) -> wire.NewsOut:
        """What `viewer` has not seen himself: the events since his last move, as he may see them."""
        found = games.news(game_id, viewer, token)
        hashes = False  # the CLI shows no hashes here
        return wire.NewsOut(state=redact_state(found.state, viewer), before=redact_state(found.before, viewer),
                            events=[wire.EventOut.of(s, e, hashes) for s, e in found.events])

    @app.get("/games/{game_id}/result")
    def result(game_id: str) -> Any:
        """The result of a finished game (hands, standings, duration, winner)."""
        from pydantic import TypeAdapter

        from scat_core.service.outcomes import GameResult

        return TypeAdapter(GameResult).dump_python(games.game_result(game_id), mode="json")

    @app.get("/games/{game_id}/audit", response_model=wire.AuditOut)
    def audit(game_id: str, strict: bool = False) -> wire.AuditOut:
        try:
            report = games.audit(game_id, strict)
        except UNREPLAYABLE as error:
            return wire.AuditOut(game_id=game_id, ok=False, events=0, first_bad_seq=None,
                                 problems=[f"the history cannot be replayed: {error!r}"])
        return wire.AuditOut(**report.__dict__)

    @app.get("/games/{game_id}/export", response_model=wire.RecordsOut)
    def export(game_id: str) -> wire.RecordsOut:
        records = games.export_records(game_id, running=False)  # refuses a running game
        return wire.RecordsOut(records=records)

    @app.post("/import", response_model=wire.AuditOut, status_code=201)
    def import_(body: wire.ImportIn) -> wire.AuditOut:
        if not body.records:
            raise BadInput("an empty export: nothing to import")
        try:
            report = games.import_records(body.records, body.strict)
        except UNREPLAYABLE as error:
            raise RuleViolation(f"refused: the history cannot be replayed ({error!r}): nothing imported") from None
        return wire.AuditOut(**report.__dict__)

    @app.get("/stats")
    def stats(player: Annotated[str | None, Query(max_length=wire.SHORT)] = None) -> Any:
        from pydantic import TypeAdapter

        from scat_core.store.stats_projection import StatsReport

        # rebuilding the projection is the server operator's business (`scat --db URL stats --rebuild`)
        return TypeAdapter(StatsReport).dump_python(games.stats(player=player), mode="json")

    LOG.info("serving the games of %s", masked_url(str(games.store.engine.url.render_as_string(False))))
    return app


def app_from_environment() -> Any:
    """The app for `uvicorn --factory scat_cli.server.app:app_from_environment` ($SCAT_DB_URL)."""
    import os

    return create_app(None, testing=os.environ.get("SCAT_SERVER_TESTING") == "1")
