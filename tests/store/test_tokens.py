"""Player tokens are stored only as hashes: a SHA-256 (a token is 256 random bits made by scat),
and the salted scrypt hashes of the tokens issued before still verify."""

from __future__ import annotations

import hashlib

import pytest

from scat_core.records import credentials
from scat_core.records.credentials import hash_token, new_token, scrypt_stored, verify_token


def test_a_token_verifies_against_its_hash_and_a_wrong_one_does_not() -> None:
    token = new_token()
    stored = hash_token(token)
    assert token not in stored and stored == "sha256$" + hashlib.sha256(token.encode()).hexdigest()
    assert verify_token(token, stored)
    assert not verify_token(token + "x", stored)
    assert not verify_token("", stored)


def test_checking_a_token_against_its_sha256_costs_no_scrypt(monkeypatch: pytest.MonkeyPatch) -> None:
    token = new_token()
    stored = hash_token(token)

    def no_scrypt(*args: object) -> bytes:
        raise AssertionError("scrypt ran for a token stored as its SHA-256")

    monkeypatch.setattr(credentials, "scrypt_hash", no_scrypt)
    assert verify_token(token, stored)
    assert not verify_token(token + "x", stored)  # a wrong token costs a SHA-256 too


def test_a_token_stored_as_scrypt_before_verifies_in_another_process(monkeypatch: pytest.MonkeyPatch) -> None:
    token = new_token()
    stored = scrypt_stored(token)
    assert token not in stored and stored.startswith("scrypt$16384$8$1$")
    monkeypatch.setattr(credentials, "VERIFIED_TOKENS", {})  # another process: it knows only the stored hash
    assert verify_token(token, stored)
    assert not verify_token(token + "x", stored)


def test_a_scrypt_hash_made_here_costs_no_scrypt_for_its_token(monkeypatch: pytest.MonkeyPatch) -> None:
    token = new_token()
    stored = scrypt_stored(token)

    def no_scrypt(*args: object) -> bytes:
        raise AssertionError("scrypt ran for a token this process knows")

    monkeypatch.setattr(credentials, "scrypt_hash", no_scrypt)
    assert verify_token(token, stored)
    with pytest.raises(AssertionError, match="scrypt ran"):
        verify_token(token + "x", stored)  # a wrong token is still checked by its hash


def test_scrypt_hashes_of_the_same_token_use_different_salts() -> None:
    assert scrypt_stored("same") != scrypt_stored("same")


def test_a_malformed_stored_hash_never_verifies() -> None:
    assert not verify_token("t", "garbage")
    assert not verify_token("t", "bcrypt$1$2$3$00$00")
    assert not verify_token("t", "scrypt$x$8$1$00$00")
    assert not verify_token("t", "scrypt$1024$8$1$00$zz")  # a digest that is not hex
    assert not verify_token("t", "scrypt$-2$8$1$00$00")
    assert not verify_token("t", f"scrypt${2**70}$8$1$00$00")
    assert not verify_token("t", "sha256$not-hex")
    assert not verify_token("t", "sha256$" + hashlib.sha256(b"t").hexdigest()[:-2])
    assert not verify_token("", "sha256$")


def test_new_tokens_are_long_and_distinct() -> None:
    tokens = {new_token() for _ in range(50)}
    assert len(tokens) == 50 and all(len(t) >= 40 for t in tokens)
