"""A protected game keeps each human's token hashed: a new game as its SHA-256 (checked without a
scrypt, in any process), a game made before as the salted scrypt hash it had, which still lets its
players play in a process that never saw their tokens (records/credentials.py)."""

from __future__ import annotations

from typing import Any

import pytest

from scat_core.domain.commands import Draw
from scat_core.domain.errors import AuthFailed
from scat_core.records import credentials
from scat_core.service import GameService, loading
from tests.support.services import protected_game


@pytest.mark.usefixtures("scrypt_games")
def test_a_game_whose_tokens_were_stored_as_scrypt_is_played_with_them_by_another_process(
        any_service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    game, token = protected_game(any_service)
    with any_service.store.read() as tx:
        assert tx.get_token_hash(game, "ann").startswith("scrypt$")
    monkeypatch.setattr(credentials, "VERIFIED_TOKENS", {})  # another process knows only the stored hash
    monkeypatch.setattr(loading, "proven_for", lambda *args: False)
    with pytest.raises(AuthFailed, match=f"wrong token for ann in game {game}"):
        any_service.move(game, Draw("ann", "stock"), "wrong")
    assert any_service.move(game, Draw("ann", "stock"), token).state.phase == "discard"


def test_a_new_games_tokens_are_stored_as_their_sha256_and_checked_without_scrypt(
        any_service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    game, token = protected_game(any_service)
    with any_service.store.read() as tx:
        assert tx.get_token_hash(game, "ann") == credentials.hash_token(token)

    def no_scrypt(*args: Any) -> bytes:
        raise AssertionError("scrypt ran for a token stored as its SHA-256")

    monkeypatch.setattr(credentials, "scrypt_hash", no_scrypt)
    monkeypatch.setattr(loading, "proven_for", lambda *args: False)  # as in another process
    with pytest.raises(AuthFailed, match=f"wrong token for ann in game {game}"):
        any_service.move(game, Draw("ann", "stock"), "wrong")
    assert any_service.move(game, Draw("ann", "stock"), token).state.phase == "discard"
