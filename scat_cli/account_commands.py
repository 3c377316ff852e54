"""`scat account ...`: this user's account on a server, which is his installation key."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from scat_cli.render import local_text
from scat_cli.settings import state
from scat_cli.typer_glue import PlainGroup, ScatCommand

if TYPE_CHECKING:
    from scat_core.service.accounts import AccountKeys, AccountView

account_app = typer.Typer(
    help="Your account on a server (your key, known there by a name).\n\n"
    "Accounts live on servers: give --server URL (or SCAT_SERVER); `rekey` and `invite`, for the "
    "server's operator, run on its database (--db URL). One account, several devices: each has its own "
    "key (`scat key show`), which `add-key` gives the account from a device that has it already.\n\n"
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
    from scat_cli.render import say

    say(f"{verb} {account.name} on {server}")
    say(f"key id      {account.key_id}")
    say(f"registered  {local_text(account.registered_at)}")


@account_app.command("register", cls=ScatCommand)
def register_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", show_default=False,
                                        help="The name to be known by there (as player names: 1 to 32 letters, "
                                             "digits, spaces, . ' - or _).")],
    invite: Annotated[str | None, typer.Option("--invite", metavar="CODE", show_default=False,
                                               help="An invite code from the server's operator, where "
                                                    "registration is by invitation.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Register your installation key on the server, under NAME.

    The server keeps your public key only. From then on every request your scat sends to
    that server is signed with your key (RFC 9421 HTTP Message Signatures), and the server
    knows you as NAME. A name taken (or looking like one taken) is exit 1; so is a key
    registered already. A server whose operator takes new accounts by invitation wants
    --invite CODE (a wrong or used code, or a closed server, is exit 3).

    Example: scat --server https://scat.example.org account register ann
    """
    from scat_cli.remote.client import RemoteGames
    from scat_cli.remote.identity import Identity, remember
    from scat_core.service.accounts import AccountView

    server = _server(ctx, "register")
    identity = Identity()
    with RemoteGames(server, identity) as remote:
        answer = remote.request("POST", "/accounts", json={"name": name, "public_key": identity.public_key,
                                                           **({"invite": invite.strip()} if invite else {})})
    account = AccountView.model_validate(answer)
    assert remote.server_key is not None  # known before the first request
    remember(remote.server_key, account.name, account.key_id, server)
    _told(server, account, as_json, "registered")


