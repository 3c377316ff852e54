"""Player tokens are stored only as salted scrypt hashes."""

from __future__ import annotations

from scat_core.records.tokens import hash_token, new_token, verify_token


def test_a_token_verifies_against_its_hash_and_a_wrong_one_does_not() -> None:
    token = new_token()
    stored = hash_token(token)
    assert token not in stored and stored.startswith("scrypt$")
    assert verify_token(token, stored)
    assert not verify_token(token + "x", stored)
    assert not verify_token("", stored)


def test_hashing_the_same_token_twice_uses_different_salts() -> None:
    assert hash_token("same") != hash_token("same")


def test_a_malformed_stored_hash_never_verifies() -> None:
    assert not verify_token("t", "garbage")
    assert not verify_token("t", "bcrypt$1$2$3$00$00")
    assert not verify_token("t", "scrypt$x$8$1$00$00")


def test_new_tokens_are_long_and_distinct() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50 and all(len(t) >= 40 for t in tokens)
