"""Signed moves as the service takes them: the player's signature checked against the position he
saw (its tag), the MoveSigned event that records it, the audit's check that each signing key was
his account's at the time, and the request's nonce spent with the command (one commit for both).

A server verifies a signed request before its endpoint runs (scat_cli/server/verify.py) but
leaves its nonce to the command (`ActingAccount.nonce`): the command's unit of work remembers it
with the events, so a replay finds it there (RequestRefused, nothing written). A command refused
otherwise rolls back, nonce and all: `spent_even_if_refused` then remembers it in a unit of work
of its own, or, when the database itself refused (busy, lost), in this process's memory until it
expires (another server process does not see it there).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from scat_core.domain import commands as cmd
from scat_core.domain import events as ev
from scat_core.domain.audit_report import AuditReport
from scat_core.domain.commands import move_fields, signer_of
from scat_core.domain.errors import AuthFailed, RequestRefused, ScatError, Unavailable
from scat_core.domain.state import GameState
from scat_core.records.credentials import ActingAccount, Credential, RequestNonce
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.signing import MoveSignature, position_tag, verifies
from scat_core.records.stored_log import GameSecret
from scat_core.service.ports import Store, UnitOfWork

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
    last event: `tag`, records/signing.py); None when
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


#: The nonces of requests the database refused (busy, lost) before they could be remembered:
#: (key id, nonce) -> when it expires. Bounded (the expired ones go first, then all).
_REFUSED: dict[tuple[str, str], int] = {}
_REFUSED_MAX = 10_000
_REFUSED_LOCK = threading.Lock()


def nonce_of(credential: Credential) -> RequestNonce | None:
    """The unspent nonce of the signed request `credential` came in, if any."""
    return credential.nonce if isinstance(credential, ActingAccount) else None


def spend(tx: UnitOfWork, credential: Credential, again: bool = False) -> None:
    """Remember the request's unspent nonce in `tx`; RequestRefused when it was spent already (a replay).
    `again`: the same request's command tried once more (a message came first): its own nonce, kept
    by the first try (PostgreSQL spends it by a statement of its own), is no replay."""
    nonce = nonce_of(credential)
    if nonce is None:
        return
    with _REFUSED_LOCK:
        refused = (nonce.key_id, nonce.nonce) in _REFUSED
    if (refused or not tx.use_nonce(nonce)) and not again:
        raise RequestRefused.replayed()


@contextmanager
def spent_even_if_refused(store: Store, credential: Credential) -> Iterator[None]:
    """Around a command that `spend`s the nonce of `credential`: if it fails, the nonce is spent
    apart (already there, as a replay's, is as good), or kept in memory when the database
    refused the command; a failure to spend it changes nothing of the command's own error."""
    try:
        yield
    except RequestRefused:
        raise  # the replay of a request whose nonce is known
    except Unavailable:
        nonce = nonce_of(credential)
        if nonce is not None:
            _keep_refused(nonce)
        raise
    except BaseException:
        nonce = nonce_of(credential)
        if nonce is not None:
            try:
                with store.transaction() as tx:
                    tx.use_nonce(nonce)
            except ScatError:
                _keep_refused(nonce)
        raise


def _keep_refused(nonce: RequestNonce) -> None:
    with _REFUSED_LOCK:
        if len(_REFUSED) >= _REFUSED_MAX:
            for key in [key for key, until in _REFUSED.items() if until < nonce.now]:
                del _REFUSED[key]
            if len(_REFUSED) >= _REFUSED_MAX:
                _REFUSED.clear()
        _REFUSED[(nonce.key_id, nonce.nonce)] = nonce.expires_at
