"""Chance as data: the versioned, documented shuffle `scat-shuffle-v1`, and the deal it feeds.

Anyone holding a game's seed can recompute every deal:

* A stream for a label is the concatenation of HMAC-SHA-256(key=seed as UTF-8,
  msg="scat-shuffle-v1|" + label + "|" + counter) for counter = 0, 1, 2, ... (decimal),
  read as big-endian unsigned 32-bit words.
* `uniform(n)` takes words w until w < 2**32 - (2**32 mod n) and returns w mod n.
* A shuffle is Fisher-Yates: for i from len-1 down to 1, swap items i and uniform(i + 1).
* Labels: "deal/H" shuffles the 52 cards of `cards.DECK` for hand H (top first);
  "restock/H/K" shuffles the K-th reshuffle of hand H (R17), the old discard pile without
  its top card taken bottom first; "dealer" draws the first dealer's seat when none is named.
* The seed is committed at creation as SHA-256(salt + ":" + seed) and revealed with its salt
  in the game's last event.

The deal (R9, R10), stated once: a deck is top first. Every active player, clockwise from the
dealer's left, is dealt one card at a time until each holds `HAND_SIZE` (R9); the next card
starts the discard pile and the rest is the stock (R10). `deal` splits a deck so; `stack` is
its inverse, the top of a deck that deals given hands. Evolve, the views, the transcript and
the tests all go through here.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Protocol

from .cards import DECK

#: The name of this algorithm, recorded in every game's first event (GameCreated.shuffle).
ALGORITHM: Final = "scat-shuffle-v1"


def seed_commitment(seed: str, salt: str) -> str:
    """The public commitment to a game's seed."""
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


def new_seed() -> str:
    """A fresh random seed (a decimal integer, like one given with --seed)."""
    return str(secrets.randbits(64))


def new_salt() -> str:
    """A fresh random salt for the seed commitment."""
    return secrets.token_hex(16)


class _Stream:
    """The word stream of one label."""

    def __init__(self, key: bytes, label: str) -> None:
        self._key = key
        self._label = label
        self._counter = 0
        self._words: Iterator[int] = iter(())

    def word(self) -> int:
        for word in self._words:
            return word
        block = hmac.new(self._key, f"{ALGORITHM}|{self._label}|{self._counter}".encode(), hashlib.sha256).digest()
        self._counter += 1
        self._words = iter([int.from_bytes(block[i : i + 4], "big") for i in range(0, 32, 4)])
        return self.word()

    def uniform(self, n: int) -> int:
        limit = 2**32 - (2**32 % n)
        while True:
            word = self.word()
            if word < limit:
                return word % n


_WORDS = struct.Struct(">8I").unpack
_SPACE = 2**32


def shuffled(seed: str, label: str, items: Sequence[str]) -> list[str]:
    """Shuffle `items` with the stream of `label` under `seed` (Fisher-Yates).

    The `_Stream` algorithm inlined: the HMAC key is prepared once and copied per block,
    each block unpacked in one call (a deal is ~7 blocks and 51 draws).
    """
    keyed = hmac.new(seed.encode("utf-8"), digestmod=hashlib.sha256)
    prefix = f"{ALGORITHM}|{label}|"
    result = list(items)
    words: tuple[int, ...] = ()
    used = counter = 0
    for i in range(len(result) - 1, 0, -1):
        n = i + 1
        limit = _SPACE - (_SPACE % n)
        while True:
            if used == len(words):
                block = keyed.copy()
                block.update(f"{prefix}{counter}".encode())
                words, used, counter = _WORDS(block.digest()), 0, counter + 1
            word = words[used]
            used += 1
            if word < limit:
                break
        j = word % n
        result[i], result[j] = result[j], result[i]
    return result


_DECK_BLOCKS = 7  # 51 draws, 8 words a block: enough unless a word is rejected (p < 1e-7 a deal)
_DECK_WORDS = struct.Struct(f">{8 * _DECK_BLOCKS}I").unpack
#: For a 52-card deck: Fisher-Yates' (i, n = i + 1, the largest multiple of n below 2**32), i from 51 down.
DECK_STEPS = tuple((i, i + 1, _SPACE - (_SPACE % (i + 1))) for i in range(51, 0, -1))


_IPAD = bytes(byte ^ 0x36 for byte in range(256))
_OPAD = bytes(byte ^ 0x5C for byte in range(256))


