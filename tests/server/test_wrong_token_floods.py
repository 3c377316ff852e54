"""Past a few wrong game tokens from one client address its requests with tokens wait (429,
Retry-After), as refused signatures do, and a `wait --any` that sends many made-up tokens is
refused after a few, not one check per token: in a game made before tokens were hashed with
SHA-256, each check of a wrong token costs a server a 16 MiB scrypt. (That a wrong token's scrypt
holds no writer: tests/service/test_wrong_tokens_hold_no_writer.py.)"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from scat_cli.server.verify import FAILURES_ALLOWED
from scat_core.records import credentials
from tests.support.signing import Signer


def new_game(api: httpx.Client) -> tuple[str, dict[str, str]]:
    """A game of you and eve (you to act) with a bot: its id and tokens."""
    created = api.post("/games", json={"players": [{"name": "you"}, {"name": "eve"}, {"name": "bob", "is_bot": True}],
                                       "dealer": "bob", "seed": 4})
    assert created.status_code == 201, created.text
    return created.json()["game_id"], created.json()["tokens"]


def draw(api: httpx.Client, game: str, token: str) -> httpx.Response:
    return api.post(f"/games/{game}/moves", json={"move": "draw", "player": "you", "source": "stock"},
                    headers={"authorization": f"Bearer {token}"})


def test_past_a_few_wrong_tokens_an_address_waits_before_its_tokens_are_looked_at(api: httpx.Client) -> None:
    game, given = new_game(api)
    for attempt in range(FAILURES_ALLOWED):
        wrong = draw(api, game, f"wrong-{attempt}")
        assert wrong.status_code == 403 and f"wrong token for you in game {game}" in wrong.json()["error"]
    limited = draw(api, game, given["you"])  # the address waits, whatever token it sends now
    assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
    assert limited.json()["exit_code"] == 3
    assert "too many refused tokens from this address: try again in" in limited.json()["error"]
    assert api.get("/health").status_code == 200  # a request without a token is not held back
    assert api.get(f"/games/{game}").status_code == 200


@pytest.mark.usefixtures("scrypt_games")
def test_a_wait_for_any_turn_with_many_made_up_tokens_costs_a_few_scrypts(
        api: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    games = [new_game(api)[0] for _ in range(FAILURES_ALLOWED + 3)]  # eve sits in each
    scrypts: list[int] = []
    real = credentials.scrypt_hash

    def counted(*args: Any) -> bytes:
        scrypts.append(1)
        return real(*args)

    monkeypatch.setattr(credentials, "scrypt_hash", counted)  # the server runs in this process (a thread)
    refused = api.post("/waiting", json={"player": "eve", "tokens": {game: f"made-up-{game}" for game in games}})
    assert refused.status_code == 401 and refused.json()["exit_code"] == 3, refused.text
    assert f"{FAILURES_ALLOWED} of the tokens sent are not eve's (games " in refused.json()["error"]
    assert len(scrypts) == FAILURES_ALLOWED
    again = api.post("/waiting", json={"player": "eve", "tokens": {games[0]: "made-up"}})
    assert again.status_code == 429 and "too many refused tokens" in again.json()["error"]
    assert len(scrypts) == FAILURES_ALLOWED  # refused before any scrypt


def test_wrong_tokens_in_a_wait_for_any_turn_count_even_below_the_limit(api: httpx.Client) -> None:
    games = [new_game(api)[0] for _ in range(FAILURES_ALLOWED - 1)]
    refused = api.post("/waiting", json={"player": "eve", "tokens": {game: "made-up" for game in games}})
    assert refused.status_code == 401 and "none of the tokens sent is eve's" in refused.json()["error"]
    game, given = new_game(api)
    assert draw(api, game, "wrong").status_code == 403  # the tenth wrong token from this address
    limited = draw(api, game, given["you"])
    assert limited.status_code == 429 and "too many refused tokens" in limited.json()["error"]


def test_an_accounts_signed_wait_with_wrong_tokens_is_limited_too(api: httpx.Client) -> None:
    eve = Signer(api, "eve")  # an account eve, sending tokens of the token games' eve
    games = [new_game(api)[0] for _ in range(FAILURES_ALLOWED)]
    body = json.dumps({"player": "eve", "tokens": {game: "made-up" for game in games}}).encode()
    refused = api.post("/waiting", content=body, headers=eve.headers("POST", "/waiting", body))
    assert refused.status_code == 401 and "are not eve's" in refused.json()["error"], refused.text
    again = json.dumps({"player": "eve", "tokens": {games[0]: "made-up"}}).encode()
    limited = api.post("/waiting", content=again, headers=eve.headers("POST", "/waiting", again))
    assert limited.status_code == 429 and "too many refused tokens" in limited.json()["error"]


def test_a_wait_for_any_turn_without_tokens_is_not_held_back_by_wrong_tokens_from_its_address(
        api: httpx.Client) -> None:
    ann = Signer(api, "ann")
    body = json.dumps({"players": [{"name": "ann"}, {"name": "zed", "is_bot": True}], "seed": 2}).encode()
    assert ann.post("/games", body).status_code == 201  # a game of ann's account, waiting for her
    game, given = new_game(api)
    for attempt in range(FAILURES_ALLOWED):
        assert draw(api, game, f"wrong-{attempt}").status_code == 403
    assert draw(api, game, given["you"]).status_code == 429  # tokens from this address wait
    sent = json.dumps({"player": "ann", "tokens": {}}).encode()  # her account proves her: no token
    with api.stream("POST", "/waiting", content=sent, headers=ann.headers("POST", "/waiting", sent)) as waiting:
        assert waiting.status_code == 200
        assert any(line.startswith("event: found") for line in waiting.iter_lines())


def burst(url: str, count: int, request: Callable[[httpx.Client], httpx.Response]) -> list[int]:
    """The statuses of `count` requests sent at once, each on a connection of its own."""
    statuses: list[int] = []
    start = threading.Barrier(count)

    def one() -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            start.wait()
            statuses.append(request(client).status_code)

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return statuses


@pytest.mark.usefixtures("scrypt_games")
def test_a_burst_of_wrong_tokens_sent_at_once_costs_at_most_the_allowed_scrypts(
        api: httpx.Client, server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game, _ = new_game(api)
    scrypts: list[int] = []
    real = credentials.scrypt_hash

    def counted(*args: Any) -> bytes:
        scrypts.append(1)
        return real(*args)

    monkeypatch.setattr(credentials, "scrypt_hash", counted)
    statuses = burst(server_url, 3 * FAILURES_ALLOWED, lambda client: draw(client, game, "wrong"))
    assert sorted(set(statuses)) == [403, 429] and len(statuses) == 3 * FAILURES_ALLOWED
    assert 1 <= len(scrypts) <= FAILURES_ALLOWED  # the attempts in flight counted as they came


def test_a_burst_of_requests_with_a_token_proven_here_is_not_held_back(api: httpx.Client, server_url: str) -> None:
    game, given = new_game(api)  # its tokens were issued by this server: proven here
    you = {"authorization": f"Bearer {given['you']}"}
    statuses = burst(server_url, 2 * FAILURES_ALLOWED, lambda client: client.get(f"/games/{game}?as=you", headers=you))
    assert statuses == [200] * 2 * FAILURES_ALLOWED
