"""The port of the account service: the append-only account log and the nonces of signed requests.

Neutral types only (no SQLAlchemy): an adapter stores `AccountRecord`s as they are given and
hands back those a decision needs. `scat_core/store/sql/account_log.py` is the SQL adapter,
`scat_core/store/memory/account_memory.py` the in-memory one; mypy checks both against `AccountLog`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class AccountRecord:
    """One stored account event: its place in the log (seq from 1), the account it is about
    (name and name skeleton), the key it names, its type, schema version, data and time."""

    seq: int
    account: str
    skeleton: str
    key_id: str
    type: str
    schema_version: int
    data: dict[str, Any]
    recorded_at: str


class AccountLog(Protocol):
    """The log of every account event, numbered from 1 across all accounts, never changed."""

    def matching(self, skeleton: str | None, key_id: str | None,
                 looks: Sequence[str] = ()) -> tuple[int, list[AccountRecord]]:
        """The log's last seq (0: empty) and, in seq order, every record of each account whose
        name has `skeleton` (names.skeleton, the record's), or one of `looks` (skeletons.looks_of,
        through the name index the adapter folds from the records), or that has ever held the
        key `key_id`."""
        ...

    def append(self, expected_head: int, records: Sequence[AccountRecord]) -> None:
        """Append `records` (numbered from `expected_head` + 1) in one unit of work;
        ConcurrencyConflict when the log's last seq is no longer `expected_head`."""
        ...

    def use_nonce(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """Remember `nonce` of `key_id` until `expires_at` (Unix seconds); False when it is remembered
        already (a replay). Nonces expired by `now` may be forgotten."""
        ...