@lru_cache(maxsize=64)
def _keyed(key: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """SHA-256 fed with HMAC's inner and outer padded `key` (RFC 2104), to be copied per message;
    kept for the few keys (game seeds) in use, as a game's deals all use the same key."""
    if len(key) > 64:
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return hashlib.sha256(key.translate(_IPAD)), hashlib.sha256(key.translate(_OPAD))


def hmac_sha256_blocks(key: bytes, messages: list[bytes]) -> bytes:
    """HMAC-SHA-256(key, m) for each message, concatenated (RFC 2104 on hashlib's SHA-256:
    the keyed inner and outer states are prepared once and copied per message, which is
    cheaper than `hmac`'s objects; tests/domain/test_shuffle.py checks it against `hmac`)."""
    inner, outer = _keyed(key)
    digests = []
    for message in messages:
        step = inner.copy()
        step.update(message)
        final = outer.copy()
        final.update(step.digest())
        digests.append(final.digest())
    return b"".join(digests)


def shuffled_deck(seed: str, label: str) -> list[str]:
    """`shuffled(seed, label, DECK)`, faster: the 7 blocks a deal needs hashed first, then
    unpacked in one call; a rejected word (almost never) hands over to `shuffled` itself."""
    prefix = f"{ALGORITHM}|{label}|"
    blocks = hmac_sha256_blocks(seed.encode("utf-8"), [f"{prefix}{n}".encode() for n in range(_DECK_BLOCKS)])
    result = list(DECK)
    for (i, n, limit), word in zip(DECK_STEPS, _DECK_WORDS(blocks), strict=False):
        if word >= limit:
            return shuffled(seed, label, DECK)
        j = word % n
        result[i], result[j] = result[j], result[i]
    return result


class Chance(Protocol):
    """Where decide gets chance from: decks, reshuffles, the first dealer, the seed."""

    def deck(self, hand_number: int) -> list[str]:
        """The deck for hand `hand_number`, top first."""
        ...

    def restock(self, hand_number: int, index: int, cards: Sequence[str]) -> list[str]:
        """The new stock of the `index`-th reshuffle of a hand (R17), top first."""
        ...

    def first_dealer(self, players: int) -> int:
        """The seat of the first dealer, drawn when none is named (R8)."""
        ...

    def reveal(self) -> tuple[str, str]:
        """The seed and its salt, revealed when the game ends."""
        ...

    def commitment(self) -> str:
        """The public commitment to the seed, recorded when the game is created."""
        ...


class SeededChance:
    """Chance computed from the game's seed with scat-shuffle-v1."""

    def __init__(self, seed: str, salt: str) -> None:
        self.seed = seed
        self.salt = salt

    def deck(self, hand_number: int) -> list[str]:
        """The deck for hand `hand_number`, top first."""
        return shuffled_deck(self.seed, f"deal/{hand_number}")

    def restock(self, hand_number: int, index: int, cards: Sequence[str]) -> list[str]:
        """The new stock of the `index`-th reshuffle of a hand (R17), top first."""
        return shuffled(self.seed, f"restock/{hand_number}/{index}", cards)

    def first_dealer(self, players: int) -> int:
        """The seat of the first dealer, drawn when none is named (R8)."""
        return _Stream(self.seed.encode("utf-8"), "dealer").uniform(players)

    def reveal(self) -> tuple[str, str]:
        """The seed and its salt."""
        return self.seed, self.salt

    def commitment(self) -> str:
        """The public commitment to this seed."""
        return seed_commitment(self.seed, self.salt)


#: Cards in a hand between turns (R3, R9).
HAND_SIZE: Final = 3


@dataclass(frozen=True, slots=True)
class Deal:
    """A deck dealt: the hands in deal order, the first discard and the stock (top first)."""

    hands: tuple[tuple[str, ...], ...]
    discard: str
    stock: tuple[str, ...]


def deal_order(out: Sequence[bool], dealer: int) -> list[int]:
    """The seats dealt to, in order: the active ones clockwise from the dealer's left (R9, R11).

    `out[seat]` says whether that seat is out of the game; the dealer himself may be (R8).
    """
    count = len(out)
    return [seat for seat in (*range(dealer + 1, count), *range(dealer + 1)) if not out[seat]]


def discard_position(players: int) -> int:
    """The position in the deck of the card that starts the discard pile (R10)."""
    return HAND_SIZE * players


def receiver(position: int, players: int) -> int | None:
    """The index in deal order of the player dealt the deck's card at `position` (None: not dealt)."""
    return position % players if position < HAND_SIZE * players else None


def deal(deck: Sequence[str], players: int) -> Deal:
    """`deck` dealt to `players` players (R9, R10); hidden cards are dealt like any other."""
    dealt = HAND_SIZE * players
    hands = tuple(tuple(deck[index:dealt:players]) for index in range(players))
    return Deal(hands, deck[dealt], tuple(deck[dealt + 1 :]))


def stack(hands: Sequence[Sequence[str]], discard: str, stock: Sequence[str] = ()) -> list[str]:
    """The top of a deck dealing `hands` (in deal order), then `discard`, then `stock` (inverse of `deal`)."""
    if any(len(hand) != HAND_SIZE for hand in hands):
        raise ValueError(f"every hand is {HAND_SIZE} cards")
    return [hand[round_] for round_ in range(HAND_SIZE) for hand in hands] + [discard, *stock]
