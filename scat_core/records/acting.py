"""Who a request acts as: a per-game token (a local protected game) or a proven server account."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


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
    (one commit for both, service/move_signing.py); None when it was spent already, on verifying.
    """

    name: str
    key_id: str
    public_key: str
    nonce: RequestNonce | None = None


#: What a use case is given to prove who acts: a player's token, an account, or nothing.
Credential: TypeAlias = "str | ActingAccount | None"
