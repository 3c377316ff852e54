"""The HTTP API of `scat serve`: auth, errors as one line with their status, limits, no leaks."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from scat_core.domain.cards import DECK
from tests.support.decks import stacked
from tests.support.live_server import server_in_thread

# you are dealt first (bob deals): you 2C 5D 9H, eve KS QS 4D, bob 6H 6D 2S; discard 7C; stock 8C 3H ...
DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["6H", "6D", "2S"]], "7C", ["8C", "3H", "6S", "JD"])


def create(api: httpx.Client, **extra: Any) -> dict[str, Any]:
    """A game of you and eve (humans) and bob (a bot dealing), on a stacked deck; its response."""
    body = {"players": [{"name": "you"}, {"name": "eve"}, {"name": "bob", "is_bot": True}], "dealer": "bob",
            "deck": DEAL.split(), **extra}
    response = api.post("/games", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def test_health_names_the_database(api: httpx.Client, db_url: str) -> None:
    assert api.get("/health").json() == {"status": "ok", "database": "sqlite" if "sqlite" in db_url else "postgresql"}


def test_monitoring_tools_may_ask_for_health_with_head(api: httpx.Client) -> None:
    asked = api.head("/health")
    assert asked.status_code == 200 and asked.content == b""


def test_every_game_on_a_server_is_protected_and_tokens_are_bearer_credentials(api: httpx.Client) -> None:
    created = create(api)
    game, tokens = created["game_id"], created["tokens"]
    assert set(tokens) == {"you", "eve"} and created["state"]["protected"]
    missing = api.post(f"/games/{game}/draw", json={"player": "you", "source": "stock"})
    assert missing.status_code == 401 and missing.json()["exit_code"] == 3
    assert "is protected" in missing.json()["error"]
    wrong = api.post(f"/games/{game}/draw", json={"player": "you", "source": "stock"}, headers=auth(tokens["eve"]))
    message = f"wrong token for you in game {game}"
    assert wrong.status_code == 403 and wrong.json() == {"error": message, "exit_code": 3, "type": "WrongToken",
                                                         "message": message, "game_id": game, "player": "you"}
    moved = api.post(f"/games/{game}/draw", json={"player": "you", "source": "stock"}, headers=auth(tokens["you"]))
    assert moved.status_code == 200 and moved.json()["state"]["hands"][0] == ["2C", "5D", "9H", "8C"]


def test_refusals_carry_one_line_and_the_exit_code_older_clients_read(api: httpx.Client) -> None:
    created = create(api)
    game, you = created["game_id"], auth(created["tokens"]["you"])
    cases = [
        (api.post(f"/games/{game}/discard", json={"player": "you", "card": "2C"}, headers=you), 422, 1, "(R12)"),
        (api.post(f"/games/{game}/discard", json={"player": "you", "card": "1X"}, headers=you), 400, 2,
         "is not a card"),
        (api.get("/games/nosuchgame"), 404, 4, "no game 'nosuchgame'"),
        (api.get(f"/games/{game}", params={"as": "zoe"}), 404, 4, "no player 'zoe'"),
        (api.post(f"/games/{game}/draw", json={"player": "you", "source": "top"}, headers=you), 400, 2, "source"),
        (api.post(f"/games/{game}/knock", content=b"{not json", headers=you), 400, 2, "bad request"),
        (api.post("/games", json={"players": "you"}), 400, 2, "bad request"),
        (api.get("/no/such/path"), 404, 4, "Not Found"),
    ]
    for response, status, code, text in cases:
        body = response.json()
        assert (response.status_code, body["exit_code"]) == (status, code), body
        assert text in body["error"] and "\n" not in body["error"]


def test_seed_and_deck_are_refused_unless_the_server_is_for_testing(server_db: str) -> None:
    with server_in_thread(server_db, testing=False) as url:
        for extra in ({"seed": 7}, {"deck": DECK}):
            response = httpx.post(f"{url}/games", json={"players": [{"name": "you"}, {"name": "ann", "is_bot": True}],
                                                        **extra})
            assert response.status_code == 400 and "refuses --seed and --deck" in response.json()["error"]
        response = httpx.post(f"{url}/games", json={"players": [{"name": "you"}, {"name": "ann", "is_bot": True}]})
        assert response.status_code == 201


def test_request_bodies_over_the_limit_are_refused_with_413(api: httpx.Client) -> None:
    response = api.post("/games", content=b"x" * (65 * 1024), headers={"content-type": "application/json"})
    assert response.status_code == 413 and response.json()["exit_code"] == 2

    def chunks() -> Any:  # no Content-Length: counted as it arrives
        for _ in range(70):
            yield b" " * 1024

    chunked = api.post("/games", content=chunks(), headers={"content-type": "application/json"})
    assert chunked.status_code == 413


def hidden_cards(state: dict[str, Any], viewer_seat: int | None) -> set[str]:
    """The cards nobody but their holder may see: the stock, and every other hand."""
    hidden = set(state["stock"]) | set(state["discard"][:-1])
    for seat, hand in enumerate(state["hands"]):
        if seat != viewer_seat:
            hidden |= set(hand)
    return hidden - {"??"}


def test_no_response_carries_a_card_its_viewer_may_not_see(api: httpx.Client) -> None:
    created = create(api, viewer="you")
    game, tokens = created["game_id"], created["tokens"]
    text = json.dumps(created)
    assert '"KS"' not in text and '"QS"' not in text and '"8C"' not in text  # eve's hand, the stock
    assert created["state"]["hands"][0] == ["2C", "5D", "9H"] and created["state"]["hands"][1] == ["??"] * 3
    you, eve = auth(tokens["you"]), auth(tokens["eve"])
    api.post(f"/games/{game}/draw", json={"player": "you", "source": "stock"}, headers=you)  # you take 8C
    api.post(f"/games/{game}/discard", json={"player": "you", "card": "2C"}, headers=you)
    responses = {
        "eve's view": api.get(f"/games/{game}", params={"as": "eve"}, headers=eve),
        "public view": api.get(f"/games/{game}"),
        "eve's log": api.get(f"/games/{game}/log", params={"as": "eve"}, headers=eve),
        "public log": api.get(f"/games/{game}/log"),
        "eve's replay": api.get(f"/games/{game}/replay", params={"as": "eve", "to": 3}, headers=eve),
        "eve's move": api.post(f"/games/{game}/draw", json={"player": "eve", "source": "stock"}, headers=eve),
        "games": api.get("/games"),
    }
    for name, response in responses.items():
        assert response.status_code == 200, (name, response.text)
        body = response.text
        for card in ("5D", "9H", "8C"):  # your hand: eve and the public never see it
            assert f'"{card}"' not in body, (name, card)
        hashes = re.findall(r'"hash":\s*"([^"]*)"', body)  # every event shown has its hash blanked
        assert body.count('"hash"') == len(hashes), name
        assert set(hashes) == (set() if name in ("public view", "games") else {""}), name
    export = api.get(f"/games/{game}/export")
    assert export.status_code == 422 and "still running" in export.json()["error"]
    state = responses["eve's move"].json()["state"]
    assert hidden_cards(state, 1) == set() and state["hands"][1] == ["KS", "QS", "4D", "3H"]


def test_a_finished_game_exports_and_imports_through_the_server(api: httpx.Client, server_db: str) -> None:
    thirty_one = stacked([["AS", "KS", "QS"], ["2D", "3D", "4H"]], "7C", ["8C", "3H"])
    body = {"players": [{"name": "you"}, {"name": "bob", "is_bot": True}], "dealer": "bob",
            "deck": thirty_one.split(), "options": {"lives": 1, "no_dole": True}}
    created = api.post("/games", json=body).json()
    game = created["game_id"]
    moved = api.post(f"/games/{game}/declare", json={"player": "you"}, headers=auth(created["tokens"]["you"]))
    assert moved.json()["state"]["status"] == "finished", moved.text
    records = api.get(f"/games/{game}/export").json()["records"]
    assert records[-1]["type"] == "GameWon"
    again = api.post("/import", json={"records": records})
    assert again.status_code == 422 and "already in this database" in again.json()["error"]
    forged = [dict(r) for r in records]
    forged[2] = {**forged[2], "data": {**forged[2]["data"], "card": "2S"}}
    refused = api.post("/import", json={"records": forged})
    assert refused.status_code == 422 and "tampered" in refused.json()["error"]
    assert api.get(f"/games/{game}/audit").json()["ok"] is True


def test_seats_count_from_1_in_every_state_sent_as_the_cli_counts_them(api: httpx.Client) -> None:
    created = create(api, viewer="you")
    state = created["state"]
    assert [(player["name"], player["seat"]) for player in state["players"]] == [("you", 1), ("eve", 2), ("bob", 3)]
    assert state["seats"] == {"you": 1, "eve": 2, "bob": 3}
    assert (state["dealer"], state["turn"], state["knocker"]) == (3, 1, None)  # bob deals, you play first (R11)
    assert created["before"]["dealer"] == 0  # before the first deal: no dealer yet
    you = auth(created["tokens"]["you"])
    api.post(f"/games/{created['game_id']}/draw", json={"player": "you", "source": "stock"}, headers=you)
    api.post(f"/games/{created['game_id']}/discard", json={"player": "you", "card": "2C"}, headers=you)
    shown = api.get(f"/games/{created['game_id']}", params={"as": "you"}, headers=you).json()["state"]
    assert (shown["turn"], shown["had_turn"]) == (2, [1])


def test_show_with_look_false_records_no_look_at_a_face_down_hand(api: httpx.Client) -> None:
    created = create(api, options={"throw_down": True})
    game, token = created["game_id"], created["tokens"]["you"]
    unseen = api.get(f"/games/{game}", params={"as": "you", "look": "false"}, headers=auth(token))
    assert unseen.status_code == 200, unseen.text
    assert unseen.json()["state"]["hands"][0] == ["??", "??", "??"]
    assert 1 not in api.get(f"/games/{game}").json()["state"]["looked"]  # seats count from 1: you are 1
    looked = api.get(f"/games/{game}", params={"as": "you"}, headers=auth(token)).json()
    assert looked["state"]["hands"][0] == ["2C", "5D", "9H"]
    assert 1 in api.get(f"/games/{game}").json()["state"]["looked"]
