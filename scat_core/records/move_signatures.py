"""A player's signature over his move: the game, the position he saw and the command.

On a server whose seats are accounts, the client signs each human move with its user's
Ed25519 key (the key of his account) before sending it; the server checks it and records it
in a MoveSigned event just before the move's events. The signed message is the
domain-separation prefix `scat-move-signature-v1` and a newline, then the canonical JSON
(sorted keys, no spaces, UTF-8) of {"game_id", "seq", "tag", "move"}: `seq` is the last
event of the game the player saw, `tag` that event's position tag, `move` the command as
{"type", "player", ...its fields}.

The position tag is HMAC-SHA256 of the event's hash under a key derived from the game's
secret seed and salt (`position_tag`). The hash itself cannot be shown while the game runs:
a hash of an event with a hidden card would betray the card to anyone who tries the 52. The
tag betrays nothing until the seed is revealed at the game's end (GameWon); from then on
anyone can recompute it from the log, so the signature binds the whole history before the
move (the hash chains every event before it). Nobody without the player's key can sign, so a
move inserted into the database by anyone else fails the audit.
`cryptography` is imported only when a signature is made or checked.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.commands import move_fields
from scat_core.domain.errors import BadInput
from scat_core.records.hashing import canonical_json

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

PREFIX = b"scat-move-signature-v1\n"
TAG_PREFIX = b"scat-position-tag-v1\n"
def position_tag(seed: str, salt: str, event_hash: str) -> str:
    """The tag of the position whose last event has `event_hash`, in a game with this seed and salt."""
    key = hashlib.sha256(TAG_PREFIX + f"{seed}:{salt}".encode()).digest()
    return hmac.new(key, event_hash.encode("ascii"), hashlib.sha256).hexdigest()


def move_message(game_id: str, seq: int, tag: str, move: dict[str, str]) -> bytes:
    """The exact bytes a player signs for `move` made at the position (`seq`, `tag`) of `game_id`."""
    return PREFIX + canonical_json({"game_id": game_id, "seq": seq, "tag": tag, "move": move})


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
    from cryptography.exceptions import InvalidSignature
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
