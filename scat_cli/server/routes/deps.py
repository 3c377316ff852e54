"""What the requests of `scat serve` share, as FastAPI dependencies: the server's state, who signed
the request (the one reader of `request.state.account`, which verify.py sets), the bearer token,
the credential a use case acts as, and whose share of heavy work a request spends.

Each is `async def`: none waits for anything, and FastAPI runs a plain `def` dependency in a
worker thread, one trip there and back per dependency and request (a move took five, each a
hand-over of the GIL between the event loop and a worker: half the event loop's time per move)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Header, Query, Request

from scat_cli.wire import bodies
from scat_core.domain.errors import BadInput
from scat_core.records.credentials import ActingAccount, Credential, RequestNonce
from scat_core.service.accounts import AccountView

if TYPE_CHECKING:
    from scat_cli.server.fanout import Followers, StreamCaps
    from scat_cli.server.heavy_work import HeavyWork
    from scat_cli.server.push import Notifier
    from scat_cli.server.verify import RequestVerifier
    from scat_core.service.accounts import AccountService
    from scat_core.service.games import GameService
    from scat_core.store.sql.server_rows import SqlInvites


@dataclass(frozen=True, slots=True)
class ServerState:
    """What the routes of one app share (`app.state.server`, built by `create_app`)."""

    games: GameService
    accounts: AccountService
    verifier: RequestVerifier
    notifier: Notifier
    followers: Followers
    caps: StreamCaps
    heavy: HeavyWork
    #: Each caller's share of game creation (`scat serve --new-games-per-hour`; heavy_work.new_games).
    new_games: HeavyWork
    #: Games with --seed/--deck are allowed (`scat serve --testing`).
    testing: bool
    #: SQLite: how often the process looks at the log for other processes' moves.
    poll_seconds: float
    #: An event stream's keep-alive comment after this many seconds without news.
    keep_alive_seconds: float
    #: How often a `wait --any` stream looks at the database without being told of a move.
    pushed_poll_seconds: float
    #: Who may register (`scat serve --registration`): "open", "invite" (with a code of the
    #: operator's, `invites`) or "closed".
    registration: str = "open"
    invites: SqlInvites | None = None


async def server_state(request: Request) -> ServerState:
    """The state of the app serving `request`."""
    state: ServerState = request.app.state.server
    return state


Server = Annotated[ServerState, Depends(server_state)]


async def signed_by(request: Request) -> AccountView | None:
    """The account whose key signed `request` (None: unsigned, or by a key of no account)."""
    account: AccountView | None = getattr(request.state, "account", None)
    return account


SignedBy = Annotated[AccountView | None, Depends(signed_by)]


async def account_name(account: SignedBy) -> str | None:
    """The name of the account that signed the request (None: unsigned)."""
    return account.name if account is not None else None


AccountName = Annotated[str | None, Depends(account_name)]


async def caller_of(request: Request, account: SignedBy) -> tuple[str, ...]:
    """Whose shares of heavy work a request spends: its address's, and its account's when it is signed
    (so that accounts made by the thousand at one address get one share between them)."""
    address = f"address {request.client.host if request.client else '-'}"
    return (f"account {account.name}", address) if account is not None else (address,)


Caller = Annotated[tuple[str, ...], Depends(caller_of)]


async def bearer(authorization: Annotated[str | None, Header(max_length=1000)] = None) -> str | None:
    """The bearer token of the request, if any."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise BadInput("the Authorization header must be `Bearer TOKEN`")
    return token.strip()


Token = Annotated[str | None, Depends(bearer)]


def credential_of(token: str | None, account: AccountView | None, nonce: RequestNonce | None = None) -> Credential:
    """Who a request acts as: its bearer token, else the account its signature proved (verify.py),
    with the request's nonce when its command is to spend it."""
    if token:
        return token
    return ActingAccount(account.name, account.key_id, account.public_key, nonce) if account is not None else None


async def acting(request: Request, token: Token, account: SignedBy) -> Credential:
    """Who the request acts as (`credential_of`)."""
    return credential_of(token, account, getattr(request.state, "nonce", None))


Acting = Annotated[Credential, Depends(acting)]

Viewer = Annotated[str | None, Query(alias="as", max_length=bodies.SHORT, description="See the game as this player.")]
