"""Signing keys for game heads: an Ed25519 key kept in a file OUTSIDE the database.

The hash chain alone has no secret: whoever can write the database can rewrite a history
and recompute every hash. So the head of every game (its game id, last seq and last hash)
is signed with a private key the database never holds. Use::

    keys = KeyRing.default()                    # $SCAT_KEY_FILE, else the user's config dir
    keys = KeyRing(Path("/srv/scat/server.pem"))  # a server's own key
    signature = keys.sign_head(game_id, seq, hash)          # a HeadSignature
    keys.check(signature, game_id, seq, hash)               # VALID / INVALID / UNKNOWN_KEY

The key file is created on first use (mode 0600, in a 0700 folder); a key file readable or
writable by others is refused. Its public half is shareable: `public_key` (base64 of the 32
raw bytes) and `key_id` (the first 16 hex digits of its SHA-256). Public keys of other
installations are trusted by listing them, one a line, in the trust file beside the key
(`installation-key.trusted` for `installation-key.pem`): `KeyRing.trust`.

The signed message is the domain-separation prefix `scat-head-signature-v1` and a newline,
then the canonical JSON (sorted keys, no spaces, UTF-8) of {"game_id", "hash", "seq"}.
`cryptography` is imported only when a key is used, never by `scat --help` or `scat show`.
The same private key also keys the seals of snapshots (`snapshot_key`, records/seals.py): an
HMAC key derived from its seed, read from the PEM without `cryptography`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scat_core.domain.errors import BadInput, Hint
from scat_core.records.errors import KeyFileUnusable
from scat_core.records.hashing import canonical_json
from scat_core.records.memo import BoundedMemo

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

KEY_FILE_ENV = "SCAT_KEY_FILE"
KEY_FILE_NAME = "installation-key.pem"
SCHEME = "scat-head-ed25519-v1"
PREFIX = b"scat-head-signature-v1\n"
#: What the key that seals snapshots (records/seals.py) is derived under: HMAC-SHA256(seed, label).
SNAPSHOT_KEY_LABEL = b"scat-snapshot-seal-key-v1"
VALID, INVALID, UNKNOWN_KEY, UNSIGNED = "valid", "invalid", "unknown key", "unsigned"
#: No signature, in a game whose first event says every head of it is signed (GameCreated.signed): damage.
MISSING = "missing"
#: How many verified heads a KeyRing remembers (see KeyRing._verified).
VERIFIED_KEPT = 4096
_BASE64_KEY = re.compile(r"[A-Za-z0-9+/]{43}=")
#: The DER of an Ed25519 PKCS#8 private key (RFC 8410) is this prefix and the 32-byte seed: the
#: key file is standard PEM (openssl reads it) without importing cryptography's slow serialization.
_PKCS8_ED25519 = bytes.fromhex("302e020100300506032b657004220420")
_PEM_BEGIN, _PEM_END = "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----"


def default_key_path() -> Path:
    """$SCAT_KEY_FILE, else `installation-key.pem` in the user's config dir (platformdirs)."""
    chosen = os.environ.get(KEY_FILE_ENV)
    if chosen:
        return Path(chosen).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("scat", appauthor=False)) / KEY_FILE_NAME


def head_message(game_id: str, seq: int, head_hash: str) -> bytes:
    """The exact bytes signed for a game's head: prefix + canonical JSON of id, seq, hash."""
    return PREFIX + canonical_json({"game_id": game_id, "seq": seq, "hash": head_hash})


def key_id_of(public_key: str) -> str:
    """The short fingerprint of a base64 public key: 16 hex digits of SHA-256 of its raw bytes."""
    return hashlib.sha256(_raw_public(public_key)).hexdigest()[:16]


def _raw_public(public_key: str) -> bytes:
    """The 32 raw bytes of a base64 Ed25519 public key; BadInput when it is not one."""
    if not isinstance(public_key, str) or not _BASE64_KEY.fullmatch(public_key.strip()):
        raise BadInput(f"{str(public_key)[:60]!r} is not a scat public key (44 base64 characters",
                       hint=Hint.SHOW_KEY, after=")")
    return base64.b64decode(public_key.strip())


