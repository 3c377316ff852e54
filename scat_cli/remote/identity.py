"""Who this user is on servers: his installation key signs requests, and the accounts it has.

The key is the installation key (`scat key show`; $SCAT_KEY_FILE, else the user's config
folder). Beside it, `installation-key.accounts` (JSON, mode 0600) lists the servers where
that key is an account, by the server's key id (known_servers.py: a server is its key, so
every URL of it reaches the account): server key id -> {"name", "key_id"}, written by `scat
account register` and `scat account show` (an older scat's entries, keyed by URL, are read
too, and moved to the server's key when next written). The `--server` client signs every
request to a server listed there for the current key, for that server's key; to any other
server it sends unsigned requests (game tokens work there as before). Nothing here is secret
but the key file, which only `KeyRing` reads.
"""

# Imports inside functions: start-up time; the client loads only what a request needs.
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from scat_cli.remote.transport import Signer
    from scat_core.domain.commands import Command
    from scat_core.records.signing import MoveSignature

SUFFIX = ".accounts"


def key_path() -> Path:
    """This user's installation key file (it may not exist yet)."""
    from scat_core.records.signing import default_key_path

    return default_key_path()


def accounts_path() -> Path:
    """The file listing the servers where this user's key is an account."""
    return key_path().with_suffix(SUFFIX)


def known_accounts() -> dict[str, dict[str, str]]:
    """Server key id (or, an older scat's, URL) -> {"name", "key_id"}: the accounts recorded here
    (none when the file is missing or unreadable)."""
    try:
        document: Any = json.loads(accounts_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict):
        return {}
    return {str(url): entry for url, entry in document.items()
            if isinstance(entry, dict) and isinstance(entry.get("name"), str) and isinstance(entry.get("key_id"), str)}


def account_at(url: str) -> dict[str, str] | None:
    """The account recorded for the server known at `url` ({"name", "key_id"}), without asking it."""
    from scat_cli.remote import known_servers

    accounts, server = known_accounts(), known_servers.key_of(url)
    return (accounts.get(server) if server else None) or accounts.get(known_servers.normal(url))


def remember(server: str, name: str, key_id: str, url: str | None = None) -> None:
    """Record that `key_id` is the account `name` on the server whose key id is `server` (written
    atomically, mode 0600); an older scat's entry for `url` goes."""
    from scat_core.domain.errors import BadInput

    accounts = known_accounts()
    accounts[server] = {"name": name, "key_id": key_id}
    if url is not None:
        from scat_cli.remote.known_servers import normal

        accounts.pop(normal(url), None)
    path = accounts_path()
    from scat_cli.private_files import write_private_json

    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_private_json(path, accounts)
    except OSError as error:
        raise BadInput(f"cannot record the account in {path}: {error.strerror or error}") from None


class Identity:
    """This user's key, loaded on first use: its public half, key id, and a request signer."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or key_path()
        self._private: Ed25519PrivateKey | None = None

    @property
    def private(self) -> Ed25519PrivateKey:
        """The private key (loaded, or created on first use, mode 0600)."""
        if self._private is None:
            from scat_core.records.signing import load_or_create_key

            self._private = load_or_create_key(self.path)
        return self._private

    @property
    def public_key(self) -> str:
        """The public key, base64 of its 32 raw bytes."""
        import base64

        return base64.b64encode(self.private.public_key().public_bytes_raw()).decode("ascii")

    @property
    def key_id(self) -> str:
        """The key id (16 hex digits), as the server names the key."""
        from scat_core.records.signing import key_id_of  # not scat_core.domain.accounts: its models cost at import

        return key_id_of(self.public_key)

    def sign_move(self, game_id: str, seq: int, tag: str, command: Command) -> MoveSignature:
        """This user's signature of his move `command` at the position (`seq`, `tag`) of `game_id`."""
        from scat_core.records.signing import sign_move

        return sign_move(self.private, self.key_id, game_id, seq, tag, command)

    def signer(self, server: str) -> Signer:
        """What signs this user's requests for the server whose key id is `server` (httpsig.py)."""
        from scat_cli.wire import httpsig

        def sign(method: str, target: str, body: bytes) -> dict[str, str]:
            return httpsig.sign(self.private, self.key_id, method, target, body, int(time.time()), server)

        return sign


def identity_for(server: str, url: str) -> Identity | None:
    """This user's identity when his current key is an account on the server whose key id is
    `server` (reached at `url`: an older scat recorded accounts by URL), else None."""
    from scat_cli.remote.known_servers import normal

    accounts = known_accounts()
    entry = accounts.get(server) or accounts.get(normal(url))
    if entry is None:
        return None
    from scat_core.domain.errors import ScatError

    identity = Identity()
    try:
        if identity.key_id != entry["key_id"]:  # the key was replaced since: that account is not this key's
            return None
    except ScatError:  # an unusable key file: unsigned, as before accounts
        return None
    return identity
