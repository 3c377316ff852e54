"""A player's signature over his move: the game, the position he saw and the command.

On a server whose seats are accounts, the client signs each human move with its user's
Ed25519 key (the key of his account) before sending it; the server checks it and stores it
beside the move's first event. The signed message is the domain-separation prefix
`scat-move-signature-v1` and a newline, then the canonical JSON (sorted keys, no spaces,
UTF-8) of {"game_id", "seq", "prev_hash", "move"}: `seq` and `prev_hash` are the head of the
game the player saw (its last seq and that event's hash), `move` the command as
{"type", "player", ...its fields}. As `prev_hash` chains every event before it, the
signature also vouches for the whole history up to the move; nobody without the key can
make one, so a move inserted into the database by anyone else fails the audit.
`cryptography` is imported only when a signature is made or checked.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.errors import BadInput
from scat_core.domain.signed_moves import move_fields
from scat_core.records.hashing import canonical_json

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PREFIX = b"scat-move-signature-v1\n"
def move_message(game_id: str, seq: int, prev_hash: str, move: dict[str, str]) -> bytes:
    """The exact bytes a player signs for `move` made at the head (`seq`, `prev_hash`) of `game_id`."""
    return PREFIX + canonical_json({"game_id": game_id, "seq": seq, "prev_hash": prev_hash, "move": move})


@dataclass(frozen=True)
class MoveSignature:
    """A move's signature as the client sends it: the head it was made at, the key and the signature."""

    seq: int
    prev_hash: str
    key_id: str
    signature: str  # base64 of the 64-byte Ed25519 signature

    def to_json(self) -> dict[str, Any]:
        """The JSON form (the wire and exports)."""
        return {"seq": self.seq, "prev_hash": self.prev_hash, "key_id": self.key_id, "signature": self.signature}

    @classmethod
    def from_json(cls, value: Any) -> MoveSignature:
        """The signature a JSON object holds (BadInput when it is malformed)."""
        try:
            made = cls(int(value["seq"]), str(value["prev_hash"]), str(value["key_id"]), str(value["signature"]))
        except (KeyError, TypeError, ValueError):
            raise BadInput("a move signature needs seq, prev_hash, key_id and signature") from None
        if isinstance(value["seq"], bool):
            raise BadInput("a move signature's seq is a number")
        return made


def sign_move(private: Ed25519PrivateKey, key_id: str, game_id: str, seq: int, prev_hash: str,
              command: cmd.Command) -> MoveSignature:
    """The signature of `command` made at the head (`seq`, `prev_hash`) of `game_id`."""
    move = move_fields(command)
    if move is None:
        raise BadInput(f"{type(command).__name__} is not a move a player signs")
    value = private.sign(move_message(game_id, seq, prev_hash, move))
    return MoveSignature(seq, prev_hash, key_id, base64.b64encode(value).decode("ascii"))


def verifies(public_key: str, game_id: str, signed: MoveSignature, move: dict[str, str]) -> bool:
    """Whether `signed` is `public_key`'s signature of `move` at the head it names (a key that is
    no Ed25519 public key, or a signature that is no base64, verifies nothing)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key, validate=True))
        key.verify(base64.b64decode(signed.signature, validate=True),
                   move_message(game_id, signed.seq, signed.prev_hash, move))
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True


def signed_of(event: ev.MoveSigned) -> MoveSignature:
    """The signature a MoveSigned event records."""
    return MoveSignature(event.at_seq, event.at_hash, event.key_id, event.signature)
