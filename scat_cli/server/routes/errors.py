"""Refusals over HTTP: the one table of statuses by error type, the exception handlers that turn
every error into its status and the one line the CLI prints, and the error responses each
operation declares in the OpenAPI document (every status it can return)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match

from scat_cli.server.limits import LOG
from scat_cli.wire import bodies
from scat_cli.wire.answers import http_status
from scat_core.domain.errors import (
    RequestRefused,
    ScatError,
    WrongToken,
)
from scat_core.records.errors import DatabaseBusy, DatabaseReadOnly, StoreUnavailable

#: How soon a client refused for too many open streams may try again (its Retry-After).
STREAMS_RETRY_AFTER = 5

#: Every error response an operation may declare: status -> what it means here.
ERRORS: dict[int, str] = {
    400: "Bad input: a malformed body, parameter, header or card.",
    401: "No credentials, or a request signature that does not hold.",
    403: "Credentials that are not the player's, or a server serving accounts only.",
    404: "No such game, player, account or path.",
    408: "The request's body came too slowly.",
    409: "The game moved on meanwhile, or the name or game exists already: read it again and retry.",
    413: "The request's body is too large.",
    422: "Refused by the rules or the game's state (the rule named), or a damaged history.",
    429: "Too many failed attempts from this address: try again after the Retry-After header's seconds.",
    503: "The server's database is unavailable, busy or read-only: try again after the Retry-After "
         "header's seconds.",
}
#: What every operation may answer, whatever it does: the request's signature and headers are checked
#: (verify.py) and its size and pace limited (limits.py) before it, and the database may be lost.
EVERY = (400, 401, 403, 408, 413, 429, 503)
#: What an operation on one game adds: no such game or player, a damaged history.
ONE_GAME = (404, 422)
#: What a move adds: the rules' refusal and a concurrent move.
MOVE = (404, 409, 422)
#: 429 of heavy work (audits and exports of every game, stats, imports): the caller's share is spent.
THROTTLED = "The caller's share of heavy work is spent for now, or too many failed attempts from this address: " \
    "try again after the Retry-After header's seconds (scat_cli/server/heavy_work.py)."
#: 429 of `POST /games`: the caller's share of game creation is spent.
CREATING = "The caller created as many games as this server allows an hour (`scat serve --new-games-per-hour`), " \
    "or too many failed attempts from this address: try again after the Retry-After header's seconds."
#: 429 of an event stream: too many open streams.
TOO_MANY_STREAMS = "Too many open streams from this address or on this server, or too many failed attempts: " \
    "try again after the Retry-After header's seconds."


def responses(*statuses: int, **told: str) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI responses of an operation: EVERY status and `statuses`, each an ErrorOut; `told`
    (e.g. `s429=THROTTLED`) words a status differently for this operation."""
    declared: dict[int | str, dict[str, Any]] = {}
    for status in sorted({*EVERY, *statuses}):
        description = told.get(f"s{status}", ERRORS[status])
        declared[status] = {"model": bodies.ErrorOut, "description": description}
    return declared


#: The OpenAPI responses of an event stream: the stream, or a refusal (429 over the caps of open streams).
STREAM_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/event-stream": {}}, "description": "The stream (server-sent events)."},
    **responses(*ONE_GAME, s429=TOO_MANY_STREAMS),
}


def told_to_clients(error: ScatError) -> ScatError:
    """`error` as a client may read it: a database the server cannot use is named by no URL, host or
    driver message (those are the operator's, in the log), only by its type and what to do."""
    if isinstance(error, DatabaseReadOnly):
        return DatabaseReadOnly("the server's database is read-only: only reads work for now")
    if isinstance(error, StoreUnavailable):
        return type(error)("the server's database is unavailable: try again later")
    return error


def refusal(status: int, message: str) -> JSONResponse:
    """A refusal that is no ScatError: its status and one line."""
    return JSONResponse(bodies.ErrorOut.bare(status, message).model_dump(exclude_none=True), status_code=status)


