"""ASGI middleware of the server: request body limits and one log line per request."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from scat_cli.errors import exit_code
from scat_core.domain.errors import BadInput

Scope = dict[str, Any]
Receive = Any
Send = Any

LOG = logging.getLogger("scat.server")
COMMAND_BODY_LIMIT = 64 * 1024  # a move or a new game is a few hundred bytes
IMPORT_BODY_LIMIT = 8 * 1024 * 1024  # a long game's export is a few hundred KiB


def _limit_for(path: str) -> int:
    return IMPORT_BODY_LIMIT if path.rstrip("/").endswith("/import") else COMMAND_BODY_LIMIT


async def _refuse(send: Send, limit: int) -> None:
    refusal = {"error": f"the request is too large: at most {limit} bytes here", "exit_code": exit_code(BadInput)}
    body = json.dumps(refusal).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class LimitAndLog:
    """Refuse bodies over the path's limit (413, before reading them when Content-Length says
    so) and log `METHOD PATH STATUS MS` once per request."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI entry point."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), [0]
        limit = _limit_for(scope["path"])
        length = dict(scope.get("headers") or []).get(b"content-length")
        try:
            if length is not None and (not length.isdigit() or int(length) > limit):
                status[0] = 413
                await _refuse(send, limit)
                return
            received, refused = [0], [False]

            async def limited_receive() -> Any:
                message = await receive()
                received[0] += len(message.get("body", b""))
                if received[0] > limit and not refused[0]:
                    refused[0], status[0] = True, 413
                    await _refuse(send, limit)
                if refused[0]:  # the app stops reading; whatever it answers is dropped
                    return {"type": "http.disconnect"}
                return message

            async def recording_send(message: Any) -> None:
                if refused[0]:
                    return
                if message["type"] == "http.response.start":
                    status[0] = message["status"]
                await send(message)

            await self.app(scope, limited_receive, recording_send)
        finally:
            client = scope.get("client") or ("-", 0)
            LOG.info("%s %s %s %d %.1fms", client[0], scope["method"], scope["path"], status[0],
                     (time.perf_counter() - started) * 1000)
