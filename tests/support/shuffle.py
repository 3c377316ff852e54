"""scat-shuffle-v1 written again from its documentation alone, to check the implementation against."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence


def documented_shuffle(seed: str, label: str, items: Sequence[str]) -> list[str]:
    """scat-shuffle-v1 written again from its documentation alone."""

    def words() -> Iterator[int]:
        counter = 0
        while True:
            message = f"scat-shuffle-v1|{label}|{counter}".encode()
            block = hmac.new(seed.encode("utf-8"), message, hashlib.sha256).digest()
            for offset in range(0, 32, 4):
                yield int.from_bytes(block[offset : offset + 4], "big")
            counter += 1

    stream = words()

    def uniform(n: int) -> int:
        while True:
            word = next(stream)
            if word < 2**32 - (2**32 % n):
                return word % n

    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = uniform(i + 1)
        result[i], result[j] = result[j], result[i]
    return result