@account_app.command("show", cls=ScatCommand)
def show_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Say who you are on the server: the account your key is registered as (exit 4 if none).

    Example: scat --server https://scat.example.org account show --json
    """
    from scat_cli.remote.client import RemoteGames
    from scat_cli.remote.identity import Identity, remember
    from scat_core.service.accounts import AccountView

    server = _server(ctx, "show")
    identity = Identity()
    with RemoteGames(server, identity) as remote:
        account = AccountView.model_validate(remote.request("GET", "/accounts/me"))
    assert remote.server_key is not None  # known before the first request
    remember(remote.server_key, account.name, account.key_id, server)
    _told(server, account, as_json, "you are")


@account_app.command("rekey", cls=ScatCommand)
def rekey_command(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(metavar="NAME", show_default=False, help="The account to give a new key.")],
    key: Annotated[str, typer.Argument(metavar="KEY", show_default=False,
                                       help="Its new public key, as `scat key show` prints it on the user's "
                                            "machine (44 base64 characters).")],
    as_json: JsonOption = False,
) -> None:
    """Give an account a new public key: for the server's operator, on the server's database.

    A user who lost his key makes a new one (`scat key show` on his machine creates it) and
    sends its public key to the operator, who runs this with --db (the server's database URL).
    The change is recorded as an event of the account: moves made before it still verify
    under the old key, those after under the new one; every server process takes the new key
    within seconds. An unknown NAME is exit 4; a key some account has or had is exit 1.

    Example: scat --db postgresql+psycopg://scat@db/scat account rekey ann 'Mz3h...='
    """
    from scat_cli import wiring
    from scat_core.domain.errors import BadInput

    given = state(ctx)
    if given.server:
        raise BadInput("`scat account rekey` runs on the server's database, not through it: give --db URL "
                       "(the database `scat serve` uses)")
    opened = wiring.open_database(given.db_url)
    try:
        accounts = opened.accounts
        assert accounts is not None  # a database opened here has its account log
        account = accounts.rekey(name, key.strip())
    finally:
        opened.store.engine.dispose()
    if as_json:
        typer.echo(json.dumps({"name": account.name, "key_id": account.key_id, "public_key": account.public_key,
                               "keys": account.keys}))
        return
    from scat_cli.render import say

    say(f"re-keyed {account.name}: key id {account.key_id} from now on (key {account.keys} of the account)")


def _keys_told(server: str, keys: AccountKeys, as_json: bool, done: dict[str, str] | None = None,
               line: str = "") -> None:
    """The account's keys: the contract's JSON (`{"keys": [...]}`, with what was `done`), or a table."""
    if as_json:
        typer.echo(json.dumps({**(done or {}), "name": keys.name, "server": server,
                               "keys": [key.model_dump() for key in keys.keys]}))
        return
    from scat_cli.render import say

    if line:
        say(line)
    say(f"the keys of {keys.name} on {server} ({len(keys.keys)}):")
    for key in keys.keys:
        label = f"  {key.label}" if key.label else ""
        mine = "  (this device)" if key.this_device else ""
        say(f"  {key.key_id}  added {key.added_at[:19].replace('T', ' ')} UTC{label}{mine}")


@account_app.command("keys", cls=ScatCommand)
def keys_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """List your account's keys on the server: one per device that acts as you.

    Each key with its id, its label, when it was added, and which one is this device's.
    `--json`: {"keys": [{"key_id", "public_key", "label", "added_at", "this_device"}, ...]}.

    Example: scat --server https://scat.example.org account keys
    """
    from scat_cli.remote.client import RemoteGames
    from scat_cli.remote.identity import Identity
    from scat_core.service.accounts import AccountKeys

    server = _server(ctx, "keys")
    with RemoteGames(server, Identity()) as remote:
        keys = AccountKeys.model_validate(remote.request("GET", "/accounts/me/keys"))
    _keys_told(server, keys, as_json)


@account_app.command("add-key", cls=ScatCommand)
def add_key_command(
    ctx: typer.Context,
    public_key: Annotated[str, typer.Argument(metavar="PUBLIC_KEY", show_default=False,
                                              help="The other device's public key, as `scat key show` prints it "
                                                   "there (44 base64 characters), or a file holding it.")],
    label: Annotated[str, typer.Option("--label", metavar="TEXT",
                                       help="Which device it is (up to 64 characters), shown by `account keys`.")]
    = "",
    as_json: JsonOption = False,
) -> None:
    """Add another device's key to your account: that device then acts as you.

    Run it on a device whose key is your account already, with the key the other device's
    `scat key show` prints; then, on the other device, `scat account show` finds the account.
    Recorded as an event of the account. A key some account has or had is exit 1.

    Example: scat --server https://scat.example.org account add-key 'Mz3h...=' --label laptop
    """
    from scat_cli.key_commands import _read_key
    from scat_cli.remote.client import RemoteGames
    from scat_cli.remote.identity import Identity
    from scat_core.domain.accounts import key_id_of
    from scat_core.service.accounts import AccountKeys

    server = _server(ctx, "add-key")
    key = _read_key(public_key).strip()
    key_id = key_id_of(key)  # BadInput (exit 2) when it is no key
    with RemoteGames(server, Identity()) as remote:
        keys = AccountKeys.model_validate(remote.request("POST", "/accounts/me/keys",
                                                         json={"public_key": key, "label": label}))
    _keys_told(server, keys, as_json, {"added": key_id},
               f"added the key {key_id} to {keys.name}: that device acts as {keys.name} from now on "
               "(there, `scat account show` finds the account)")


@account_app.command("revoke-key", cls=ScatCommand)
def revoke_key_command(
    ctx: typer.Context,
    key_id: Annotated[str, typer.Argument(metavar="KEY_ID", show_default=False,
                                          help="The key to stop, as `scat account keys` lists it (16 hex digits).")],
    as_json: JsonOption = False,
) -> None:
    """Stop one of your account's keys (a lost laptop): its requests are refused from now on.

    The moves it signed before still verify. Your account's last key is refused (exit 1);
    a key id the account has not got is exit 4. Recorded as an event of the account.

    Example: scat --server https://scat.example.org account revoke-key 3f2a1b9c0d4e5f60
    """
    import re

    from scat_cli.remote.client import RemoteGames
    from scat_cli.remote.identity import Identity
    from scat_core.domain.errors import BadInput
    from scat_core.service.accounts import AccountKeys

    server = _server(ctx, "revoke-key")
    wanted = key_id.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{16}", wanted):
        raise BadInput(f"{key_id!r} is not a key id (16 hex digits, as `scat account keys` lists them)")
    with RemoteGames(server, Identity()) as remote:
        keys = AccountKeys.model_validate(remote.request("DELETE", f"/accounts/me/keys/{wanted}"))
    _keys_told(server, keys, as_json, {"revoked": wanted},
               f"revoked the key {wanted} of {keys.name}: its requests are refused from now on")


@account_app.command("invite", cls=ScatCommand)
def invite_command(
    ctx: typer.Context,
    count: Annotated[int, typer.Option("--count", min=1, max=1000, metavar="N",
                                       help="How many codes to make.")] = 1,
    as_json: JsonOption = False,
) -> None:
    """Make invite codes: for the server's operator, on the server's database.

    For a server started with `--registration invite`: each code lets one person register
    (`scat account register NAME --invite CODE`). The codes are printed here once; the
    database keeps only their SHA-256.

    Example: scat --db postgresql+psycopg://scat@db/scat account invite --count 5
    """
    from datetime import UTC, datetime

    from scat_core.domain.errors import BadInput
    from scat_core.store.sql.database import open_engine
    from scat_core.store.sql.server_rows import SqlInvites

    given = state(ctx)
    if given.server:
        raise BadInput("`scat account invite` runs on the server's database, not through it: give --db URL "
                       "(the database `scat serve` uses)")
    engine = open_engine(given.db_url)
    try:
        at = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        codes = SqlInvites(engine).make(count, at)
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps({"codes": codes}))
        return
    for code in codes:
        typer.echo(code)
