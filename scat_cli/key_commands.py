"""`scat key ...`: this installation's signing key, and the keys of others it trusts."""

# Imports inside functions: start-up time; `scat --help` and the other commands load nothing of what this one runs.
from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scat_cli.typer_glue import PlainGroup, ScatCommand

if TYPE_CHECKING:
    from scat_core.service.values import SigningKey

key_app = typer.Typer(
    help="The key that signs each game's head.\n\nIt is kept outside the database, in a file of its own.\n\n"
    "Example: scat key show",
    no_args_is_help=True,
    cls=PlainGroup,  # a usage error told in one line
)

JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


@key_app.command("show", cls=ScatCommand)  # arguments shown by name, no type label
def show_command(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Print this installation's public key (or a server's).

    The key is created on first use. The private key stays in its file (mode 0600; $SCAT_KEY_FILE, else your config
    folder): back it up with your database, and copy it along when you move the database
    to another machine. Give the public key to whoever should verify your exports: they run
    `scat key trust PUBLIC_KEY`. Given --server URL before the command, it prints that
    server's public key, which signs the games played there (`scat key trust --server URL`
    trusts it).

    Example: scat key show
    """
    from scat_core.records.signing import KeyRing, key_id_of

    server = _server_flag(ctx)
    if server is not None:
        key = _server_key(server)
        if as_json:
            typer.echo(json.dumps({"algorithm": key.algorithm, "key_id": key.key_id, "public_key": key.public_key,
                                   "server": server}))
            return
        typer.echo(f"public key  {key.public_key}")
        typer.echo(f"key id      {key.key_id}")
        typer.echo(f"server      {server}  (the server's key: `scat key trust --server {shlex.quote(server)}` "
                   "trusts it)")
        return
    keys = KeyRing.default()
    trusted = sorted(keys.trusted())
    if as_json:
        typer.echo(json.dumps({
            "algorithm": "ed25519", "key_id": keys.key_id, "public_key": keys.public_key,
            "key_file": str(keys.key_path), "trust_file": str(keys.trust_path),
            "trusted": [{"key_id": key_id_of(key), "public_key": key} for key in trusted],
        }))
        return
    typer.echo(f"public key  {keys.public_key}")
    typer.echo(f"key id      {keys.key_id}")
    typer.echo(f"key file    {keys.key_path}  (private: back it up, never share it)")
    typer.echo(f"trusted     {len(trusted)} other key{'' if len(trusted) == 1 else 's'}"
               + (f", listed in {keys.trust_path}" if trusted else ""))


def _server_flag(ctx: typer.Context) -> str | None:
    """The server given with the global --server flag (not SCAT_SERVER or config.toml: the key is then this user's)."""
    from scat_cli.settings import state

    given = state(ctx)
    return given.server if given.server_given else None


def _server_key(server: str) -> SigningKey:
    """The public key of the server at `server` (`GET /key`)."""
    from scat_cli.remote.client import RemoteGames

    with RemoteGames(server) as remote:
        return remote.signing_key()


@key_app.command("trust", cls=ScatCommand)
def trust_command(
    ctx: typer.Context,
    key: Annotated[str | None, typer.Argument(metavar="KEY|FILE", show_default=False,
                                              help="A public key as `scat key show` prints it, or a file holding one "
                                                   "(its text, or the output of `scat key show --json`).")] = None,
    server: Annotated[str | None, typer.Option("--server", metavar="URL", show_default=False,
                                               help="Trust the key of the Scat server at URL, as it sends it "
                                                    "(instead of KEY|FILE).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Trust another installation's or a server's public key.

    `scat key trust --server URL` trusts the key the server at URL sends (`GET /key`): check
    its key id with the server's operator if the connection could be tampered with.

    Audits and imports then verify what it signed: its games and exports audit as "valid"
    instead of "unknown key", and moves may be made on a game whose head that key signed
    (e.g. a database moved here from another machine). Get the key from its owner (`scat key show` there),
    not from the database or export you want to check.

    Example: scat key trust 3q2+7wABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij0=
    """
    from scat_core.domain.errors import BadInput
    from scat_core.records.signing import KeyRing, key_id_of

    server = server.strip().rstrip("/") if server is not None else _server_flag(ctx) if key is None else None
    if (key is None) == (server is None):
        raise BadInput("give a KEY|FILE or --server URL (see `scat key trust --help`)")
    if server is not None:
        from scat_cli.settings import server_problem

        problem = server_problem(server)
        if problem:
            raise BadInput(f"--server: {problem}")
    public_key = _server_key(server).public_key if server is not None else _read_key(str(key))
    key_id = key_id_of(public_key)  # BadInput when it is not a key
    keys = KeyRing.default()
    if public_key.strip() == keys.public_key:
        raise BadInput(f"{key_id} is this installation's own key: it is trusted already")
    added = keys.trust(public_key)
    whose = f" of the server {server}" if server is not None else ""
    if as_json:
        typer.echo(json.dumps({"key_id": key_id, "public_key": public_key.strip(), "added": added,
                               "trust_file": str(keys.trust_path), "server": server}))
    elif added:
        typer.echo(f"trusted key {key_id}{whose} (listed in {keys.trust_path})")
    else:
        typer.echo(f"key {key_id}{whose} was trusted already")


def _read_key(argument: str) -> str:
    """The public key given, or read from the file named (its text, or `scat key show --json`)."""
    from scat_core.domain.errors import BadInput

    path = Path(argument)
    if not path.is_file():
        if _names_a_file(argument):
            from scat_core.domain.errors import NotFound

            raise NotFound(f"no file {argument}")
        return argument
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as error:
        raise BadInput(f"cannot read a key from {path}: {error}") from None
    try:
        document = json.loads(text)
    except ValueError:
        return text.split()[0] if text else text
    if isinstance(document, dict) and isinstance(document.get("public_key"), str):
        return str(document["public_key"])
    raise BadInput(f"{path} holds no public key (expected the output of `scat key show` or `--json`)")


def _names_a_file(argument: str) -> bool:
    """Whether `argument`, not a key (44 base64 characters), reads as a file's path."""
    import re

    if re.fullmatch(r"[A-Za-z0-9+/]{43}=", argument.strip()):
        return False
    return "." in argument or argument.startswith(("/", "~")) or "\\" in argument


@key_app.command("forget", cls=ScatCommand)
def forget_command(
    ctx: typer.Context,
    server: Annotated[str | None, typer.Option("--server", metavar="URL", show_default=False,
                                               help="The server URL whose key scat should forget.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Forget the key scat knows a server by.

    The next command there learns it anew.

    scat knows each server by the key it signs with, learnt the first time it talks to it
    (as SSH knows hosts). When a URL it knows answers with another key, every command
    there is refused (exit 3, both key ids named): another server is there now, or someone
    stands in between. Once the server's operator has told you the new key id (check it
    with him: `scat --server URL key show` prints what the server sends), forget the old
    key, and the next command trusts the new one. Your account there, recorded under the
    old key, is found again by `scat account show` if the new server has it.

    Example: scat key forget --server https://scat.example.org
    """
    from scat_cli.remote import known_servers
    from scat_core.domain.errors import BadInput

    url = server.strip().rstrip("/") if server is not None else _server_flag(ctx)
    if url is None:
        raise BadInput("give the server with --server URL (see `scat key forget --help`)")
    forgotten = known_servers.forget(url)
    if as_json:
        typer.echo(json.dumps({"server": url, "forgotten": forgotten}))
    elif forgotten is None:
        typer.echo(f"scat knew no key for {url}: nothing to forget")
    else:
        typer.echo(f"forgot the key {forgotten['key_id']} of {url}: the next command there learns its key anew")
