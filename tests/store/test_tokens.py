"""Player tokens are stored only as salted scrypt hashes."""

from __future__ import annotations

import pytest

from scat_core.records import credentials
from scat_core.records.credentials import hash_token, new_token, verify_token


def test_a_token_verifies_against_its_hash_and_a_wrong_one_does_not() -> None:
    token = new_token()
    stored = hash_token(token)
    assert token not in stored and stored.startswith("scrypt$")
    assert verify_token(token, stored)
    assert not verify_token(token + "x", stored)
    assert not verify_token("", stored)


def test_a_token_issued_by_another_process_verifies_by_its_scrypt_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    token = new_token()
    stored = hash_token(token)
    monkeypatch.setattr(credentials, "VERIFIED_TOKENS", {})  # another process: it knows only the stored hash
    assert verify_token(token, stored)
    assert not verify_token(token + "x", stored)


def test_a_token_this_process_issued_verifies_without_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    token = new_token()
    stored = hash_token(token)

    def no_scrypt(*args: object) -> bytes:
        raise AssertionError("scrypt ran for a token this process issued")

    monkeypatch.setattr(credentials, "scrypt_hash", no_scrypt)
    assert verify_token(token, stored)  # a new game's first move through a server: no scrypt
    with pytest.raises(AssertionError, match="scrypt ran"):
        verify_token(token + "x", stored)  # a wrong token is still checked by its hash


def test_hashing_the_same_token_twice_uses_different_salts() -> None:
    assert hash_token("same") != hash_token("same")


def test_a_malformed_stored_hash_never_verifies() -> None:
    assert not verify_token("t", "garbage")
    assert not verify_token("t", "bcrypt$1$2$3$00$00")
    assert not verify_token("t", "scrypt$x$8$1$00$00")


def test_new_tokens_are_long_and_distinct() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50 and all(len(t) >= 40 for t in tokens)
