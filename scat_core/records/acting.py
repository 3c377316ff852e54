"""Who a request acts as: a per-game token (a local protected game) or a proven server account."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True)
class ActingAccount:
    """A server account whose key signed the request: its name and its current key."""

    name: str
    key_id: str
    public_key: str


#: What a use case is given to prove who acts: a player's token, an account, or nothing.
Credential: TypeAlias = "str | ActingAccount | None"
