"""The verdict of an audit on one game, a plain value (importing it loads none of the rules)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class AuditReport:
    """The verdict on one game: ok, how many events, the first bad seq and every problem."""

    game_id: str
    ok: bool
    events: int
    first_bad_seq: int | None
    problems: list[str] = field(default_factory=list)
    seed_verified: bool = False  # every deal the seed made was recomputed from the revealed seed
    first_deck_stacked: bool = False  # hand 1 was dealt from a deck given at creation, not the seed
    seed_chosen: bool | None = False  # the creator chose the seed (--seed); None: not recorded (v2)
    moves_signed: int = 0  # the moves whose players signed them (a server whose seats are accounts)
    moves_verified: int = 0  # of those, the signatures that verify (each under the key it names)
    # Filled by the service (signing is not the domain's): the head's signature, "valid",
    # "invalid", "missing", "unknown key" or "unsigned" (None: not checked), its key id and signer.
    signature: str | None = None
    signature_key_id: str | None = None
    signature_signer: str | None = None  # "this installation" or "trusted" when known
    origin_signature: str | None = None  # an imported game: the verdict on the signature its export carried
    origin_key_id: str | None = None
