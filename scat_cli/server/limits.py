"""ASGI middleware of the server: request body limits and deadlines, and one escaped log line per request."""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from scat_cli.server.answering import Answering
from scat_core.domain.errors import ScatError, TimedOut

Scope = dict[str, Any]
Receive = Any
Send = Any

LOG = logging.getLogger("scat.server")
#: The scope's key of the server's own `send`, below every middleware: an event stream hands it its
#: body's chunks (routes/streams.EventStream); the middlewares read only a response's start and end.
SERVER_SEND = "scat.server_send"
#: The scope's key of the callable that says a request is answered (answering.Answering.begin's): an
#: event stream calls it once it streams, as it is no longer a request waiting for its answer.
ANSWERED = "scat.answered"
COMMAND_BODY_LIMIT = 64 * 1024  # a move or a new game is a few hundred bytes
IMPORT_BODY_LIMIT = 8 * 1024 * 1024  # a long game's export is a few hundred KiB
#: Seconds a client has to send a request's whole body, from its first read (the headers have
#: their own deadline: scat_cli.server.protocol). 8 MiB in 30 s asks for 280 KB/s.
BODY_SECONDS = 30.0


def escaped(text: object) -> str:
    """`text` safe for one log line: control characters (newline, ESC ...), backslashes and
    anything not ASCII written as Python escapes (`\\n`, `\\x1b`, `\\u202e`)."""
    return str(text).encode("unicode_escape").decode("ascii")


class Escaping(logging.Filter):
    """Writes every record of the server's log as one line: its message, with its arguments (a path,
    a reason, a client's address: anything a request may carry), and its traceback and stack, if
    any (an exception's text may quote a game id or a player's name), all escaped (see `escaped`).

    A record is escaped once, whichever filter sees it first (this logger's, or the handler of
    `scat serve`'s log, scat_cli.server.server_log, which every logger of the process writes through).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Fold the record's traceback and stack into its message, and escape it all into one line."""
        if getattr(record, "scat_escaped", False):
            return True
        text = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = _TRACEBACKS.formatException(record.exc_info)
        if record.exc_text:
            text = f"{text}\n{record.exc_text}"
        if record.stack_info:
            text = f"{text}\n{record.stack_info}"
        record.msg, record.args = escaped(text), None
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        record.scat_escaped = True
        return True


_TRACEBACKS = logging.Formatter()  # formats a record's exception as logging does


LOG.addFilter(Escaping())


def _limit_for(path: str) -> int:
    return IMPORT_BODY_LIMIT if path.rstrip("/").endswith("/import") else COMMAND_BODY_LIMIT


async def _answer(send: Send, status: int, refusal: dict[str, Any]) -> None:
    body = json.dumps(refusal).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def _refusal(error: ScatError) -> dict[str, Any]:
    from scat_cli.wire.bodies import ErrorOut

    return ErrorOut.of(error).model_dump(exclude_none=True)


def _too_large(limit: int) -> dict[str, Any]:
    from scat_cli.wire.bodies import ErrorOut

    return ErrorOut.bare(413, f"the request is too large: at most {limit} bytes here").model_dump(exclude_none=True)


class LimitAndLog:
    """Refuse bodies over the path's limit (413, before reading them when Content-Length says
    so) or sent too slowly (408, after BODY_SECONDS), log `CLIENT METHOD PATH STATUS MS`
    once per request, escaped, and count the requests being answered (`answering`)."""

    def __init__(self, app: Any, answering: Answering) -> None:
        self.app, self.answering = app, answering

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI entry point."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), [0]
        scope[SERVER_SEND] = send
        scope[ANSWERED] = answered_now = self.answering.begin()
        limit = _limit_for(scope["path"])
        length = dict(scope.get("headers") or []).get(b"content-length")
        try:
            if length is not None and (not length.isdigit() or int(length) > limit):
                status[0] = 413
                await _answer(send, 413, _too_large(limit))
                return
            received, refused, answered, read = [0], [False], [False], [False]
            deadline: list[float] = []

            async def refuse(code: int, body: dict[str, Any]) -> None:
                refused[0] = True
                if not answered[0]:  # nothing sent yet: the refusal is the answer
                    status[0], answered[0] = code, True
                    await _answer(send, code, body)

            async def limited_receive() -> Any:
                if read[0] or refused[0]:  # the body is in (or refused): waits for a disconnect are the app's
                    return await receive() if not refused[0] else {"type": "http.disconnect"}
                if not deadline:
                    deadline.append(asyncio.get_running_loop().time() + BODY_SECONDS)
                try:
                    async with asyncio.timeout_at(deadline[0]):  # no task of its own, as wait_for makes
                        message = await receive()
                except TimeoutError:
                    late = TimedOut(f"the request's body took longer than {BODY_SECONDS:g} s to arrive: send it "
                                    "again on a faster connection")
                    await refuse(408, _refusal(late))
                    return {"type": "http.disconnect"}
                read[0] = message["type"] != "http.request" or not message.get("more_body", False)
                received[0] += len(message.get("body", b""))
                if received[0] > limit:
                    await refuse(413, _too_large(limit))
                    return {"type": "http.disconnect"}  # the app stops reading; whatever it answers is dropped
                return message

            async def recording_send(message: Any) -> None:
                if refused[0]:
                    return
                if message["type"] == "http.response.start":
                    status[0], answered[0] = message["status"], True
                await send(message)

            await self.app(scope, limited_receive, recording_send)
        finally:
            answered_now()
            client = scope.get("client") or ("-", 0)
            LOG.info("%s %s %s %d %.1fms", client[0], scope["method"], scope["path"], status[0],
                     (time.perf_counter() - started) * 1000)
