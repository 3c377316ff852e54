"""A signed request's nonce spent with the command it asks for: one commit for both, served once.

A server verifies a signed move's request before its endpoint runs (scat_cli/server/verify.py)
but leaves its nonce to the command (ActingAccount.nonce): the command's unit of work remembers
it with the events, so that SQLite's writers take one turn per move instead of two. A replay
finds the nonce there (RequestRefused, nothing written). A refused command rolls its unit of
work back, nonce and all: `spent_even_if_refused` then remembers the nonce in a unit of work of
its own, so that a refused request is not served later either.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from scat_core.domain.errors import RequestRefused, ScatError
from scat_core.records.acting import ActingAccount, Credential, RequestNonce
from scat_core.service.ports import Store, UnitOfWork


def nonce_of(credential: Credential) -> RequestNonce | None:
    """The unspent nonce of the signed request `credential` came in, if any."""
    return credential.nonce if isinstance(credential, ActingAccount) else None


def spend(tx: UnitOfWork, credential: Credential) -> None:
    """Remember the request's unspent nonce in `tx`; RequestRefused when it was spent already (a replay)."""
    nonce = nonce_of(credential)
    if nonce is not None and not tx.use_nonce(nonce):
        raise RequestRefused.replayed()


@contextmanager
def spent_even_if_refused(store: Store, credential: Credential) -> Iterator[None]:
    """Around a command that `spend`s the nonce of `credential`: if it fails, the nonce is spent
    apart (already there, as a replay's, is as good); a failure to spend it then changes nothing
    of the command's own error."""
    try:
        yield
    except BaseException:
        nonce = nonce_of(credential)
        if nonce is not None:
            try:
                with store.transaction() as tx:
                    tx.use_nonce(nonce)
            except ScatError:
                pass  # the store is busy or lost: the command's error says so already
        raise
