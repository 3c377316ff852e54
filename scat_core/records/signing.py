"""What this installation signs and seals, and what players sign: keys, head signatures, seals, move signatures.

The hash chain has no secret, so the head of every game (game id, last seq, last hash) is
signed with an Ed25519 key kept in a file OUTSIDE the database (`KeyRing`: created on first use,
mode 0600, refused when others may read it; other installations' public keys are trusted by
listing them in the `.trusted` file beside it); an append signs only on top of a head that
still verifies (`next_signature`). The same key derives the HMAC key that seals snapshots, so a
snapshot whose state was edited is not used. On a server, a player signs each move with his
account's key over the position he saw (`move_message`, `position_tag`), recorded in a
MoveSigned event, so a move inserted by anyone else fails the audit. The messages, each a
domain-separation prefix and a newline, then canonical JSON (sorted keys, no spaces, UTF-8):

    head:  scat-head-signature-v1 \n {"game_id", "hash", "seq"}
    move:  scat-move-signature-v1 \n {"game_id", "seq", "tag", "move"}   (tag: HMAC of the seen event's hash)
    seal:  scat-snapshot-seal-v1 \n JSON [game_id, seq, hash, state_version, rules_version] \n state

`cryptography` is imported only when a key signs or checks, never by `scat --help` or `scat show`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.commands import move_fields
from scat_core.domain.errors import BadInput, Hint, RuleViolation
from scat_core.domain.snapshot import SNAPSHOT_TAG
from scat_core.records.errors import ConcurrencyConflict, HistoryDamaged, KeyFileUnusable
from scat_core.records.stored_log import canonical_json

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(dict[K, V]):
    """A dict of about `kept` entries, added through `remember`, which forgets the oldest first.

    Lookups are the dict's own (`in`, `get`), at no cost over a plain dict. Lock-free: each step
    is one atomic dict operation (CPython), so threads may share a memo without a lock; two
    racing at the bound may forget one entry too many or keep one too many until the next
    `remember`, never fail. Callers that need several steps to be one take their own lock.
    """

    __slots__ = ("kept",)

    def __init__(self, kept: int) -> None:
        super().__init__()
        self.kept = kept

    def remember(self, key: K, value: V) -> None:
        """Add `key` (or move it) as the newest entry, forgetting the oldest while the memo is full."""
        self.pop(key, None)
        while len(self) >= self.kept:
            try:
                del self[next(iter(self))]
            except StopIteration:  # emptied by another thread meanwhile
                break
            except (KeyError, RuntimeError):  # another thread forgot it (or changed the dict) first
                continue
        self[key] = value

KEY_FILE_ENV = "SCAT_KEY_FILE"
KEY_FILE_NAME = "installation-key.pem"
SCHEME = "scat-head-ed25519-v1"
HEAD_PREFIX = b"scat-head-signature-v1\n"
#: What the key that seals snapshots (records/signing.py) is derived under: HMAC-SHA256(seed, label).
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
    # start-up time: platformdirs loads only when the default key file is asked for
    from platformdirs import user_config_dir

    return Path(user_config_dir("scat", appauthor=False)) / KEY_FILE_NAME


def head_message(game_id: str, seq: int, head_hash: str) -> bytes:
    """The exact bytes signed for a game's head: prefix + canonical JSON of id, seq, hash."""
    return HEAD_PREFIX + canonical_json({"game_id": game_id, "seq": seq, "hash": head_hash})


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
    # start-up time: `cryptography` loads only when a key signs or checks
    from cryptography.exceptions import InvalidSignature

    # start-up time: `cryptography` loads only when a key signs or checks
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
        """The secret key that seals snapshots (records/signing.py), derived from this installation's
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
    # start-up time: `cryptography` loads only when a key signs or checks
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

HEAD, ORIGIN = "head", "origin"


@dataclass(frozen=True)
class StoredSignature:
    """A signature row: the head (seq, hash) it claims to sign and the signature itself."""

    seq: int
    hash: str
    signature: HeadSignature


@dataclass(frozen=True)
class SignatureCheck:
    """The verdict on one game's signature: status (VALID, INVALID, ...), by whom, and why."""

    status: str
    key_id: str | None = None
    signer: str | None = None  # "this installation", "trusted" or None (unknown or unsigned)
    problem: str | None = None


