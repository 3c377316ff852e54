"""The account endpoints of `scat serve`: register a public key under a name, who am I, and the
keys that act for my account (one per device: list, add, revoke)."""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from scat_cli.server.routes.deps import Server, ServerState, SignedBy
from scat_cli.server.routes.errors import responses
from scat_cli.wire.bodies import SHORT
from scat_core.domain.accounts import key_id_of
from scat_core.domain.errors import AuthFailed, RequestRefused
from scat_core.service.accounts import AccountKeys, AccountView

router = APIRouter()


class AccountIn(BaseModel):
    """`scat account register NAME`: the name and the base64 Ed25519 public key that signs the request."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=SHORT)
    public_key: str = Field(min_length=1, max_length=SHORT)
    invite: str | None = Field(default=None, max_length=SHORT, description="An invite code of the operator's "
                               "(`scat serve --registration invite`).")


@router.post("/accounts", response_model=AccountView, status_code=201, responses=responses(404, 409, 422))
def register(body: AccountIn, request: Request, server: Server) -> AccountView:
    """Register the public key that signs this request under `name` (names as for players)."""
    signed_by = getattr(request.state, "signed_key_id", None)
    if signed_by is None:
        raise AuthFailed("registering needs a request signed by the key it registers")
    if signed_by != key_id_of(body.public_key):
        raise RequestRefused.because("a registration must be signed by the key it registers")
    if server.registration == "closed":
        raise AuthFailed("this server takes no new accounts: its operator has closed registration")
    if server.registration != "invite":
        registered = server.accounts.register(body.name, body.public_key)
    else:
        registered = _invited(body, server)
    server.verifier.keys.forget(registered.key_id)  # known at once here, even if looked up as unknown just now
    return registered


def _invited(body: AccountIn, server: ServerState) -> AccountView:
    """A registration by invitation: its code spent, and given back if the registration is refused."""
    from datetime import UTC, datetime

    invites = server.invites
    assert invites is not None
    if not body.invite:
        raise AuthFailed("this server takes new accounts by invitation: ask its operator for an invite code")
    at = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
    if not invites.use(body.invite, body.name, at):
        raise AuthFailed("that invite code is not one of this server's, or it was used already")
    try:
        return server.accounts.register(body.name, body.public_key)
    except BaseException:
        invites.give_back(body.invite, body.name)
        raise


@router.get("/accounts/me", response_model=AccountView, responses=responses(404))
def me(account: SignedBy) -> AccountView:
    """The account whose key signed this request (404 when that key has none)."""
    if account is None:
        raise AuthFailed("who you are is told to a signed request only")
    return account


class KeyIn(BaseModel):
    """`scat account add-key PUBLIC_KEY`: another device's public key (base64 Ed25519) and its label."""

    model_config = ConfigDict(extra="forbid")

    public_key: str = Field(min_length=1, max_length=SHORT)
    label: str = Field(default="", max_length=SHORT)


def _signed(account: AccountView | None) -> AccountView:
    if account is None:
        raise AuthFailed("an account's keys are told and changed by a request signed by one of them")
    return account


@router.get("/accounts/me/keys", response_model=AccountKeys, responses=responses(404))
def keys(account: SignedBy, server: Server) -> AccountKeys:
    """The keys that act for the account whose key signed this request (`this_device`: that key)."""
    signer = _signed(account)
    return server.accounts.keys(signer.name, signer.key_id)


@router.post("/accounts/me/keys", response_model=AccountKeys, status_code=201, responses=responses(404, 422))
def add_key(body: KeyIn, account: SignedBy, server: Server) -> AccountKeys:
    """Add another device's key to the account whose key signs this request: it acts for it from now on."""
    signer = _signed(account)
    added = server.accounts.add_key(signer.name, body.public_key, body.label, signer.key_id)
    server.verifier.keys.forget(key_id_of(body.public_key))  # known at once here, even if looked up just now
    return added


@router.delete("/accounts/me/keys/{key_id}", response_model=AccountKeys, responses=responses(404, 422))
def revoke_key(account: SignedBy, server: Server,
               key_id: str = Path(pattern="^[0-9a-f]{16}$", description="The key id to stop.")) -> AccountKeys:
    """Stop one of the account's keys (not its last): its requests are refused from now on; the moves it
    signed before still verify."""
    signer = _signed(account)
    left = server.accounts.revoke_key(signer.name, key_id, signer.key_id)
    server.verifier.keys.forget(key_id)  # refused at once by this process (others: within verify.KEY_SECONDS)
    return left
