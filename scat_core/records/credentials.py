"""Who a request acts as: a per-game player token (a local protected game) or a proven server account.

A token is issued once and stored only as its SHA-256 ("sha256$HASH_HEX"): it is 256 random bits
made here, never a person's password, so a slow salted hash would add nothing but its cost (about
40 ms of CPU and 16 MiB a check). Tokens issued before are stored as salted scrypt hashes
("scrypt$N$r$p$SALT_HEX$HASH_HEX") and still verify: the right token costs that scrypt once a
process, each wrong one every time. An account is proven by a signed request, whose nonce is
remembered until it expires.
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
    """The scrypt of `token` that a token issued before SHA-256 hashes is stored as (`scrypt_stored`)."""
    return hashlib.scrypt(
        token.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=_DKLEN, maxmem=64 * 1024 * 1024
    )


#: Stored scrypt hash -> SHA-256 of the token that matched it, in this process only: a long-running
#: server checks each player's token of an old game with scrypt once, then in microseconds. Bounded.
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


#: The prefix of a token's hash as stored since tokens are hashed with SHA-256.
SHA256_SCHEME = "sha256$"


def hash_token(token: str) -> str:
    """The storable hash of `token` (its SHA-256: see the module's docstring)."""
    return SHA256_SCHEME + hashlib.sha256(token.encode("utf-8")).hexdigest()


def scrypt_stored(token: str) -> str:
    """`token`'s hash as tokens were stored before SHA-256 (salted scrypt); this process then knows
    it matches. Nothing issues these any more: games made before keep them (and tests make them)."""
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
    if stored.startswith(SHA256_SCHEME):
        try:
            return hmac.compare_digest(quick, bytes.fromhex(stored[len(SHA256_SCHEME):]))
        except ValueError:
            return False
    known = VERIFIED_TOKENS.get(stored)
    if known is not None and hmac.compare_digest(known, quick):
        return True
    if _matches_scrypt(token, stored):
        _remember(stored, quick)
        return True
    return False


def _matches_scrypt(token: str, stored: str) -> bool:
    """Whether `token` matches a stored hash of before SHA-256 (a scrypt: the costly check that a
    server counts per address and keeps out of every command's turn to write)."""
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = bytes.fromhex(digest_hex)
        digest = scrypt_hash(token, bytes.fromhex(salt_hex), int(n), int(r), int(p))
    except (ValueError, TypeError, OverflowError, MemoryError):  # not a hash scat stored: no match
        return False
    return hmac.compare_digest(digest, expected)


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
