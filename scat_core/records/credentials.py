"""Who a request acts as: a per-game player token (a local protected game) or a proven server account.

A token is issued once and stored only as a salted scrypt hash ("scrypt$N$r$p$SALT_HEX$HASH_HEX");
an account is proven by a signed request, whose nonce is remembered until it expires.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import TypeAlias

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
_DKLEN = 32


def new_token() -> str:
    """A fresh random token: 256 bits as 64 lowercase hex digits (no card, e.g. KS, can be read in it)."""
    return secrets.token_hex(32)


def scrypt_hash(token: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        token.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=_DKLEN, maxmem=64 * 1024 * 1024
    )


#: Stored hash -> SHA-256 of the token that matched it, in this process only: a long-running
#: server checks each player's token with scrypt once, then in microseconds; a token it issued
#: itself (`hash_token`) not even once. Bounded.
VERIFIED_TOKENS: dict[str, bytes] = {}
_VERIFIED_MAX = 10_000


#: (game, player as named, casefolded) -> SHA-256 of the token proven for him in this process
#: (`prove_token_first`'s memo: a command then reads nothing before its own check). Bounded.
_PROVEN_FOR: dict[tuple[str, str], bytes] = {}


def proven_for(game_id: str, player: str, token: str) -> bool:
    """Whether this process proved `token` for `player` of `game_id` already (a hint: the command's
    own check, in its transaction, still holds it against the stored hash)."""
    known = _PROVEN_FOR.get((game_id, player.casefold()))
    return known is not None and hmac.compare_digest(known, hashlib.sha256(token.encode("utf-8")).digest())


def remember_proven(game_id: str, player: str, token: str) -> None:
    """Note that `token` was proven for `player` of `game_id` (or issued for him here)."""
    if len(_PROVEN_FOR) >= _VERIFIED_MAX:
        _PROVEN_FOR.clear()
        _PROVEN_IN.clear()
    quick = hashlib.sha256(token.encode("utf-8")).digest()
    _PROVEN_FOR[(game_id, player.casefold())] = quick
    _PROVEN_IN.add((game_id, quick))


#: (game, SHA-256 of a token proven for one of its players here): see `proven_in`.
_PROVEN_IN: set[tuple[str, bytes]] = set()


def proven_in(game_id: str, token: str) -> bool:
    """Whether this process proved `token` for some player of `game_id` (a request that carries it
    most likely costs no scrypt: a server need not count it among its address's token checks)."""
    return (game_id, hashlib.sha256(token.encode("utf-8")).digest()) in _PROVEN_IN


def hash_token(token: str) -> str:
    """The storable salted scrypt hash of `token`; this process then knows it matches (no scrypt
    at the token's first use: a new game's first move through a server)."""
    salt = secrets.token_bytes(16)
    digest = scrypt_hash(token, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    stored = f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"
    _remember(stored, hashlib.sha256(token.encode("utf-8")).digest())
    return stored


def _remember(stored: str, quick: bytes) -> None:
    if len(VERIFIED_TOKENS) >= _VERIFIED_MAX:
        VERIFIED_TOKENS.clear()
    VERIFIED_TOKENS[stored] = quick


def verify_token(token: str, stored: str) -> bool:
    """Whether `token` matches the stored hash (constant-time comparison)."""
    quick = hashlib.sha256(token.encode("utf-8")).digest()
    known = VERIFIED_TOKENS.get(stored)
    if known is not None and hmac.compare_digest(known, quick):
        return True
    if _matches(token, stored):
        _remember(stored, quick)
        return True
    return False


def _matches(token: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        digest = scrypt_hash(token, bytes.fromhex(salt_hex), int(n), int(r), int(p))
    except (ValueError, MemoryError):
        return False
    return hmac.compare_digest(digest, bytes.fromhex(digest_hex))

@dataclass(frozen=True, slots=True)
class RequestNonce:
    """The nonce of a signed request, to be remembered until it expires so that no replay is served."""

    key_id: str
    nonce: str
    expires_at: int  # seconds since the epoch
    now: int  # the server's clock when the request was verified (older nonces may be pruned)


@dataclass(frozen=True)
class ActingAccount:
    """A server account whose key signed the request: its name and its current key.

    `nonce`: the request's nonce when the command it asks for spends it in its own unit of work
    (one commit for both, service/playing.py); None when it was spent already, on verifying.
    """

    name: str
    key_id: str
    public_key: str
    nonce: RequestNonce | None = None


#: What a use case is given to prove who acts: a player's token, an account, or nothing.
Credential: TypeAlias = "str | ActingAccount | None"
