"""How `scat serve` runs on uvicorn: its config, and a deadline for each request's headers.

uvicorn bounds the size of a request's headers (h11's incomplete-event limit, 16 KiB) and the
idle time between requests (`timeout_keep_alive`), but not the time a client may take to send
its headers: a client trickling one byte every few seconds (a "slowloris") would hold its
connection for ever. `HeaderDeadline` closes a connection whose request line and headers are
not all in within HEADER_SECONDS of their first byte (or of the connection, for a client that
sends nothing), after a 408; so too one that goes on sending a body the app answered without
reading. The body the app reads has its own deadline (scat_cli.server.limits).
"""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn import Config
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a client has to send a request's line and headers, from their first byte.
HEADER_SECONDS = 10.0
#: Seconds an idle kept-alive connection stays open between requests.
KEEP_ALIVE_SECONDS = 5


class HeaderDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 protocol (h11) with a deadline for each request's headers."""

    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """A new connection: its first request's headers are due within HEADER_SECONDS."""
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        """Bytes in: while no request is being answered, they have HEADER_SECONDS to make one (its
        line and headers; or to end a body the app left unread after answering)."""
        if not self._serving() and self._header_timer is None:
            self._arm()
        super().data_received(data)
        if self._serving():
            self._disarm()

    def _serving(self) -> bool:
        """Whether the app is answering a request of this connection now (its headers all came)."""
        return self.cycle is not None and not self.cycle.response_complete

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection is gone: no deadline left to keep."""
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        """The headers did not come in time: a 408 (when no answer is under way), and the connection closed."""
        self._header_timer = None
        if self._serving() or self.transport.is_closing():
            return
        if self.conn.their_state is h11.IDLE:
            from scat_cli.wire.bodies import ErrorOut
            from scat_core.domain.errors import TimedOut

            late = TimedOut(f"the request's headers took longer than {HEADER_SECONDS:g} s: the connection is closed")
            body = json.dumps(ErrorOut.of(late).model_dump(exclude_none=True)).encode()
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                                 b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n"
                                 + body)
        self.transport.close()


def server_config(app: Any, **options: Any) -> Config:
    """uvicorn's config for `app` as `scat serve` runs it (tests serve it the same way): the h11
    protocol with a deadline for headers, a short keep-alive, no access log (the app logs)."""
    settings: dict[str, Any] = {"http": HeaderDeadline, "timeout_keep_alive": KEEP_ALIVE_SECONDS,
                                "access_log": False, "log_level": "warning", "server_header": False}
    return Config(app, **(settings | options))
