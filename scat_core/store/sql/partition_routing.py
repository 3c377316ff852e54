"""Which PostgreSQL partition holds a game: the hash PostgreSQL routes a game id by, computed here,
so that a command's two statements name the game's own partitions instead of the parents.

On PostgreSQL the per-game tables are hash-partitioned by game id (schema.PARTITIONS of each,
migrations 0016 and 0017). A statement on a parent table pays for all of its partitions when it
runs (each is set up, and locked, before all but one are pruned); a command's load and append
name three parents each. Named directly, the game's partitions cost what plain tables cost.

The partition of a value is PostgreSQL's own choice, from internals no client is promised:
the text type's extended hash (`hashtextextended`: Bob Jenkins' lookup3 over the UTF-8 bytes,
src/common/hashfn.c `hash_bytes_extended`), seeded with `HASH_PARTITION_SEED`, combined as
`compute_partition_hash_value` does (partbounds.c), modulo the number of partitions. So the
trick stays behind this one seam:

- it is taken only while `SCAT_PUBLIC_API_ONLY` does not name `partitions` (or `1`);
- a routed load that finds no games row in the partition named is read again through the
  parents, and if the game is there the routing is turned off for the process (`ROUTING`):
  a command is never refused because of it, and its append then names the parents too;
- tests/store/test_partition_routing.py holds the computed partition to the one PostgreSQL
  chooses, for thousands of ids, on the server CI runs;
- tests/benchmarks/bench_hotpath.py prints what it earns (commands/s with and without).
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache

from scat_core.domain.speed_tricks import TURNED_OFF
from scat_core.store.sql.schema import PARTITIONS

_log = logging.getLogger("scat.store")

_MASK = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF
#: partition.h: the seed every hash partition key is hashed with.
HASH_PARTITION_SEED = 0x7A5B22367996DCFD
#: hashfn.h hash_combine64's constant.
_COMBINE = 0x49A0F4DD15E5A8E3


class _Routing:
    """Whether commands name the game's partitions (turned off for good once it proved wrong), and
    the games whose partition a load in this process found them in (an append names it only then)."""

    #: At most this many games remembered as proven; then the memory starts again.
    KEPT = 100_000

    def __init__(self) -> None:
        self.on = not TURNED_OFF & {"1", "partitions"}
        self._proven: set[str] = set()

    def found(self, game_id: str) -> None:
        """A load found `game_id` in the partition computed for it."""
        if len(self._proven) >= self.KEPT:
            self._proven.clear()
        self._proven.add(game_id)

    def proven(self, game_id: str) -> bool:
        """Whether an append of `game_id` may name its partitions."""
        return self.on and game_id in self._proven

    def wrong(self, game_id: str) -> None:
        """`game_id` is not where the computed partition says: name the parents from now on."""
        self.on = False
        self._proven.clear()
        _log.warning("game %s is not in the partition computed for it: statements name the parent tables "
                     "from now on (tests/store/test_partition_routing.py says why)", game_id)


ROUTING = _Routing()


def _rot(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _MASK


def _mix(a: int, b: int, c: int) -> tuple[int, int, int]:
    a = (a - c) & _MASK; a ^= _rot(c, 4); c = (c + b) & _MASK  # noqa: E702 (lookup3's own layout)
    b = (b - a) & _MASK; b ^= _rot(a, 6); a = (a + c) & _MASK  # noqa: E702
    c = (c - b) & _MASK; c ^= _rot(b, 8); b = (b + a) & _MASK  # noqa: E702
    a = (a - c) & _MASK; a ^= _rot(c, 16); c = (c + b) & _MASK  # noqa: E702
    b = (b - a) & _MASK; b ^= _rot(a, 19); a = (a + c) & _MASK  # noqa: E702
    c = (c - b) & _MASK; c ^= _rot(b, 4); b = (b + a) & _MASK  # noqa: E702
    return a, b, c


def _final(a: int, b: int, c: int) -> tuple[int, int, int]:
    c ^= b; c = (c - _rot(b, 14)) & _MASK  # noqa: E702
    a ^= c; a = (a - _rot(c, 11)) & _MASK  # noqa: E702
    b ^= a; b = (b - _rot(a, 25)) & _MASK  # noqa: E702
    c ^= b; c = (c - _rot(b, 16)) & _MASK  # noqa: E702
    a ^= c; a = (a - _rot(c, 4)) & _MASK  # noqa: E702
    b ^= a; b = (b - _rot(a, 14)) & _MASK  # noqa: E702
    c ^= b; c = (c - _rot(b, 24)) & _MASK  # noqa: E702
    return a, b, c


def hash_bytes_extended(key: bytes, seed: int) -> int:
    """PostgreSQL's `hash_bytes_extended(key, len(key), seed)` (little-endian, as every machine it runs on here)."""
    a = b = c = (0x9E3779B9 + len(key) + 3923095) & _MASK
    if seed:
        a = (a + (seed >> 32)) & _MASK
        b = (b + (seed & _MASK)) & _MASK
        a, b, c = _mix(a, b, c)
    whole = len(key) - len(key) % 12
    for at in range(0, whole, 12):
        a = (a + int.from_bytes(key[at:at + 4], "little")) & _MASK
        b = (b + int.from_bytes(key[at + 4:at + 8], "little")) & _MASK
        c = (c + int.from_bytes(key[at + 8:at + 12], "little")) & _MASK
        a, b, c = _mix(a, b, c)
    tail = key[whole:]
    a = (a + int.from_bytes(tail[0:4], "little")) & _MASK
    b = (b + int.from_bytes(tail[4:8], "little")) & _MASK
    c = (c + (int.from_bytes(tail[8:11], "little") << 8)) & _MASK  # c's lowest byte is the length's
    a, b, c = _final(a, b, c)
    return (b << 32) | c


@lru_cache(maxsize=4096)
def partition_of(game_id: str) -> int:
    """The number (remainder) of the partition PostgreSQL routes `game_id` to, of PARTITIONS."""
    hashed = hash_bytes_extended(game_id.encode("utf-8"), HASH_PARTITION_SEED)
    return ((hashed + _COMBINE) & _MASK64) % PARTITIONS  # hash_combine64(0, hashed)


#: A parent table of the per-game partitions, where a statement names it as a table.
_PARENT = re.compile(r"(?<=FROM |JOIN |INTO )(?:events|game_snapshots|games)\b|(?<=UPDATE )games\b")


@lru_cache(maxsize=256)
def routed(statement: str, partition: int) -> str:
    """`statement` naming the partitions numbered `partition` instead of their parent tables."""
    return _PARENT.sub(lambda parent: f"{parent.group(0)}_p{partition:02d}", statement)
