"""A signed request's nonce spent with the command it asks for: one commit for both, served once.

A server verifies a signed move's request before its endpoint runs (scat_cli/server/verify.py)
but leaves its nonce to the command (ActingAccount.nonce): the command's unit of work remembers
it with the events (on PostgreSQL, where a command writes without a transaction around it, by
a statement of its own just before), so that SQLite's writers take one turn per move instead
of two. A replay finds the nonce there (RequestRefused, nothing written).

A command refused otherwise rolls its transaction back, nonce and all (SQLite):
`spent_even_if_refused` then remembers the nonce in a unit of work of its own, so that a
refused request is not served later either. When the database itself is what refused it
(busy, or lost), that second write would wait as long again and likely fail too: the nonce is
kept in this process's memory instead, until it expires (another server process on the same
database does not see it there: the one place a refused request's replay could still be
served, within its 300 s window, as the very move its player signed at that position).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from scat_core.domain.errors import RequestRefused, ScatError, Unavailable
from scat_core.records.acting import ActingAccount, Credential, RequestNonce
from scat_core.service.ports import Store, UnitOfWork

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