@dataclass(frozen=True)
class HeadSignature:
    """A signature of one game's head, with the public key that made it (base64 fields)."""

    key_id: str
    public_key: str
    signature: str
    scheme: str = SCHEME

    def to_json(self) -> dict[str, str]:
        """The signature as exported: {"scheme", "key_id", "public_key", "signature"}."""
        return {"scheme": self.scheme, "key_id": self.key_id, "public_key": self.public_key,
                "signature": self.signature}

    @classmethod
    def from_json(cls, value: Any) -> HeadSignature:
        """A signature from an export; BadInput when it is not one this scat can read."""
        fields = ("scheme", "key_id", "public_key", "signature")
        if not isinstance(value, dict) or not all(isinstance(value.get(name), str) for name in fields):
            raise BadInput("its head_signature is not an object of strings scheme, key_id, public_key, signature")
        if value["scheme"] != SCHEME:
            raise BadInput(f"its head_signature has scheme {value['scheme']!r}; this scat reads {SCHEME!r}")
        return cls(key_id=value["key_id"], public_key=value["public_key"], signature=value["signature"])


def verify_head(signature: HeadSignature, game_id: str, seq: int, head_hash: str) -> bool:
    """Whether `signature` is a valid Ed25519 signature of this head under its own public key."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        public = Ed25519PublicKey.from_public_bytes(_raw_public(signature.public_key))
        raw = base64.b64decode(signature.signature, validate=True)
        public.verify(raw, head_message(game_id, seq, head_hash))
    except (BadInput, InvalidSignature, ValueError, binascii.Error):
        return False
    return True


class KeyRing:
    """This installation's signing key (loaded or created on first use) and the trusted keys."""

    def __init__(self, key_path: Path, trust_path: Path | None = None) -> None:
        self.key_path = key_path
        self.trust_path = trust_path or key_path.with_suffix(".trusted")
        self._private: Ed25519PrivateKey | None = None
        self._public = ""
        #: Heads whose signature verified (or was made) here: (public key, signature, game, seq, hash).
        #: Verifying is a pure function of these, so a command need not verify again the head
        #: the previous one signed; bounded, oldest forgotten first.
        self._verified: BoundedMemo[tuple[str, str, str, int, str], None] = BoundedMemo(VERIFIED_KEPT)
        self._snapshot_key: bytes | None = None

    @classmethod
    def default(cls) -> KeyRing:
        """The key ring at $SCAT_KEY_FILE or the user's config dir (nothing read yet)."""
        return cls(default_key_path())

    # ---- this installation's key ---------------------------------------------------------

    @property
    def public_key(self) -> str:
        """This installation's public key, base64 (loads or creates the key file)."""
        self._load()
        return self._public

    @property
    def key_id(self) -> str:
        """This installation's key id (16 hex digits)."""
        return key_id_of(self.public_key)

    def sign_head(self, game_id: str, seq: int, head_hash: str) -> HeadSignature:
        """Sign a game's head with this installation's key."""
        private = self._load()
        raw = private.sign(head_message(game_id, seq, head_hash))
        signature = HeadSignature(self.key_id, self._public, base64.b64encode(raw).decode("ascii"))
        self._remember_verified(signature, game_id, seq, head_hash)
        return signature

    def snapshot_key(self, create: bool = False) -> bytes | None:
        """The secret key that seals snapshots (records/seals.py), derived from this installation's
        private key; None when there is no usable key file and `create` is not given (a read
        creates nothing: it then trusts no snapshot). With `create`, as `sign_head` loads the key.
        """
        if self._snapshot_key is None:
            if self._private is not None or create:
                seed = self._load().private_bytes_raw()
            else:
                existing = _existing_seed(self.key_path)
                if existing is None:
                    return None
                seed = existing
            self._snapshot_key = hmac.digest(seed, SNAPSHOT_KEY_LABEL, hashlib.sha256)
        return self._snapshot_key

    def _remember_verified(self, signature: HeadSignature, game_id: str, seq: int, head_hash: str) -> None:
        self._verified.remember((signature.public_key, signature.signature, game_id, seq, head_hash), None)

    def _load(self) -> Ed25519PrivateKey:
        if self._private is None:
            self._private = load_or_create_key(self.key_path)
            self._public = _public_of(self._private)
        return self._private

    # ---- judging a signature -------------------------------------------------------------

    def who(self, public_key: str) -> str | None:
        """"this installation", "trusted" or None (unknown) for a base64 public key.

        Judging needs no usable key file: when this installation's key cannot be loaded or
        created (a read-only home), its signatures are simply not recognised here.
        """
        try:
            own = self.public_key
        except BadInput:
            own = None
        if public_key == own:
            return "this installation"
        return "trusted" if public_key in self.trusted() else None

    def check(self, signature: HeadSignature | None, game_id: str, seq: int, head_hash: str) -> str:
        """VALID, INVALID, UNKNOWN_KEY (verifies, but under a key not trusted here) or UNSIGNED."""
        if signature is None:
            return UNSIGNED
        if (signature.public_key, signature.signature, game_id, seq, head_hash) not in self._verified:
            if not verify_head(signature, game_id, seq, head_hash):
                return INVALID
            self._remember_verified(signature, game_id, seq, head_hash)
        return VALID if self.who(signature.public_key) else UNKNOWN_KEY

    # ---- trusted keys --------------------------------------------------------------------

    def trusted(self) -> set[str]:
        """The public keys listed in the trust file (none when it does not exist)."""
        try:
            text = self.trust_path.read_text(encoding="utf-8")
        except (FileNotFoundError, NotADirectoryError):
            return set()
        except OSError as error:
            raise BadInput(f"cannot read the trusted keys in {self.trust_path}: {error.strerror}") from None
        keys = (line.split()[0] for line in text.splitlines() if line.strip() and not line.startswith("#"))
        return {key for key in keys if _BASE64_KEY.fullmatch(key)}

    def trust(self, public_key: str) -> bool:
        """Add a base64 public key to the trust file; False when it was trusted already."""
        key = public_key.strip()
        key_id = key_id_of(key)  # BadInput unless it is a public key
        if key == self.public_key or key in self.trusted():
            return False
        try:
            self.trust_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with self.trust_path.open("a", encoding="utf-8") as file:
                file.write(f"{key} {key_id}\n")
        except OSError as error:
            raise BadInput(f"cannot write the trusted keys in {self.trust_path}: {error.strerror}") from None
        return True


