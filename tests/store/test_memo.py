"""The bounded memo shared by the key ring's verified heads and the known head signatures."""

from __future__ import annotations

import threading
from pathlib import Path

from scat_core.records.signing import VERIFIED_KEPT, BoundedMemo, KeyRing
from scat_core.store.sql.appending import UNREAD, KnownHeads


def test_a_full_memo_forgets_its_oldest_entry_and_a_remembered_key_becomes_the_newest() -> None:
    memo: BoundedMemo[str, int] = BoundedMemo(3)
    for n, key in enumerate("abc"):
        memo.remember(key, n)
    memo.remember("a", 9)  # refreshed: "b" is now the oldest
    memo.remember("d", 3)
    assert dict(memo) == {"c": 2, "a": 9, "d": 3} and "b" not in memo and memo.get("a") == 9


def test_threads_sharing_a_memo_without_a_lock_never_fail_and_it_stays_bounded() -> None:
    memo: BoundedMemo[tuple[int, int], None] = BoundedMemo(64)
    errors: list[BaseException] = []

    def hammer(thread: int) -> None:
        try:
            for n in range(20_000):
                memo.remember((thread, n), None)
        except BaseException as exc:  # any failure is the finding
            errors.append(exc)

    threads = [threading.Thread(target=hammer, args=(t,)) for t in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(memo) <= 64 + len(threads)
    memo.remember((99, 0), None)  # a quiet remember brings it back within its bound
    assert len(memo) <= 64


def test_the_key_ring_and_the_known_heads_keep_their_memos_bounded(tmp_path: Path) -> None:
    keys = KeyRing(tmp_path / "key.pem")
    assert isinstance(keys._verified, BoundedMemo) and keys._verified.kept == VERIFIED_KEPT
    heads = KnownHeads(kept=2)
    for game in ("g1", "g2", "g1", "g3"):  # g1 remembered again: g2 is the oldest
        heads.remember(game, 1, f"hash-{game}", None)
    assert heads.prior("g2", 1, "hash-g2") == UNREAD
    assert heads.prior("g1", 1, "hash-g1") is None and heads.prior("g3", 1, "hash-g3") is None
