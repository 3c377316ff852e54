"""The account endpoints of `scat serve`: register a public key under a name, and who am I."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from scat_cli.server.routes.deps import Server, SignedBy
from scat_cli.server.routes.errors import responses
from scat_cli.server.wire import SHORT
from scat_core.domain.accounts import key_id_of
from scat_core.domain.errors import AuthFailed, RequestRefused
from scat_core.service.accounts import AccountView

router = APIRouter()


class AccountIn(BaseModel):
    """`scat account register NAME`: the name and the base64 Ed25519 public key that signs the request."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=SHORT)
    public_key: str = Field(min_length=1, max_length=SHORT)


@router.post("/accounts", response_model=AccountView, status_code=201, responses=responses(404, 409, 422))
def register(body: AccountIn, request: Request, server: Server) -> AccountView:
    """Register the public key that signs this request under `name` (names as for players)."""
    signed_by = getattr(request.state, "signed_key_id", None)
    if signed_by is None:
        raise AuthFailed("registering needs a request signed by the key it registers")
    if signed_by != key_id_of(body.public_key):
        raise RequestRefused.because("a registration must be signed by the key it registers")
    registered = server.accounts.register(body.name, body.public_key)
    server.verifier.keys.forget(registered.key_id)  # known at once here, even if looked up as unknown just now
    return registered


@router.get("/accounts/me", response_model=AccountView, responses=responses(404))
def me(account: SignedBy) -> AccountView:
    """The account whose key signed this request (404 when that key has none)."""
    if account is None:
        raise AuthFailed("who you are is told to a signed request only")
    return account
