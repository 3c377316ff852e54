"""Signed heads in the database: the `head_signatures` rows and the one hook an append calls.

Every append signs the game's new head with this installation's key, in the same
transaction, but only on top of a head that was signed by a key known here (this
installation's or a trusted one) and still verifies: a rewritten history is never signed
over ("laundered") by the next move. A game whose head is unsigned (it predates signing, or
its signature was removed) stays unsigned, for the same reason; one whose first event says it
is signed (GameCreated.signed) is refused before any of this (service/loading.py). Imports are signed here from
their first event on; the signature the export carried is kept as the game's "origin".
"""

from __future__ import annotations

import threading

from sqlalchemy import select
from sqlalchemy.engine import Connection

from scat_core.records.signing import HEAD, BoundedMemo, HeadSignature, KeyRing, StoredSignature, next_signature
from scat_core.store.sql import tables as t

_COLUMNS = (t.head_signatures.c.seq, t.head_signatures.c.hash, t.head_signatures.c.key_id,
            t.head_signatures.c.public_key, t.head_signatures.c.signature)


#: What KnownHeads.prior says when it holds nothing for that head: read the database.
UNREAD = "unread"


class KnownHeads:
    """The head signature a store last read or wrote of each game, at which head (seq, hash).

    A memo of one process, so an append after a command's load (or after the same store's
    previous append) need not read the signature again: the lean append then writes only
    if the database still holds that very signature (compare and swap, command_append.py), so a memo
    that is out of date costs a ConcurrencyConflict, never a wrong signature. Bounded.
    """

    def __init__(self, kept: int = 4096) -> None:
        self._heads: BoundedMemo[str, tuple[int, str, StoredSignature | None]] = BoundedMemo(kept)
        self._lock = threading.Lock()

    def remember(self, game_id: str, seq: int, head_hash: str, signature: StoredSignature | None) -> None:
        """Note that the head (seq, head_hash) of `game_id` has `signature` (None: unsigned)."""
        with self._lock:
            self._heads.remember(game_id, (seq, head_hash, signature))

    def forget(self, game_id: str) -> None:
        """Drop what is known of `game_id` (its append failed: the database decides again)."""
        with self._lock:
            self._heads.pop(game_id, None)

    def prior(self, game_id: str, seq: int, head_hash: str) -> StoredSignature | None | str:
        """The signature known for that head of `game_id`, None if it is unsigned, UNREAD if not known."""
        with self._lock:
            known = self._heads.get(game_id)
        if known is None or (known[0], known[1]) != (seq, head_hash):
            return UNREAD
        return known[2]


def read_signature(conn: Connection, game_id: str, kind: str = HEAD) -> StoredSignature | None:
    """The stored signature of `kind` (HEAD or ORIGIN) of a game, or None."""
    row = conn.execute(
        select(*_COLUMNS).where(t.head_signatures.c.game_id == game_id, t.head_signatures.c.kind == kind)
    ).first()
    if row is None:
        return None
    return StoredSignature(int(row[0]), str(row[1]), HeadSignature(str(row[2]), str(row[3]), str(row[4])))


def write_signature(conn: Connection, game_id: str, kind: str, seq: int, head_hash: str,
                    signature: HeadSignature) -> None:
    """Insert or replace the signature of `kind` of a game."""
    values = {"seq": seq, "hash": head_hash, "key_id": signature.key_id, "public_key": signature.public_key,
              "signature": signature.signature}
    updated = conn.execute(
        t.head_signatures.update()
        .where(t.head_signatures.c.game_id == game_id, t.head_signatures.c.kind == kind)
        .values(**values)
    )
    if updated.rowcount == 0:
        conn.execute(t.head_signatures.insert().values(game_id=game_id, kind=kind, **values))


def signature_for_append(conn: Connection, keys: KeyRing, game_id: str, prior_seq: int, prior_hash: str,
                         seq: int, head_hash: str, before_insert: bool = True,
                         known: StoredSignature | None | str = UNREAD,
                         ) -> tuple[StoredSignature | None, HeadSignature] | None:
    """The signature an append from (prior_seq, prior_hash) to (seq, head_hash) must write, and the
    prior one it replaces; None when the game stays unsigned.

    A new game (prior_seq 0) is signed. Otherwise the prior head's signature must verify
    under a key known here (else HistoryDamaged or RuleViolation, and nothing may be
    written); an unsigned prior head leaves the game unsigned. `before_insert`: called before
    the events are written (the lean append), so a signature of a later head may be a writer
    that raced ahead (ConcurrencyConflict) rather than damage. `known`: the prior head's
    signature as already read (KnownHeads.prior), UNREAD to read it here.
    """
    if prior_seq == 0:
        prior = None
    elif isinstance(known, str):
        prior = read_signature(conn, game_id)
    else:
        prior = known
    return next_signature(keys, prior, game_id, prior_seq, prior_hash, seq, head_hash,
                          lambda: before_insert and _log_moved(conn, game_id, prior_seq, prior_hash))


def _log_moved(conn: Connection, game_id: str, prior_seq: int, prior_hash: str) -> bool:
    """Whether the log's last event is no longer (prior_seq, prior_hash): a writer raced ahead."""
    row = conn.execute(
        select(t.events.c.seq, t.events.c.hash).where(t.events.c.game_id == game_id)
        .order_by(t.events.c.seq.desc()).limit(1)
    ).first()
    return row is None or (int(row[0]), str(row[1])) != (prior_seq, prior_hash)


def sign_appended_head(conn: Connection, keys: KeyRing, game_id: str, prior_seq: int, prior_hash: str,
                       seq: int, head_hash: str) -> None:
    """After an append (in its transaction): sign the new head, over a verified prior one."""
    signing = signature_for_append(conn, keys, game_id, prior_seq, prior_hash, seq, head_hash, before_insert=False)
    if signing is not None:
        write_signature(conn, game_id, HEAD, seq, head_hash, signing[1])


def lean_signature_params(signing: tuple[StoredSignature | None, HeadSignature] | None) -> dict[str, object]:
    """The parameters of the lean append's head_signatures update (see command_append.py): sign, the prior
    signature it must still find (compare and swap), and the new one."""
    prior, new = signing if signing is not None else (None, None)
    if prior is None or new is None:
        return {"sign": False, "prior_signature": "", "sig_key_id": "", "sig_public_key": "", "sig_signature": ""}
    return {"sign": True, "prior_signature": prior.signature.signature, "sig_key_id": new.key_id,
            "sig_public_key": new.public_key, "sig_signature": new.signature}


def sign_new_heads(conn: Connection, keys: KeyRing, heads: list[tuple[str, int, str]]) -> None:
    """Sign the heads (game_id, seq, hash) of games just added whole (the bulk path), in one INSERT."""
    if not heads:
        return
    rows = []
    for game_id, seq, head_hash in heads:
        signature = keys.sign_head(game_id, seq, head_hash)
        rows.append({"game_id": game_id, "kind": HEAD, "seq": seq, "hash": head_hash, "key_id": signature.key_id,
                     "public_key": signature.public_key, "signature": signature.signature})
    conn.execute(t.head_signatures.insert(), rows)