def _public_of(private: Ed25519PrivateKey) -> str:
    return base64.b64encode(private.public_key().public_bytes_raw()).decode("ascii")


def load_or_create_key(path: Path) -> Ed25519PrivateKey:
    """The Ed25519 private key in the PEM file `path`, created (mode 0600) if there is none.

    BadInput, one line, when the file or its folder cannot be used, or when the file is
    readable or writable by others.
    """
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        if not path.exists():
            _create(path, Ed25519PrivateKey.generate())
        if os.name == "posix" and path.stat().st_mode & 0o077:
            mode = path.stat().st_mode & 0o777
            raise BadInput(f"the signing key {path} is open to others (mode {mode:o}): run `chmod 600 {path}`")
        return Ed25519PrivateKey.from_private_bytes(_seed_of_pem(path.read_text(encoding="ascii")))
    except BadInput:
        raise
    except OSError as error:
        raise KeyFileUnusable(f"cannot use the signing key file {path}: {error.strerror or error}") from None
    except (ValueError, UnicodeDecodeError, binascii.Error):
        raise KeyFileUnusable(f"the signing key file {path} is not a PEM Ed25519 private key") from None


def _existing_seed(path: Path) -> bytes | None:
    """The seed of the key file `path` if it exists and is private (0600), read without `cryptography`; else None."""
    try:
        if os.name == "posix" and path.stat().st_mode & 0o077:
            return None
        return _seed_of_pem(path.read_text(encoding="ascii"))
    except (OSError, ValueError, UnicodeDecodeError, binascii.Error):
        return None


def _seed_of_pem(text: str) -> bytes:
    """The 32-byte seed of an Ed25519 PKCS#8 PEM private key; ValueError when it is not one."""
    lines = [line.strip() for line in text.strip().splitlines()]
    if len(lines) < 3 or lines[0] != _PEM_BEGIN or lines[-1] != _PEM_END:
        raise ValueError("not a PEM private key")
    der = base64.b64decode("".join(lines[1:-1]), validate=True)
    if len(der) != len(_PKCS8_ED25519) + 32 or not der.startswith(_PKCS8_ED25519):
        raise ValueError("not an Ed25519 PKCS#8 key")
    return der[len(_PKCS8_ED25519):]


def _pem_of(key: Ed25519PrivateKey) -> bytes:
    """The PKCS#8 PEM of an Ed25519 private key (as openssl and `cryptography` write it)."""
    der = _PKCS8_ED25519 + key.private_bytes_raw()
    return f"{_PEM_BEGIN}\n{base64.b64encode(der).decode('ascii')}\n{_PEM_END}\n".encode("ascii")


def _create(path: Path, key: Ed25519PrivateKey) -> None:
    """Write a new key file atomically, 0600 from the start; a racing creator's file wins."""
    pem = _pem_of(key)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")  # threads race too
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)  # atomic; fails if another process created the key first
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