def check_signature(keys: KeyRing, stored: StoredSignature | None, game_id: str, seq: int,
                    head_hash: str) -> SignatureCheck:
    """Judge a stored signature against the head the LOG has (seq, hash), not the row's own."""
    if stored is None:
        return SignatureCheck(UNSIGNED)
    signature = stored.signature
    status = keys.check(signature, game_id, seq, head_hash)
    signer = keys.who(signature.public_key) if status != INVALID else None
    problem = None
    if status == INVALID:
        if (stored.seq, stored.hash) != (seq, head_hash):
            problem = (f"the head signature is of event {stored.seq} but the log ends at event {seq}: "
                       "the history was rewritten or cut outside scat")
        else:
            problem = "the head signature does not verify: the history was rewritten or the signature altered"
    return SignatureCheck(status, signature.key_id, signer, problem)


def next_signature(keys: KeyRing, prior: StoredSignature | None, game_id: str, prior_seq: int, prior_hash: str,
                   seq: int, head_hash: str, raced: Callable[[], bool] = lambda: False,
                   ) -> tuple[StoredSignature | None, HeadSignature] | None:
    """`signature_for_append` given the prior head's stored signature (`prior`, None when unsigned):
    the rule every store applies. `raced()` says whether the log moved past (prior_seq, prior_hash)
    meanwhile, which makes a stale prior signature a lost race (ConcurrencyConflict), not damage."""
    stored = None
    if prior_seq > 0:
        stored = prior
        if stored is None:
            return None
        check = check_signature(keys, stored, game_id, prior_seq, prior_hash)
        if check.status == INVALID:
            stale = (stored.seq, stored.hash) != (prior_seq, prior_hash)
            if stale and raced():
                raise ConcurrencyConflict(f"game {game_id} changed meanwhile (it is no longer at event {prior_seq}): "
                                          "look again and retry")
            raise HistoryDamaged(game_id, check.problem or "its head signature does not verify")
        if check.status == UNKNOWN_KEY:
            raise RuleViolation(
                f"game {game_id} was last signed by key {check.key_id}, which this installation does not "
                "trust: if that is where the database came from, bring that key file along", game_id=game_id,
                hint=Hint.TRUST_KEY, after="; nothing was recorded",
            )
        assert check.status == VALID
    return stored, keys.sign_head(game_id, seq, head_hash)

# Sealed snapshots. A command uses a snapshot only when its seal verifies (one HMAC, no replay)
# and its event is still in the log with that hash; otherwise it folds the events, and
# `scat db check` names the game. A snapshot written before seals (mac NULL) or under another
# installation's key is not used: the next append writes a sealed one.
SEAL_PREFIX = b"scat-snapshot-seal-v1\n"


def snapshot_message(game_id: str, seq: int, head_hash: str, state_version: int, rules_version: str,
                     state: str) -> bytes:
    """The exact bytes sealed: the prefix, the head and the tag as one JSON line, then the state."""
    head = json.dumps([game_id, seq, head_hash, state_version, rules_version], separators=(",", ":"))
    return SEAL_PREFIX + head.encode() + b"\n" + state.encode()


def seal(key: bytes, game_id: str, seq: int, head_hash: str, state_version: int, rules_version: str,
         state: str) -> str:
    """The seal (hex HMAC-SHA256 under `key`) of a snapshot of `game_id` at event `seq` of hash `head_hash`."""
    message = snapshot_message(game_id, seq, head_hash, state_version, rules_version, state)
    return hmac.digest(key, message, hashlib.sha256).hex()


def is_sealed(key: bytes | None, game_id: str, seq: int, head_hash: str, state_version: int, rules_version: str,
              state: str, mac: str | None) -> bool:
    """Whether `mac` is this key's seal of that snapshot (False without a key or a mac)."""
    if key is None or not mac:
        return False
    expected = seal(key, game_id, seq, head_hash, state_version, rules_version, state)
    return hmac.compare_digest(expected, str(mac))


