"""Decision (deck order), R8, R17: chance as data, the documented shuffle scat-shuffle-v1."""

from __future__ import annotations

import hashlib
import hmac

from scat_core.domain.cards import DECK
from scat_core.domain.shuffle import ALGORITHM, SeededChance, new_salt, new_seed, seed_commitment, shuffled
from tests.support.shuffle import documented_shuffle

#: The first deck of seed "42", top first. Changing it breaks every stored game: never do.
SEED_42_FIRST_DECK = (
    "KC JC 4C 8C JH 3C QS 9D 6S 9C AC 5H 2D 6D QD 7D 7S 5C 5D 5S 6H 6C KD 4D QH JD 4H KS 10S "
    "10D 3S 8D KH 3H 4S 7C 2H 9H AD 10H 8H QC 3D 7H 9S 2S 2C AH JS 8S 10C AS"
).split()


def test_the_algorithm_is_named_and_versioned() -> None:
    assert ALGORITHM == "scat-shuffle-v1"


def test_the_first_deck_of_seed_42_is_pinned() -> None:
    assert SeededChance("42", "any salt").deck(1) == SEED_42_FIRST_DECK


def test_the_same_seed_gives_the_same_decks_and_the_salt_does_not_matter() -> None:
    assert SeededChance("7", "a").deck(3) == SeededChance("7", "b").deck(3)
    assert SeededChance("7", "a").restock(2, 1, DECK[:20]) == SeededChance("7", "b").restock(2, 1, DECK[:20])


def test_every_deck_is_a_permutation_of_the_52_cards_and_differs_by_hand_and_seed() -> None:
    decks = [SeededChance(seed, "s").deck(hand) for seed in ("1", "2") for hand in (1, 2, 3)]
    assert all(sorted(deck) == sorted(DECK) for deck in decks)
    assert len({tuple(deck) for deck in decks}) == len(decks)


def test_decks_and_reshuffles_follow_the_documented_algorithm() -> None:
    for seed in ("42", "0", "18446744073709551615", "graine-é"):
        chance = SeededChance(seed, "salt")
        for hand in (1, 2, 17):
            assert chance.deck(hand) == documented_shuffle(seed, f"deal/{hand}", DECK)
        pile = SEED_42_FIRST_DECK[10:40]
        assert chance.restock(3, 2, pile) == documented_shuffle(seed, "restock/3/2", pile)
        assert shuffled(seed, "x", pile) == documented_shuffle(seed, "x", pile)


def test_shuffling_leaves_the_input_alone() -> None:
    pile = tuple(DECK[:10])
    shuffled("1", "restock/1/1", pile)
    assert pile == tuple(DECK[:10])


def test_the_seed_is_committed_as_sha256_of_salt_colon_seed() -> None:
    assert seed_commitment("42", "salt") == hashlib.sha256(b"salt:42").hexdigest()
    assert SeededChance("42", "salt").reveal() == ("42", "salt")


def test_fresh_seeds_and_salts_are_random() -> None:
    assert len({new_seed() for _ in range(20)}) == 20
    assert len({new_salt() for _ in range(20)}) == 20
    assert all(seed.isdigit() for seed in (new_seed(), new_seed()))


def test_the_deal_shuffle_and_its_hmac_are_the_documented_ones() -> None:
    from scat_core.domain import shuffle

    for key in (b"", b"4", "graine-é".encode(), b"k" * 63, b"k" * 64, b"k" * 65, b"k" * 300):
        messages = [b"", b"scat-shuffle-v1|deal/1|0", b"m" * 200]
        expected = b"".join(hmac.new(key, message, hashlib.sha256).digest() for message in messages)
        assert shuffle.hmac_sha256_blocks(key, messages) == expected
    for seed in ("42", "0", "18446744073709551615", "graine-é", "x" * 100, *map(str, range(300))):
        for hand in (1, 2, 17):
            assert shuffle.shuffled_deck(seed, f"deal/{hand}") == shuffled(seed, f"deal/{hand}", DECK)
    assert shuffle.shuffled_deck("42", "deal/1") == SEED_42_FIRST_DECK


def test_a_rejected_word_in_a_deal_hands_over_to_the_general_shuffle(monkeypatch: object) -> None:
    from scat_core.domain import shuffle

    # Pretend every word is rejected at i = 30: the fast path must give the general shuffle's deck.
    steps = tuple((i, n, 0 if i == 30 else limit) for i, n, limit in shuffle.DECK_STEPS)
    monkeypatch.setattr(shuffle, "DECK_STEPS", steps)  # type: ignore[attr-defined]
    assert shuffle.shuffled_deck("42", "deal/1") == SEED_42_FIRST_DECK
