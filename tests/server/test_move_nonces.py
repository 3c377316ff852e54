"""A signed move's request is served once, and its nonce costs no commit of its own: the move's
transaction remembers it with the events (scat_core/service/nonces.py). A replayed move is 401 with
nothing written, and so is the replay of a move that was refused."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import event

from scat_cli.server import httpsig
from scat_cli.server.move_request import move_body
from scat_core.domain import commands as cmd
from scat_core.domain.accounts import key_id_of
from scat_core.records.move_signatures import sign_move
from tests.support.live_server import app_in_thread


def public_of(key: Ed25519PrivateKey) -> str:
    return base64.b64encode(key.public_key().public_bytes_raw()).decode("ascii")


class Signer:
    """An account's key, signing requests as the client does (httpsig.sign)."""

    def __init__(self, api: httpx.Client, name: str) -> None:
        self.api, self.key = api, Ed25519PrivateKey.generate()
        self.key_id = key_id_of(public_of(self.key))
        body = json.dumps({"name": name, "public_key": public_of(self.key)}).encode()
        assert self.post("/accounts", body).status_code == 201

    def headers(self, method: str, target: str, body: bytes = b"") -> dict[str, str]:
        return {"content-type": "application/json",
                **httpsig.sign(self.key, self.key_id, method, target, body, int(time.time()))}

    def post(self, target: str, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
        return self.api.post(target, content=body, headers=headers or self.headers("POST", target, body))

    def get(self, target: str) -> Any:
        answer = self.api.get(target, headers=self.headers("GET", target))
        assert answer.status_code == 200, answer.text
        return answer.json()

    def move_body(self, game: str, command: cmd.PlayerCommand) -> bytes:
        """The body of a move signed at the game's head as this account reads it."""
        head = self.get(f"/games/{game}/head")
        signature = sign_move(self.key, self.key_id, game, head["seq"], head["tag"], command)
        return json.dumps({**move_body(command), "signature": signature.to_json()}).encode()


@pytest.fixture
def served(db_url: str) -> Iterator[tuple[httpx.Client, Any]]:
    from tests.support.schema import migrated

    with app_in_thread(migrated(db_url)) as (url, app), httpx.Client(base_url=url, timeout=30) as api:
        yield api, app


@pytest.fixture
def game(served: tuple[httpx.Client, Any]) -> tuple[Signer, str]:
    """ann's game against a bot, ann to draw (the bot deals: seed chosen, --testing)."""
    api, _ = served
    ann = Signer(api, "ann")
    body = json.dumps({"players": [{"name": "ann"}, {"name": "bot", "is_bot": True}], "seed": 7,
                       "dealer": "bot"}).encode()
    created = ann.post("/games", body)
    assert created.status_code == 201, created.text
    return ann, created.json()["game_id"]


def counted(app: Any, name: str) -> list[int]:
    """A list that grows by one at each `name` event of the server's engine ("commit", "checkout")."""
    seen: list[int] = []
    engine = app.state.server.games.store.engine
    event.listen(engine.pool if name == "checkout" else engine, name, lambda *_: seen.append(1))
    return seen


def test_a_signed_move_and_its_nonce_are_one_commit(served: tuple[httpx.Client, Any],
                                                    game: tuple[Signer, str]) -> None:
    api, app = served
    ann, game_id = game
    body = ann.move_body(game_id, cmd.Draw("ann", "stock"))
    target = f"/games/{game_id}/moves"
    headers = ann.headers("POST", target, body)
    commits, connections = counted(app, "commit"), counted(app, "checkout")
    moved = ann.post(target, body, headers)
    assert moved.status_code == 200, moved.text
    # the draw, its MoveSigned, the bot's reply, the read model and the nonce: one connection and, on
    # SQLite, one transaction (PostgreSQL: the nonce's statement, then the append's, in autocommit)
    assert len(connections) == 1
    assert len(commits) == (1 if app.state.server.games.store.engine.dialect.name == "sqlite" else 0)
    head = ann.get(f"/games/{game_id}/head")
    replayed = ann.post(target, body, headers)
    assert replayed.status_code == 401 and "nonce was used already (a replayed request)" in replayed.json()["error"]
    assert replayed.json()["exit_code"] == 3
    assert ann.get(f"/games/{game_id}/head") == head  # nothing written


def test_the_replay_of_a_refused_move_is_refused_as_a_replay(served: tuple[httpx.Client, Any],
                                                            game: tuple[Signer, str]) -> None:
    _, app = served
    ann, game_id = game
    body = ann.move_body(game_id, cmd.Discard("ann", "AS"))  # ann must draw first (R12)
    target = f"/games/{game_id}/moves"
    headers = ann.headers("POST", target, body)
    refused = ann.post(target, body, headers)
    assert refused.status_code == 422 and refused.json()["rule"] == "R12", refused.text
    replayed = ann.post(target, body, headers)
    assert replayed.status_code == 401 and "nonce was used already" in replayed.json()["error"]


def test_a_signed_read_still_spends_its_nonce_before_it_is_answered(served: tuple[httpx.Client, Any],
                                                                   game: tuple[Signer, str]) -> None:
    api, _ = served
    ann, game_id = game
    headers = ann.headers("GET", f"/games/{game_id}")
    assert api.get(f"/games/{game_id}", headers=headers).status_code == 200
    replayed = api.get(f"/games/{game_id}", headers=headers)
    assert replayed.status_code == 401 and "nonce was used already" in replayed.json()["error"]
