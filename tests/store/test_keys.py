"""The installation signing key: a file outside the database, 0600, created once; signatures."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from scat_core.domain.errors import BadInput
from scat_core.records.errors import KeyFileUnusable
from scat_core.records.signing import (
    INVALID,
    UNKNOWN_KEY,
    UNSIGNED,
    VALID,
    HeadSignature,
    KeyRing,
    default_key_path,
    head_message,
    key_id_of,
    verify_head,
)

HEAD = ("3f2a1b9c0d", 12, "ab" * 32)


def test_the_default_key_lives_in_the_user_config_dir_and_scat_key_file_overrides_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert default_key_path() == tmp_path / "xdg-config" / "scat" / "installation-key.pem"
    monkeypatch.setenv("SCAT_KEY_FILE", str(tmp_path / "server.pem"))
    assert default_key_path() == tmp_path / "server.pem"
    assert KeyRing.default().trust_path == tmp_path / "server.trusted"


def test_the_key_is_created_on_first_use_with_mode_0600_in_a_private_folder(tmp_path: Path) -> None:
    path = tmp_path / "config" / "scat" / "installation-key.pem"
    keys = KeyRing(path)
    assert not path.exists()  # nothing is read or made before the key is needed
    signature = keys.sign_head(*HEAD)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    again = KeyRing(path)
    assert again.public_key == keys.public_key and again.key_id == keys.key_id == signature.key_id
    assert len(keys.key_id) == 16 and key_id_of(keys.public_key) == keys.key_id
    assert [p.name for p in path.parent.iterdir()] == ["installation-key.pem"]  # no temporary file left


def test_the_key_file_is_standard_pkcs8_pem_that_other_tools_read(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    keys = KeyRing(tmp_path / "key.pem")
    public_key = keys.public_key  # creates the file
    loaded = serialization.load_pem_private_key((tmp_path / "key.pem").read_bytes(), password=None)
    assert isinstance(loaded, Ed25519PrivateKey)
    assert base64.b64encode(loaded.public_key().public_bytes_raw()).decode() == public_key
    theirs = Ed25519PrivateKey.generate()
    written = theirs.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption())
    (tmp_path / "theirs.pem").write_bytes(written)
    (tmp_path / "theirs.pem").chmod(0o600)
    signature = KeyRing(tmp_path / "theirs.pem").sign_head(*HEAD)
    theirs.public_key().verify(base64.b64decode(signature.signature), head_message(*HEAD))


def test_a_key_file_open_to_others_is_refused_with_one_line_saying_how_to_fix_it(tmp_path: Path) -> None:
    path = tmp_path / "key.pem"
    KeyRing(path).sign_head(*HEAD)
    os.chmod(path, 0o644)
    with pytest.raises(BadInput, match=r"open to others \(mode 644\): run `chmod 600 .*key.pem`"):
        KeyRing(path).sign_head(*HEAD)


def test_an_unusable_config_folder_is_one_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be")
    with pytest.raises(KeyFileUnusable, match=r"cannot use the signing key file .*: .") as error:
        KeyRing(blocker / "scat" / "installation-key.pem").sign_head(*HEAD)
    assert "\n" not in str(error.value) and "SCAT_KEY_FILE" not in str(error.value)  # the CLI names the setting
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a key")
    garbage.chmod(0o600)
    with pytest.raises(KeyFileUnusable, match="is not a PEM Ed25519 private key"):
        KeyRing(garbage).sign_head(*HEAD)


def test_a_signature_verifies_only_for_its_own_game_seq_and_hash(tmp_path: Path) -> None:
    keys = KeyRing(tmp_path / "key.pem")
    signature = keys.sign_head(*HEAD)
    assert verify_head(signature, *HEAD)
    game_id, seq, head_hash = HEAD
    assert not verify_head(signature, "0000000000", seq, head_hash)
    assert not verify_head(signature, game_id, seq + 1, head_hash)
    assert not verify_head(signature, game_id, seq, "cd" * 32)
    assert head_message(*HEAD) == (b'scat-head-signature-v1\n{"game_id":"3f2a1b9c0d","hash":"' + b"ab" * 32
                                   + b'","seq":12}')


def test_a_key_ring_judges_signatures_valid_invalid_unknown_or_unsigned(tmp_path: Path) -> None:
    mine, theirs = KeyRing(tmp_path / "mine.pem"), KeyRing(tmp_path / "theirs.pem")
    assert mine.check(mine.sign_head(*HEAD), *HEAD) == VALID
    assert mine.check(None, *HEAD) == UNSIGNED
    foreign = theirs.sign_head(*HEAD)
    assert mine.check(foreign, *HEAD) == UNKNOWN_KEY
    other = "B" if foreign.signature[10] == "A" else "A"  # a character that differs, whatever the random key
    flipped = HeadSignature(foreign.key_id, foreign.public_key, foreign.signature[:10] + other + foreign.signature[11:])
    assert flipped.signature != foreign.signature and mine.check(flipped, *HEAD) == INVALID
    borrowed = HeadSignature(mine.key_id, mine.public_key, foreign.signature)  # my key, their signature
    assert mine.check(borrowed, *HEAD) == INVALID
    assert mine.trust(theirs.public_key) and not mine.trust(theirs.public_key)
    assert mine.check(foreign, *HEAD) == VALID and mine.who(theirs.public_key) == "trusted"
    assert mine.trust_path.read_text() == f"{theirs.public_key} {theirs.key_id}\n"


def test_a_head_verified_once_is_not_verified_again_and_nothing_else_passes_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """KeyRing remembers verified (signature, head) pairs: a command need not re-verify what the previous signed."""
    mine, theirs = KeyRing(tmp_path / "mine.pem"), KeyRing(tmp_path / "theirs.pem")
    signed, foreign = mine.sign_head(*HEAD), theirs.sign_head(*HEAD)
    calls: list[object] = []
    real = verify_head

    def counting(*args: object) -> bool:
        calls.append(args)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr("scat_core.records.signing.verify_head", counting)
    assert mine.check(signed, *HEAD) == VALID and calls == []  # made here: known good
    game_id, seq, head_hash = HEAD
    assert mine.check(signed, game_id, seq + 1, head_hash) == INVALID  # another head: verified, and fails
    assert mine.check(foreign, *HEAD) == UNKNOWN_KEY and mine.check(foreign, *HEAD) == UNKNOWN_KEY
    assert len(calls) == 2  # the foreign one verified once; trust is still judged every time
    borrowed = HeadSignature(mine.key_id, mine.public_key, foreign.signature)
    assert mine.check(borrowed, *HEAD) == INVALID and mine.check(borrowed, *HEAD) == INVALID and len(calls) == 4


def test_only_public_keys_can_be_trusted(tmp_path: Path) -> None:
    keys = KeyRing(tmp_path / "key.pem")
    for bad in ("", "hello", "A" * 44, "A" * 43 + "=\nB"):
        with pytest.raises(BadInput, match="is not a scat public key"):
            keys.trust(bad)
    assert not keys.trust_path.exists()


def test_a_signature_round_trips_through_its_json_form_and_a_foreign_scheme_is_refused(tmp_path: Path) -> None:
    signature = KeyRing(tmp_path / "key.pem").sign_head(*HEAD)
    assert HeadSignature.from_json(signature.to_json()) == signature
    with pytest.raises(BadInput, match="scheme"):
        HeadSignature.from_json({**signature.to_json(), "scheme": "rsa-md5"})
    with pytest.raises(BadInput, match="not an object of strings"):
        HeadSignature.from_json({"key_id": 1})


def test_racing_first_uses_in_threads_agree_on_one_key(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "scat" / "installation-key.pem"
    with ThreadPoolExecutor(8) as pool:
        public_keys = set(pool.map(lambda _: KeyRing(path).public_key, range(16)))
    assert len(public_keys) == 1 and [p.name for p in path.parent.iterdir()] == ["installation-key.pem"]
