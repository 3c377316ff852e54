"""`scat account ...`: this user's account on a server, which is his installation key."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from scat_cli.context import state
from scat_cli.typer_glue import PlainGroup, ScatCommand

if TYPE_CHECKING:
    from scat_core.service.accounts import AccountView

account_app = typer.Typer(
    help="Your account on a server (your key, known there by a name).\n\n"
    "Accounts live on servers: give --server URL (or SCAT_SERVER).\n\n"
    "Example: scat --server https://scat.example.org account register ann",
    no_args_is_help=True,
    cls=PlainGroup,  # a usage error told in one line
)

JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


def _server(ctx: typer.Context, command: str) -> str:
    """The server this command talks to; exit 2 without one (accounts live on servers)."""
    server = state(ctx).server
    if not server:
        from scat_core.domain.errors import BadInput

        raise BadInput(f"`scat account {command}` needs a server: accounts live on servers "
                       "(give --server URL or set SCAT_SERVER)")
    return server


def _told(server: str, account: AccountView, as_json: bool, verb: str) -> None:
    if as_json:
        typer.echo(json.dumps({"server": server, "name": account.name, "key_id": account.key_id,
                               "public_key": account.public_key, "registered_at": account.registered_at}))
        return
    from scat_cli.escape import say

    say(f"{verb} {account.name} on {server}")
    say(f"key id      {account.key_id}")
    say(f"registered  {account.registered_at}")


@account_app.command("register", cls=ScatCommand)
def register_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", show_default=False,
                                        help="The name to be known by there (as player names: 1 to 32 letters, "
                                             "digits, spaces, . ' - or _).")],
    as_json: JsonOption = False,
) -> None:
    """Register your installation key on the server, under NAME.

    The server keeps your public key only. From then on every request your scat sends to
    that server is signed with your key (RFC 9421 HTTP Message Signatures), and the server
    knows you as NAME. A name taken (or looking like one taken) is exit 1; so is a key
    registered already.

    Example: scat --server https://scat.example.org account register ann
    """
    from scat_cli.server.client import RemoteGames
    from scat_cli.server.identity import Identity, remember
    from scat_core.service.accounts import AccountView

    server = _server(ctx, "register")
    identity = Identity()
    with RemoteGames(server, identity) as remote:
        answer = remote.request("POST", "/accounts", json={"name": name, "public_key": identity.public_key})
    account = AccountView.model_validate(answer)
    remember(server, account.name, account.key_id)
    _told(server, account, as_json, "registered")


@account_app.command("show", cls=ScatCommand)
def show_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Say who you are on the server: the account your key is registered as (exit 4 if none).

    Example: scat --server https://scat.example.org account show --json
    """
    from scat_cli.server.client import RemoteGames
    from scat_cli.server.identity import Identity, remember
    from scat_core.service.accounts import AccountView

    server = _server(ctx, "show")
    identity = Identity()
    with RemoteGames(server, identity) as remote:
        account = AccountView.model_validate(remote.request("GET", "/accounts/me"))
    remember(server, account.name, account.key_id)
    _told(server, account, as_json, "you are")
