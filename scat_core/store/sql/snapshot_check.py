"""`scat db check`'s look at the snapshots: each one sealed by this installation and at an event of its log.

A command uses a snapshot only when its seal verifies and its event is still in the log with
the hash it records (command_load.py); this finds the rows that fail, so that the damage
(a state, head or tag changed outside scat, or a row written under another key) is named,
not only silently folded around. Rows written before seals (mac NULL) are no damage: not
used, and replaced at the game's next append.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Connection

from scat_core.records.signing import is_sealed
from scat_core.store.sql import tables as t

#: Rows read per fetch: the states are a few KiB each.
_PAGE = 500


def snapshot_problems(conn: Connection, key: bytes) -> dict[str, str]:
    """What is wrong with each sealed snapshot that does not match (game id -> why), under `key`
    (KeyRing.snapshot_key); every game's snapshot is read once, a page at a time."""
    s, e = t.game_snapshots.c, t.events.c
    query = (
        select(s.game_id, s.seq, s.hash, s.state_version, s.rules_version, s.state, s.mac, e.hash)
        .select_from(t.game_snapshots.outerjoin(t.events, (e.game_id == s.game_id) & (e.seq == s.seq)))
        .where(s.mac.is_not(None))
        .order_by(s.game_id)
    )
    problems: dict[str, str] = {}
    rows = conn.execution_options(yield_per=_PAGE).execute(query)
    for game_id, seq, head_hash, version, rules, state, mac, logged in rows.tuples():
        if not is_sealed(key, str(game_id), int(seq), str(head_hash), int(version), str(rules), str(state),
                         None if mac is None else str(mac)):
            problems[str(game_id)] = ("its seal does not verify under this installation's key: the snapshot was "
                                      "changed outside scat (or written by another installation)")
        elif logged != head_hash:
            problems[str(game_id)] = (f"it was folded at event {seq}, which the log no longer holds as it was: "
                                      "the events were changed outside scat")
    return problems