def too_many_streams(message: str) -> JSONResponse:
    """The refusal of one more event stream over a cap: 429, told when to try again."""
    response = refusal(429, message)
    response.headers["retry-after"] = str(STREAMS_RETRY_AFTER)
    return response


def _validation_message(error: RequestValidationError) -> str:
    """The first problem of a request that does not fit its model, as one line."""
    problems = error.errors()
    if not problems:
        return "bad request"
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part not in ("body", "query", "path"))
    message = " ".join(str(first.get("msg", "invalid")).split())
    return f"bad request: {where}: {message}" if where else f"bad request: {message}"


def count_refusal(request: Request, error: ScatError) -> None:
    """Count a refused signature or nonce (RequestRefused: from the verifier, or a move's replay
    found by its command) or wrong tokens against the client's address: past a few, its signed
    requests, or those with tokens, wait (verify.py)."""
    limiter = None
    verifier = request.app.state.server.verifier
    if isinstance(error, RequestRefused):
        limiter, count = verifier.limiter, 1
    elif isinstance(error, WrongToken):  # each a scrypt in a game made before SHA-256 token hashes
        limiter, count = verifier.wrong_tokens, error.count
    if limiter is not None:
        limiter.failed(request.client.host if request.client else "-", verifier.clock(), count)


async def scat_error(request: Request, error: Exception) -> JSONResponse:
    """A ScatError: its status (403 told as 401 to a request without credentials), its type and fields."""
    assert isinstance(error, ScatError)
    status = http_status(error)
    if status == 403 and "authorization" not in request.headers:
        status = 401
    count_refusal(request, error)
    if isinstance(error, StoreUnavailable | DatabaseBusy):
        LOG.warning("database unavailable on %s %s: %s", request.method, request.url.path,
                    getattr(error, "reason", "") or type(error).__name__)
    told = told_to_clients(error)
    headers = {"retry-after": str(told.retry_after)} if told.retry_after is not None else None
    return JSONResponse(bodies.ErrorOut.of(told, status).model_dump(exclude_none=True), status_code=status,
                        headers=headers)


async def bad_request(request: Request, error: Exception) -> JSONResponse:
    """A request that does not fit its model: 400 and its first problem."""
    assert isinstance(error, RequestValidationError)
    return refusal(400, _validation_message(error))


def allowed_methods(request: Request) -> list[str]:
    """The methods the request's path takes, on every route of the app (Starlette's own `Allow`
    names those of the first route of the path only, e.g. POST alone for GET and POST /games)."""
    methods = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
    return [method for method in methods
            if any(route.matches({**request.scope, "method": method})[0] is Match.FULL for route in request.app.routes)]


async def http_error(request: Request, error: Exception) -> JSONResponse:
    """Starlette's refusals (no such path, a method the path does not take: with its `Allow`)."""
    assert isinstance(error, StarletteHTTPException)
    headers = dict(error.headers or {})
    if error.status_code == 405:
        headers.pop("Allow", None)
        headers["allow"] = ", ".join(allowed_methods(request))
    body = bodies.ErrorOut.bare(error.status_code, str(error.detail)).model_dump(exclude_none=True)
    return JSONResponse(body, status_code=error.status_code, headers=headers or None)


async def unexpected(request: Request, error: Exception) -> JSONResponse:
    """Anything else: 500, logged (or nobody to answer: the client went away)."""
    if isinstance(error, ClientDisconnect):  # refused as too large, or gone: nobody to answer
        return refusal(400, "the client went away")
    LOG.exception("unexpected error on %s", request.url.path)
    return refusal(500, "the server failed on this request (see its log)")


def handle_errors(app: FastAPI) -> None:
    """Install the handlers that turn every error into its refusal."""
    app.add_exception_handler(ScatError, scat_error)
    app.add_exception_handler(RequestValidationError, bad_request)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
