"""A signed move's request is served once, and its nonce costs no commit of its own: the move's
transaction remembers it with the events (scat_core/service/playing.py). A replayed move is 401 with
nothing written, and so is the replay of a move that was refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from scat_cli.server.verify import FAILURES_ALLOWED
from scat_core.domain import commands as cmd
from tests.support.live_server import app_in_thread
from tests.support.signing import Signer


@pytest.fixture
def served(db_url: str) -> Iterator[tuple[httpx.Client, Any]]:
    from tests.support.databases import migrated

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


def signed_draw(ann: Signer, game_id: str) -> tuple[str, bytes, dict[str, str]]:
    """ann's draw in `game_id`, signed at its head: the target, body and headers of one request (to send again)."""
    body = ann.move_body(game_id, cmd.Draw("ann", "stock"))
    target = f"/games/{game_id}/moves"
    return target, body, ann.headers("POST", target, body)


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
    target, body, headers = signed_draw(ann, game_id)
    commits, connections = counted(app, "commit"), counted(app, "checkout")
    moved = ann.post(target, body, headers)
    assert moved.status_code == 200, moved.text
    # the draw, its MoveSigned, the bot's reply, the read model and the nonce: one connection and one
    # transaction, on both databases (the server's commands commit together: commit_groups.py)
    assert len(connections) == 1
    assert len(commits) == 1
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


def test_replayed_moves_are_counted_against_their_address_as_refused_signatures_are(
        served: tuple[httpx.Client, Any], game: tuple[Signer, str]) -> None:
    _, app = served
    ann, game_id = game
    target, body, headers = signed_draw(ann, game_id)
    assert ann.post(target, body, headers).status_code == 200
    for _ in range(FAILURES_ALLOWED):
        assert ann.post(target, body, headers).status_code == 401  # a replay, found by the move's command
    limited = ann.api.get("/games", headers=ann.headers("GET", "/games"))
    assert limited.status_code == 429 and "too many refused signatures" in limited.json()["error"]


def test_a_move_whose_key_the_process_has_not_cached_is_checked_in_a_worker_and_spends_its_nonce(
        served: tuple[httpx.Client, Any], game: tuple[Signer, str]) -> None:
    _, app = served
    ann, game_id = game
    target, body, headers = signed_draw(ann, game_id)
    app.state.server.verifier.keys.forget(ann.key_id)  # read from the database for this request
    assert ann.post(target, body, headers).status_code == 200
    app.state.server.verifier.keys.forget(ann.key_id)
    assert ann.post(target, body, headers).status_code == 401
