"""What a server tells about itself: its signing key (`GET /key`) and its health
(`GET /health`, and `HEAD /health` for monitoring tools)."""

from __future__ import annotations

from fastapi import APIRouter

from scat_cli.server.routes.deps import Server
from scat_cli.server.routes.errors import responses
from scat_cli.wire import bodies
from scat_core.service.values import SigningKey

router = APIRouter()


@router.get("/key", response_model=SigningKey, responses=responses())
def signing_key(server: Server) -> SigningKey:
    """The server's public key, which signs its games' heads: `scat key trust --server URL` trusts it."""
    return server.games.signing_key()


@router.get("/health", response_model=bodies.HealthOut, responses=responses())
@router.head("/health", include_in_schema=False)  # as monitoring tools ask it: the answer without its body
def health(server: Server) -> bodies.HealthOut:
    """The server answers and reads its database (one indexed look-up, however many games it holds)."""
    with server.games.store.read() as tx:
        tx.head("")  # no game has an empty id: the database answers, its schema in place
    return bodies.HealthOut(database=server.games.store.engine.dialect.name)
