"""Head signatures as every store keeps them: the stored signature, its verdict, and the rule an append signs by.

Every append signs the game's new head with this installation's key, but only on top of a
head that was signed by a key known here and still verifies (see `next_signature`); the SQL
store's rows and hook are in `scat_core/store/sql/signed_heads.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scat_core.domain.errors import Hint, RuleViolation
from scat_core.records.errors import ConcurrencyConflict, HistoryDamaged
from scat_core.records.keys import INVALID, UNKNOWN_KEY, UNSIGNED, VALID, HeadSignature, KeyRing

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
