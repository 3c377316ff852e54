"""A read that lost its database connection is tried once more, on a fresh one, before its 503.

The pool pre-pings each connection it hands out (wiring.open_database(pre_ping=True)), so a
connection that went stale while pooled (the database restarted, its backend terminated) is
replaced before use. A connection lost *during* a request (between the ping and the query, or
while the query runs) still fails that request: SQLAlchemy then invalidates the connection and
every one pooled before it, and the store says StoreUnavailable (503).

`RetryLostReads` answers such a GET again, once, on a fresh connection, before it would send
the 503: only when the request lost a connection (the pool invalidated one, as it does when
the driver says it is lost: the pool's `invalidate` event), never for another 503 (a read-only
database, a busy one, a spent share). The second try is the request as it was received: a
scope of its own copied from the first's, and the messages the first read from the client
(the body a signature covers: verify.py reads it) given to it again, then the client's own
(its hang-up). A signed request's nonce is spent by whichever try reaches the database: the
second finds it spent by the first (OWN_NONCES), which is not a replay. A GET may write only what asking again
decides again (a look at a face-down hand, R23; a claim of a turn out of move time, R28):
the retry reads the game afresh, finds a look or claim that did commit, and records nothing
twice.

Writes (POST: moves, claims, new games, imports) are not tried again by the server: a
connection lost while a move's transaction commits leaves it unknown whether it committed,
and the server does not track which statement was lost. The client gets the 503 and its user
runs the command again, on the game as it then stands: a move that did commit shows there
(and a move's preconditions are then gone: a second draw, a discard out of turn, a second
knock are refused by the rules), so the server never plays one request twice.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Any

from sqlalchemy import Engine, event

LOG = logging.getLogger("scat.server")
#: The request being answered: set once the database said its connection was lost.
_LOST: ContextVar[list[bool] | None] = ContextVar("scat_lost_connection", default=None)
#: The scope's key of the nonces a request's tries spent or tried to spend (a set of (key id, nonce)):
#: the verifier (verify.py) takes a nonce it finds there for this request's own, not a replay.
OWN_NONCES = "scat.own_nonces"


def _heard(dbapi_connection: Any, record: Any, exception: BaseException | None) -> None:
    """The pool's `invalidate` event: a connection found lost (by SQLAlchemy's execution or the
    store's own cursor, scat_core.store.sql.driver_sql) is noted for the request that lost it."""
    lost = _LOST.get()
    if lost is not None:
        lost.append(True)


class RetryLostReads:
    """ASGI middleware: a GET answered 503 because its database connection was lost is answered
    again, once (see the module's doc); the first answer is dropped unsent."""

    def __init__(self, app: Any, engine: Engine) -> None:
        self.app = app
        if not event.contains(engine, "invalidate", _heard):
            event.listen(engine, "invalidate", _heard)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The ASGI entry point."""
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        lost: list[bool] = []
        held: list[Any] = []
        received: list[Any] = []  # what the first try read of the request, to give the second again
        first = {**scope, OWN_NONCES: set()}
        again = _copied(first)
        noted = _LOST.set(lost)

        async def recording(*args: Any) -> Any:
            message = await receive(*args)
            if message["type"] == "http.request":
                received.append(message)
            return message

        async def holding(message: Any) -> None:
            if held or (message["type"] == "http.response.start" and message["status"] == 503 and lost):
                held.append(message)  # the 503 of a lost connection (and its body): not sent
                return
            await send(message)

        try:
            await self.app(first, recording, holding)
        finally:
            _LOST.reset(noted)
        if held:
            LOG.warning("database connection lost on GET %s: asked again on a fresh connection", scope["path"])
            replayed = iter(received)

            async def replaying(*args: Any) -> Any:
                return next(replayed, None) or await receive(*args)

            await self.app(again, replaying, send)


def _copied(scope: dict[str, Any]) -> dict[str, Any]:
    """A scope as the server gave it, for a try of its own: what the app writes into a scope (the route,
    its path parameters, `request.state`) stays in the try that wrote it; the nonces tried are shared."""
    copy = dict(scope)
    if isinstance(scope.get("state"), dict):
        copy["state"] = dict(scope["state"])
    return copy
