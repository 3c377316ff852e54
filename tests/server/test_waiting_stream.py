"""`POST /waiting`, the one stream of `wait --any` for all of a player's games: who may open it
(his own tokens, the one identity check), the cursor it begins with, and what it finds."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from scat_core.domain.commands import AcceptSeat, Discard, Draw
from tests.support.decks import stacked
from tests.support.signing import Signer

# you are dealt first (bob deals): eve waits
DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["6H", "6D", "2S"]], "7C", ["8C", "3H", "6S", "JD"])


def new_game(api: httpx.Client) -> tuple[str, dict[str, str]]:
    body = {"players": [{"name": "you"}, {"name": "eve"}, {"name": "bob", "is_bot": True}], "dealer": "bob",
            "deck": DEAL.split(), "viewer": "you"}
    created = api.post("/games", json=body)
    assert created.status_code == 201, created.text
    return created.json()["game_id"], created.json()["tokens"]


def events(api: httpx.Client, sent: dict[str, object], account: Signer | None = None,
           meanwhile: Callable[[], None] = lambda: None) -> list[tuple[str, dict[str, object]]]:
    """The named events of one stream read to its end (signed by `account`, if given); `meanwhile`
    runs once its first event (the cursor) is in."""
    body = json.dumps(sent).encode()
    headers = account.headers("POST", "/waiting", body) if account is not None else {"content-type": "application/json"}
    named: list[tuple[str, dict[str, object]]] = []
    kind = ""
    with api.stream("POST", "/waiting", content=body, headers=headers) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("data:"):
                named.append((kind, json.loads(line[5:])))
                if kind == "told":
                    meanwhile()
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


def test_an_accounts_wait_counts_a_token_game_only_with_the_token_of_its_player(api: httpx.Client) -> None:
    """On a server of accounts and tokens, the account eve is not the eve of a token game: a
    finished game shows to anyone, but its end is news for her only with that eve's token; a
    made-up one is not counted, and her account's game is what she is told of (R27: resigned)."""
    eve, ann = Signer(api, "eve"), Signer(api, "ann")
    body = json.dumps({"players": [{"name": "ann"}, {"name": "eve"}], "seed": 3}).encode()
    created = ann.post("/games", body)
    assert created.status_code == 201, created.text
    account_game = created.json()["game_id"]
    eve.move(account_game, AcceptSeat("eve"))  # R28: a game of accounts waits for their consent

    def turn_of(account: Signer) -> None:
        """Play the other's turn (draw, discard his first card) if it is his: then it is `account`'s."""
        state = account.get(f"/games/{account_game}?as={account.name}")["state"]
        other = ann if account is eve else eve
        if state["players"][state["turn"] - 1]["name"] == other.name:
            other.move(account_game, Draw(other.name, "stock"))
            hand = other.get(f"/games/{account_game}?as={other.name}")["state"]["hands"][state["turn"] - 1]
            other.move(account_game, Discard(other.name, hand[0]))

    turn_of(ann)  # ann is to act: the game waits for eve only once ann has played

    def end_then_play(token_game: str, tokens: dict[str, str]) -> Callable[[], None]:
        def meanwhile() -> None:  # the token game ends (bob, a bot, wins), then ann makes it eve's turn
            for player in ("you", "eve"):
                resigned = api.post(f"/games/{token_game}/moves", json={"move": "resign", "player": player},
                                    headers={"authorization": f"Bearer {tokens[player]}"})
                assert resigned.status_code == 200, resigned.text
            turn_of(eve)
        return meanwhile

    token_game, tokens = new_game(api)
    made_up = events(api, {"player": "eve", "tokens": {token_game: "made-up"}}, eve, end_then_play(token_game, tokens))
    assert [kind for kind, _ in made_up] == ["told", "found"]
    assert made_up[1][1]["shown"]["game_id"] == account_game  # not the other eve's game, over before it
    turn_of(ann)
    token_game, tokens = new_game(api)
    proven = events(api, {"player": "eve", "tokens": {token_game: tokens["eve"]}}, eve,
                    end_then_play(token_game, tokens))
    assert proven[1][1]["shown"]["game_id"] == token_game  # with that eve's own token, its end is news


def test_a_wait_may_send_at_most_max_tokens_and_more_is_refused_before_any_is_looked_up(api: httpx.Client) -> None:
    """Each token is a look-up (a wrong one of an old game a scrypt): one request's work is bounded by MAX_TOKENS."""
    from scat_cli.wire.bodies import MAX_TOKENS

    game, tokens = new_game(api)
    flood = {f"{n:010x}": "x" * 40 for n in range(MAX_TOKENS)} | {game: tokens["eve"]}
    refused = api.post("/waiting", json={"player": "eve", "tokens": flood})
    assert refused.status_code == 400 and str(MAX_TOKENS) in refused.text, refused.text


def test_the_client_sends_the_newest_tokens_it_remembers_up_to_max_tokens(
        server_url: str, api: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user who remembers more tokens than a wait may send still waits, on the games he joined last."""
    from scat_cli.remote.client import RemoteGames
    from scat_cli.wire import bodies

    monkeypatch.setattr(bodies, "MAX_TOKENS", 2)
    older, older_tokens = new_game(api)
    game, tokens = new_game(api)
    you = {"authorization": f"Bearer {tokens['you']}"}
    for move in ({"player": "you", "source": "stock"}, {"player": "you", "card": "2C"}):
        assert api.post(f"/games/{game}/{'draw' if 'source' in move else 'discard'}", json=move,
                        headers=you).status_code == 200
    remembered = {"0000000000": "x", older: older_tokens["eve"], game: tokens["eve"]}  # oldest first
    sent: list[object] = []
    with RemoteGames(server_url) as remote:
        stream = remote.http.stream

        def spied(*args: object, **kwargs: object) -> object:
            sent.append(kwargs.get("json"))
            return stream(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(remote.http, "stream", spied)
        waited = remote.wait_for_any_turn("eve", remembered, timeout=30)
    assert waited.shown is not None and waited.shown.game_id == game
    assert [body["tokens"] for body in sent] == [{older: older_tokens["eve"], game: tokens["eve"]}]  # type: ignore[index]
