"""`scat key ...`: this installation's signing key, and the keys of others it trusts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from scat_cli.typer_glue import PlainGroup

key_app = typer.Typer(
    help="The key that signs each game's head.\n\nIt is kept outside the database, in a file of its own.\n\n"
    "Example: scat key show",
    no_args_is_help=True,
    cls=PlainGroup,  # a usage error told in one line
)

JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]


@key_app.command("show")
def show_command(as_json: JsonOption = False) -> None:
    """Print this installation's public key and key id.

    The key is created on first use. The private key stays in its file (mode 0600; $SCAT_KEY_FILE, else your config
    folder): back it up with your database, and copy it along when you move the database
    to another machine. Give the public key to whoever should verify your exports: they run
    `scat key trust PUBLIC_KEY`.

    Example: scat key show
    """
    from scat_core.records.keys import KeyRing, key_id_of

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


@key_app.command("trust")
def trust_command(
    key: Annotated[str, typer.Argument(metavar="KEY|FILE", show_default=False,
                                       help="A public key as `scat key show` prints it, or a file holding one "
                                            "(its text, or the output of `scat key show --json`).")],
    as_json: JsonOption = False,
) -> None:
    """Trust another installation's or a server's public key.

    Audits and imports then verify what it signed: its games and exports audit as "valid"
    instead of "unknown key", and moves may be made on a game whose head that key signed
    (e.g. a database moved here from another machine). Get the key from its owner (`scat key show` there),
    not from the database or export you want to check.

    Example: scat key trust 3q2+7wABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij0=
    """
    from scat_core.domain.errors import BadInput
    from scat_core.records.keys import KeyRing, key_id_of

    public_key = _read_key(key)
    key_id = key_id_of(public_key)  # BadInput when it is not a key
    keys = KeyRing.default()
    if public_key.strip() == keys.public_key:
        raise BadInput(f"{key_id} is this installation's own key: it is trusted already")
    added = keys.trust(public_key)
    if as_json:
        typer.echo(json.dumps({"key_id": key_id, "public_key": public_key.strip(), "added": added,
                               "trust_file": str(keys.trust_path)}))
    elif added:
        typer.echo(f"trusted key {key_id} (listed in {keys.trust_path})")
    else:
        typer.echo(f"key {key_id} was trusted already")


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