def sealed_snapshot(keys: KeyRing, game_id: str, seq: int, head_hash: str, state: str) -> dict[str, Any]:
    """The snapshot row's values (state_version, rules_version, state, mac) of `state` at event `seq`
    of hash `head_hash`, tagged with this code's rules and sealed with this installation's key."""
    state_version, rules_version = SNAPSHOT_TAG
    key = keys.snapshot_key(create=True)
    assert key is not None  # created if need be (as a head signature's key)
    return {"state_version": state_version, "rules_version": rules_version, "state": state,
            "mac": seal(key, game_id, seq, head_hash, state_version, rules_version, state)}

# A player's signature over his move. The position tag stands for the hash of the last event he
# saw: that hash cannot be shown while the game runs (an event with a hidden card would betray
# it to anyone trying the 52), but the tag, keyed by the game's secret seed and salt, betrays
# nothing until the seed is revealed at GameWon; then anyone recomputes it from the log, so the
# signature binds the whole history before the move.
MOVE_PREFIX = b"scat-move-signature-v1\n"
TAG_PREFIX = b"scat-position-tag-v1\n"
def position_tag(seed: str, salt: str, event_hash: str) -> str:
    """The tag of the position whose last event has `event_hash`, in a game with this seed and salt."""
    key = hashlib.sha256(TAG_PREFIX + f"{seed}:{salt}".encode()).digest()
    return hmac.new(key, event_hash.encode("ascii"), hashlib.sha256).hexdigest()


def move_message(game_id: str, seq: int, tag: str, move: dict[str, str]) -> bytes:
    """The exact bytes a player signs for `move` made at the position (`seq`, `tag`) of `game_id`."""
    return MOVE_PREFIX + canonical_json({"game_id": game_id, "seq": seq, "tag": tag, "move": move})


@dataclass(frozen=True)
class MoveSignature:
    """A move's signature as the client sends it: the position it was made at, the key and the signature."""

    seq: int
    tag: str
    key_id: str
    signature: str  # base64 of the 64-byte Ed25519 signature

    def to_json(self) -> dict[str, Any]:
        """The JSON form (the wire and exports)."""
        return {"seq": self.seq, "tag": self.tag, "key_id": self.key_id, "signature": self.signature}

    @classmethod
    def from_json(cls, value: Any) -> MoveSignature:
        """The signature a JSON object holds (BadInput when it is malformed)."""
        try:
            made = cls(int(value["seq"]), str(value["tag"]), str(value["key_id"]), str(value["signature"]))
        except (KeyError, TypeError, ValueError):
            raise BadInput("a move signature needs seq, tag, key_id and signature") from None
        if isinstance(value["seq"], bool):
            raise BadInput("a move signature's seq is a number")
        return made


def sign_move(private: Ed25519PrivateKey, key_id: str, game_id: str, seq: int, tag: str,
              command: cmd.Command) -> MoveSignature:
    """The signature of `command` made at the position (`seq`, `tag`) of `game_id`."""
    move = move_fields(command)
    if move is None:
        raise BadInput(f"{type(command).__name__} is not a move a player signs")
    value = private.sign(move_message(game_id, seq, tag, move))
    return MoveSignature(seq, tag, key_id, base64.b64encode(value).decode("ascii"))


def verifies(public_key: str, game_id: str, signed: MoveSignature, move: dict[str, str]) -> bool:
    """Whether `signed` is `public_key`'s signature of `move` at the head it names (a key that is
    no Ed25519 public key, or a signature that is no base64, verifies nothing)."""
    # start-up time: `cryptography` loads only when a key signs or checks
    from cryptography.exceptions import InvalidSignature

    # start-up time: `cryptography` loads only when a key signs or checks
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key, validate=True))
        key.verify(base64.b64decode(signed.signature, validate=True),
                   move_message(game_id, signed.seq, signed.tag, move))
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True


def signed_of(event: ev.MoveSigned) -> MoveSignature:
    """The signature a MoveSigned event records."""
    return MoveSignature(event.at_seq, event.at_tag, event.key_id, event.signature)
