"""A bounded memo: a dict that forgets its oldest entry when full.

Shared by the key ring's verified heads (`keys.KeyRing`, used without a lock) and the head
signatures a store last saw (`signed_heads.KnownHeads`, which holds its own lock).
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedMemo(dict[K, V]):
    """A dict of about `kept` entries, added through `remember`, which forgets the oldest first.

    Lookups are the dict's own (`in`, `get`), at no cost over a plain dict. Lock-free: each step
    is one atomic dict operation (CPython), so threads may share a memo without a lock; two
    racing at the bound may forget one entry too many or keep one too many until the next
    `remember`, never fail. Callers that need several steps to be one take their own lock.
    """

    __slots__ = ("kept",)

    def __init__(self, kept: int) -> None:
        super().__init__()
        self.kept = kept

    def remember(self, key: K, value: V) -> None:
        """Add `key` (or move it) as the newest entry, forgetting the oldest while the memo is full."""
        self.pop(key, None)
        while len(self) >= self.kept:
            try:
                del self[next(iter(self))]
            except StopIteration:  # emptied by another thread meanwhile
                break
            except (KeyError, RuntimeError):  # another thread forgot it (or changed the dict) first
                continue
        self[key] = value
