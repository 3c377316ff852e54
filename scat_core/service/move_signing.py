"""The check of a player's signature on his move, the MoveSigned event that records it, and the
audit's check that each signing key was its player's account's key at the time."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.audit_report import AuditReport
from scat_core.domain.errors import AuthFailed
from scat_core.domain.signed_moves import move_fields, signer_of
from scat_core.domain.state import GameState
from scat_core.records.acting import ActingAccount, Credential
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.move_signatures import MoveSignature, position_tag, verifies
from scat_core.records.stored import GameSecret

if TYPE_CHECKING:
    from scat_core.domain.accounts import Account


def tag_of(secret: GameSecret | None, head: str) -> str:
    """The position tag of the game's last event (hash `head`); "" without its seed (no move is made then)."""
    return position_tag(secret.seed, secret.salt, head) if secret is not None else ""


#: The position tag of the game's event `seq` when only talk (messages) came after it, else None:
#: a move signed there still stands (a message never fails a move), a message at any `seq`.
TagAt = Callable[[int, bool], str | None]


def signed_move(state: GameState, tag: str, command: cmd.Command, token: Credential,
                signature: MoveSignature | None, tag_at: TagAt | None = None) -> ev.MoveSigned | None:
    """The MoveSigned that must precede `command`'s events in `state` (the position tag of its
    last event: `tag`, records/move_signatures.py); None when
    the command needs no signature. AuthFailed when it lacks one or it does not verify under the
    acting account's key; ConcurrencyConflict when it was made at another position than the game's
    (but for one followed by talk only, or any earlier position for a message: `tag_at`)."""
    signer = signer_of(state, command)
    move = move_fields(command)
    if signer is None or move is None:
        return None
    if not isinstance(token, ActingAccount):
        raise AuthFailed(f"{signer}'s moves in game {state.game_id} are signed with his account's key",
                         game_id=state.game_id, player=signer)
    if signature is None:
        raise AuthFailed(f"the moves of game {state.game_id} are signed by their players, and this one carries "
                         "no signature (a scat that signs moves sends one)", game_id=state.game_id, player=signer)
    if signature.key_id != token.key_id:
        raise AuthFailed(f"the move is signed with the key {signature.key_id[:16]}, not with {token.key_id}, "
                         f"the key of the account {token.name}", game_id=state.game_id, player=signer)
    talk = isinstance(command, cmd.Say)
    earlier = tag_at is not None and 0 < signature.seq < state.version and tag_at(signature.seq, talk) == signature.tag
    if (signature.seq, signature.tag) != (state.version, tag) and not earlier:
        raise ConcurrencyConflict(f"game {state.game_id} moved on since the move was signed at event {signature.seq} "
                               f"(it is at event {state.version}): look at it again and move anew")
    if not verifies(token.public_key, state.game_id, signature, move):
        raise AuthFailed(f"the signature of {signer}'s move does not verify under the key of his account",
                         game_id=state.game_id, player=signer)
    return ev.MoveSigned(player=signer, move=move, at_seq=signature.seq, at_tag=signature.tag,
                         key_id=token.key_id, public_key=token.public_key, signature=signature.signature)


def held_then(account: Account, key_id: str, at: str) -> bool:
    """Whether the key `key_id` acted for `account` at the recorded time `at` (added before it, and
    neither revoked nor replaced by a rekey until after it)."""
    period = account.period(key_id)
    return period is not None and period.held_at(at)


def with_signers(report: AuditReport, records: Sequence[Mapping[str, Any]],
                 account_of: Callable[[str], Account | None]) -> AuditReport:
    """`report`, failed at the first signed move whose key was not its player's account's key when
    it was recorded (the signatures themselves verified: scat_core/records/chain.py)."""
    if not report.ok or not report.moves_signed:
        return report
    for record in records:
        if record["type"] != ev.MoveSigned.model_fields["type"].default:
            continue
        seq, player, key_id = record["seq"], record["data"]["player"], record["data"]["key_id"]
        account = account_of(player)
        if account is None:
            problem = f"event {seq} is signed by {player}, who has no account on this server"
        elif not held_then(account, key_id, record["recorded_at"]):
            problem = (f"event {seq} is signed with the key {key_id}, which did not act for {player}'s account then "
                       "(not yet added, or revoked or replaced before it)")
        else:
            continue
        return replace(report, ok=False, first_bad_seq=seq, problems=[problem])
    return report
