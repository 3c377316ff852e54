"""The account log in memory (plain lists and dicts): the second adapter of `AccountLog`, for tests."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from scat_core.records.errors import ConcurrencyConflict
from scat_core.service.ports import AccountLog, AccountRecord


class MemoryAccountLog:
    """Account records and request nonces held by this process only."""

    def __init__(self) -> None:
        self.records: list[AccountRecord] = []
        self.nonces: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()

    def matching(self, skeleton: str | None, key_id: str | None,
                 looks: Sequence[str] = ()) -> tuple[int, list[AccountRecord]]:
        """The log's last seq and every record of the accounts named alike or holding `key_id` ever."""
        from scat_core.domain.names import looks_of

        with self._lock:
            wanted = {r.skeleton for r in self.records if r.skeleton == skeleton or r.key_id == key_id
                      or bool(looks and set(looks) & set(looks_of(r.account)))}
            return len(self.records), [r for r in self.records if r.skeleton in wanted]

    def append(self, expected_head: int, records: Sequence[AccountRecord]) -> None:
        """Append the records; ConcurrencyConflict when the log moved past `expected_head`."""
        with self._lock:
            if len(self.records) != expected_head:
                raise ConcurrencyConflict("the accounts changed meanwhile: try again")
            if [r.seq for r in records] != list(range(expected_head + 1, expected_head + 1 + len(records))):
                raise ConcurrencyConflict("the accounts changed meanwhile: try again")
            self.records.extend(records)

    def use_nonce(self, key_id: str, nonce: str, expires_at: int, now: int) -> bool:
        """Remember the nonce; False when it is remembered already (a replay)."""
        with self._lock:
            self.nonces, fresh = remembered(self.nonces, key_id, nonce, expires_at, now)
            return fresh


def remembered(nonces: dict[tuple[str, str], int], key_id: str, nonce: str, expires_at: int,
               now: int) -> tuple[dict[tuple[str, str], int], bool]:
    """`nonces` (key -> expiry) without those expired by `now`, with the nonce added; and whether it
    was not there already (False: a replay)."""
    kept = {key: until for key, until in nonces.items() if until >= now}
    if (key_id, nonce) in kept:
        return kept, False
    kept[(key_id, nonce)] = expires_at
    return kept, True


_: type[AccountLog] = MemoryAccountLog
