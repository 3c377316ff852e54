"""`POST /waiting`, the one stream of `wait --any` for all of a player's games: who may open it
(his own tokens, the one identity check), the cursor it begins with, and what it finds."""

from __future__ import annotations

import json

import httpx

from tests.support.decks import stacked

# you are dealt first (bob deals): eve waits
DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["6H", "6D", "2S"]], "7C", ["8C", "3H", "6S", "JD"])


def new_game(api: httpx.Client) -> tuple[str, dict[str, str]]:
    body = {"players": [{"name": "you"}, {"name": "eve"}, {"name": "bob", "is_bot": True}], "dealer": "bob",
            "deck": DEAL.split(), "viewer": "you"}
    created = api.post("/games", json=body)
    assert created.status_code == 201, created.text
    return created.json()["game_id"], created.json()["tokens"]


def events(api: httpx.Client, body: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    """The named events of one stream read to its end."""
    named: list[tuple[str, dict[str, object]]] = []
    kind = ""
    with api.stream("POST", "/waiting", json=body) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                named.append((kind, json.loads(line[5:])))
    return named


def test_a_wait_for_any_turn_with_no_token_of_the_player_is_refused_at_once(api: httpx.Client) -> None:
    game, tokens = new_game(api)
    for sent in ({}, {game: tokens["you"]}, {game: "wrong"}, {"nosuchgame": tokens["eve"]}):
        refused = api.post("/waiting", json={"player": "eve", "tokens": sent})
        assert refused.status_code in (401, 403) and refused.json()["exit_code"] == 3, refused.text
        assert "none of the tokens sent is eve's" in refused.json()["error"]


def test_the_stream_begins_with_its_cursor_and_ends_with_the_game_that_waits(api: httpx.Client) -> None:
    first, first_tokens = new_game(api)
    second, second_tokens = new_game(api)
    you = {"authorization": f"Bearer {second_tokens['you']}"}
    for move in ({"player": "you", "source": "stock"}, {"player": "you", "card": "2C"}):
        kind = "draw" if "source" in move else "discard"
        assert api.post(f"/games/{second}/{kind}", json=move, headers=you).status_code == 200
    tokens = {first: first_tokens["eve"], second: second_tokens["eve"], "nosuchgame": "x"}
    (told, cursor), (found, waited) = events(api, {"player": "eve", "tokens": tokens})
    assert (told, found) == ("told", "found")
    assert cursor == {"since": cursor["since"], "turns": {}, "ended": []}
    shown = waited["shown"]
    assert isinstance(shown, dict) and shown["game_id"] == second and shown["viewer"] == "eve"
    assert waited["told"]["turns"] == {second: shown["state"]["turn_began"]}
    assert "5D" not in json.dumps(shown)  # your hand stays hidden from eve
