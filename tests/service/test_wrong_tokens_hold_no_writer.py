"""A token is proven before a command takes its turn to write: in a game made before tokens were
hashed with SHA-256, a wrong token costs a scrypt (about 50 ms, 16 MiB), and a flood of them must
not hold SQLite's one writer (nor a PostgreSQL connection) while every other game's moves wait
behind it. The command's own check, in its transaction, then costs a SHA-256 for a token proven
before. (A new game's tokens are stored as their SHA-256: tests/service/test_player_tokens_kept_hashed.py.)"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from scat_cli.wiring import open_database
from scat_core.domain.commands import Discard, Draw
from scat_core.domain.errors import AuthFailed
from scat_core.records import credentials
from scat_core.service import GameService
from tests.support.databases import migrated
from tests.support.services import protected_game

PATIENCE = 60.0


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def service(request: pytest.FixtureRequest) -> Iterator[GameService]:
    service = open_database(migrated(str(request.getfixturevalue(f"{request.param}_url"))))
    yield service
    service.store.engine.dispose()


@pytest.mark.usefixtures("scrypt_games")
def test_a_move_waits_for_no_wrong_tokens_scrypt(service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    slow, honest = protected_game(service), protected_game(service)
    in_scrypt, release = threading.Event(), threading.Event()
    real = credentials.scrypt_hash

    def scrypt(token: str, *args: Any) -> bytes:  # the wrong token's scrypt lasts until released
        if token == "wrong":
            in_scrypt.set()
            release.wait(PATIENCE)
        return real(token, *args)

    monkeypatch.setattr(credentials, "scrypt_hash", scrypt)
    refused: list[BaseException] = []

    def wrong() -> None:
        try:
            service.move(slow[0], Draw("ann", "stock"), "wrong")
        except AuthFailed as error:
            refused.append(error)

    flood = threading.Thread(target=wrong)
    flood.start()
    try:
        assert in_scrypt.wait(PATIENCE)
        moved: list[Any] = []
        honest_move = threading.Thread(target=lambda: moved.append(service.move(honest[0], Draw("ann", "stock"),
                                                                                honest[1])))
        honest_move.start()
        honest_move.join(PATIENCE)  # while the wrong token's scrypt still runs
        assert moved and moved[0].state.phase == "discard"
    finally:
        release.set()
        flood.join(PATIENCE)
    assert refused and f"wrong token for ann in game {slow[0]}" in str(refused[0])


@pytest.mark.usefixtures("scrypt_games")
def test_a_token_proven_once_costs_no_scrypt_again(service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    game, token = protected_game(service)
    scrypts: list[str] = []
    real = credentials.scrypt_hash

    def counted(token: str, *args: Any) -> bytes:
        scrypts.append(token)
        return real(token, *args)

    monkeypatch.setattr(credentials, "scrypt_hash", counted)
    with service.store.read() as tx:
        assert tx.get_token_hash(game, "ann").startswith("scrypt$")  # a check of it could cost a scrypt
    service.move(game, Draw("ann", "stock"), token)  # this process made it (scrypt_stored): proven already
    state = service.show(game, "ann", token).state
    service.move(game, Discard("ann", state.hands[state.turn][0]), token)
    assert scrypts == []
