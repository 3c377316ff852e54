"""An account's key in a test of the server: it registers, signs requests as the client does
(httpsig.sign) and signs moves at the game's head."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import httpx
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from scat_cli.wire import httpsig
from scat_cli.wire.move_request import move_body
from scat_core.domain import commands as cmd
from scat_core.domain.accounts import key_id_of
from scat_core.records.signing import sign_move


def public_of(key: Ed25519PrivateKey) -> str:
    """The public key of `key` as the server stores it (base64)."""
    return base64.b64encode(key.public_key().public_bytes_raw()).decode("ascii")


def server_key_of(api: httpx.Client) -> str:
    """The key id of the server at `api` (`GET /key`), which every signed request to it names."""
    answer = api.get("/key")
    assert answer.status_code == 200, answer.text
    return str(answer.json()["key_id"])


class Signer:
    """An account of the server at `api`, registered as `name` with a key of its own."""

    def __init__(self, api: httpx.Client, name: str) -> None:
        self.api, self.name, self.key = api, name, Ed25519PrivateKey.generate()
        self.server = server_key_of(api)
        self.key_id = key_id_of(public_of(self.key))
        body = json.dumps({"name": name, "public_key": public_of(self.key)}).encode()
        registered = self.post("/accounts", body)
        assert registered.status_code == 201, registered.text

    def headers(self, method: str, target: str, body: bytes = b"") -> dict[str, str]:
        """The headers that sign this request now."""
        return {"content-type": "application/json",
                **httpsig.sign(self.key, self.key_id, method, target, body, int(time.time()), self.server)}

    def post(self, target: str, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
        """POST `body` to `target`, signed (with `headers` if given: a replay)."""
        return self.api.post(target, content=body, headers=headers or self.headers("POST", target, body))

    def get(self, target: str) -> Any:
        """The JSON of a signed GET of `target` (asserted 200)."""
        answer = self.api.get(target, headers=self.headers("GET", target))
        assert answer.status_code == 200, answer.text
        return answer.json()

    def move_body(self, game: str, command: cmd.PlayerCommand | cmd.TableCommand) -> bytes:
        """The body of a move signed at the game's head as this account reads it."""
        head = self.get(f"/games/{game}/head")
        signature = sign_move(self.key, self.key_id, game, head["seq"], head["tag"], command)
        return json.dumps({**move_body(command), "signature": signature.to_json()}).encode()

    def move(self, game: str, command: cmd.PlayerCommand | cmd.TableCommand) -> Any:
        """Make `command` in `game`, signed; the answer's JSON (asserted 200)."""
        moved = self.post(f"/games/{game}/moves", self.move_body(game, command))
        assert moved.status_code == 200, moved.text
        return moved.json()
