"""Every player move is one endpoint, `POST /games/{id}/moves`, whose body is told apart by `move`
and derived from the domain's commands; the per-move URLs of before still work (deprecated);
the --server client sends every move and claim there."""

from __future__ import annotations

import time
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args, get_type_hints

import httpx
import pytest

from scat_cli.remote.client import RemoteGames
from scat_cli.server.move_wire import ClaimMove, command_of, parsed
from scat_cli.wire import bodies
from scat_core.domain import commands as cmd
from scat_core.domain.commands import move_fields
from tests.support.decks import stacked

# you are dealt first (bob deals): you 2C 5D 9H, eve KS QS 4D, bob 6H 6D 2S; discard 7C; stock 8C 3H ...
DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["6H", "6D", "2S"]], "7C", ["8C", "3H", "6S", "JD"])
THIRTY_ONE = stacked([["AS", "KS", "QS"], ["2D", "3D", "4H"]], "7C", ["8C", "3H"])


def sample(kind: type[cmd.PlayerCommand]) -> cmd.PlayerCommand:
    """A command of the move `kind`, made from its fields' types: a Literal's last value, else a card."""
    hints = get_type_hints(kind)
    return kind(**{part.name: "you" if part.name == "player" else (get_args(hints[part.name]) or ("10H",))[-1]
                   for part in fields(kind)})


#: One command of each move a player sends, as the client makes it (a new move is in it at once).
SAMPLES = {kind: sample(kind) for kind in cmd.MOVES}


def test_every_legal_move_offered_is_sent_as_the_body_that_makes_it_with_its_rule() -> None:
    """The moves a service's answer offers (`Shown.moves`) travel as the move's body and the rule
    that allows it, and are read back the same; a look (R23), which is no body of /moves, too."""
    from pydantic import TypeAdapter

    from scat_core.service.values import Move

    sent = TypeAdapter(Move)
    for kind in get_args(cmd.PlayerCommand):
        offered = cmd.LegalMove.of(sample(kind))
        body = sent.dump_python(offered, mode="json")
        assert body == {**bodies.move_body(offered.command), "rule": kind.rule}, kind
        assert sent.validate_python(body) == offered
        if kind in cmd.MOVES:
            assert command_of(parsed({key: value for key, value in body.items() if key != "rule"})) == offered.command
    with pytest.raises(ValueError, match="not a move"):
        sent.validate_python({"move": "juggle", "player": "you", "rule": "R1"})
    assert "Move" in TypeAdapter(Move).json_schema()["title"]


def new_game(api: httpx.Client, deck: str = DEAL, eve: bool = True, **extra: Any) -> tuple[str, dict[str, str]]:
    """A game of you and eve (humans; without eve if not `eve`) and bob (a bot dealing): its id and
    each human's Authorization header."""
    players = [{"name": "you"}, *([{"name": "eve"}] if eve else []), {"name": "bob", "is_bot": True}]
    created = api.post("/games", json={"players": players, "dealer": "bob", "deck": deck.split(), **extra})
    assert created.status_code == 201, created.text
    return created.json()["game_id"], {name: f"Bearer {token}" for name, token in created.json()["tokens"].items()}


def move(api: httpx.Client, game: str, token: str, **body: Any) -> httpx.Response:
    return api.post(f"/games/{game}/moves", json=body, headers={"authorization": token})


def test_every_move_a_player_sends_has_a_body_derived_from_its_command() -> None:
    assert {cmd.Draw, cmd.Discard, cmd.Knock, cmd.Declare31, cmd.ThrowDown, cmd.Resign} <= set(SAMPLES)
    for kind, command in SAMPLES.items():
        body = bodies.move_body(command)
        assert body["move"] == kind.verb
        assert command_of(parsed(body)) == command  # what the client sends, the server reads back
    claim = parsed(bodies.move_body(cmd.ClaimTime("eve", wire_epoch(), wire_epoch())))
    assert isinstance(claim, ClaimMove) and claim.player == "eve"
    # the signed form of each move is as before: its class's name and its fields
    assert move_fields(SAMPLES[cmd.Draw]) == {"type": "Draw", "player": "you", "source": "discard"}
    assert move_fields(SAMPLES[cmd.Discard]) == {"type": "Discard", "player": "you", "card": "10H"}
    assert move_fields(SAMPLES[cmd.ThrowDown]) == {"type": "ThrowDown", "player": "you"}


def wire_epoch() -> Any:
    from datetime import UTC, datetime

    return datetime(1970, 1, 1, tzinfo=UTC)


def test_a_draw_a_discard_a_knock_and_a_resignation_go_through_moves(api: httpx.Client) -> None:
    game, tokens = new_game(api)
    drawn = move(api, game, tokens["you"], move="draw", player="you", source="stock")
    assert drawn.status_code == 200, drawn.text
    assert drawn.json()["state"]["hands"][0] == ["2C", "5D", "9H", "8C"]
    discarded = move(api, game, tokens["you"], move="discard", player="you", card="2c")  # read as 2C
    assert discarded.status_code == 200, discarded.text
    assert discarded.json()["state"]["discard"][-1] == "2C"
    knocked = move(api, game, tokens["eve"], move="knock", player="eve")
    assert knocked.status_code == 200, knocked.text
    assert knocked.json()["state"]["knocker"] is not None
    resigned = move(api, game, tokens["you"], move="resign", player="you")
    assert resigned.status_code == 200, resigned.text
    assert [event["type"] for event in resigned.json()["events"]][0] == "Resigned"


def test_a_declaration_and_a_throw_down_go_through_moves(api: httpx.Client) -> None:
    game, tokens = new_game(api, THIRTY_ONE, eve=False, options={"lives": 1, "no_dole": True})
    declared = move(api, game, tokens["you"], move="declare", player="you")
    assert declared.status_code == 200 and declared.json()["state"]["status"] == "finished", declared.text
    game, tokens = new_game(api, options={"throw_down": True})
    thrown = move(api, game, tokens["you"], move="throw-down", player="you")
    assert thrown.status_code == 200, thrown.text
    assert "ThrowDownCalled" in [event["type"] for event in thrown.json()["events"]]


def test_a_claim_goes_through_moves_and_its_time_is_the_servers(api: httpx.Client) -> None:
    waiting, waiting_tokens = new_game(api, options={"move_time": 3600})  # its time runs out in no test's run
    early = move(api, waiting, waiting_tokens["eve"], move="claim", player="eve")
    assert early.status_code == 422 and "R28" in early.json()["error"], early.text
    game, tokens = new_game(api, options={"move_time": 1})
    time.sleep(1.2)  # out of time by now, however slow the machine
    claimed = move(api, game, tokens["eve"], move="claim", player="eve")
    assert claimed.status_code == 200, claimed.text
    assert any(event["type"] == "Resigned" and event["data"]["claimed_by"] == "eve"
               for event in claimed.json()["events"])


@pytest.mark.parametrize(("body", "wrong"), [
    ({"player": "you", "source": "stock"}, "move"),  # no move named
    ({"move": "fly", "player": "you"}, "fly"),  # no such move
    ({"move": "draw", "player": "you"}, "source"),  # a draw needs its source
    ({"move": "draw", "player": "you", "source": "top"}, "source"),
    ({"move": "discard", "player": "you"}, "card"),
    ({"move": "discard", "player": "you", "card": "1X"}, "is not a card"),
    ({"move": "knock", "player": "you", "card": "2C"}, "card"),  # a field the move has not
    ({"move": "knock"}, "player"),
    ({"move": "claim", "player": "eve", "source": "stock"}, "source"),
    ({"move": "knock", "player": "you", "signature": {"seq": 1}}, "signature"),
])
def test_a_malformed_move_is_refused_as_bad_input_naming_what_is_wrong(api: httpx.Client, body: dict[str, Any],
                                                                       wrong: str) -> None:
    game, tokens = new_game(api)
    before = api.get(f"/games/{game}/log").json()["state"]["version"]
    refused = move(api, game, tokens["you"], **body)
    assert refused.status_code == 400 and refused.json()["exit_code"] == 2, refused.text
    assert wrong in refused.json()["error"] and "\n" not in refused.json()["error"]
    assert api.get(f"/games/{game}/log").json()["state"]["version"] == before  # nothing was played


def test_a_move_refused_by_the_rules_is_422_naming_the_rule(api: httpx.Client) -> None:
    game, tokens = new_game(api)
    refused = move(api, game, tokens["you"], move="discard", player="you", card="2C")
    assert refused.status_code == 422 and "(R12)" in refused.json()["error"]


def test_the_per_move_urls_of_before_still_work_and_are_deprecated(api: httpx.Client) -> None:
    game, tokens = new_game(api)
    you = {"authorization": tokens["you"]}
    assert api.post(f"/games/{game}/draw", json={"player": "you", "source": "stock"}, headers=you).status_code == 200
    discarded = api.post(f"/games/{game}/discard", json={"player": "you", "card": "2c"}, headers=you)
    assert discarded.status_code == 200 and discarded.json()["state"]["discard"][-1] == "2C"
    knock = api.post(f"/games/{game}/knock", json={"player": "eve", "card": "AS"}, headers={"authorization":
                                                                                         tokens["eve"]})
    assert knock.status_code == 200, knock.text  # a field the move has not is ignored there, as before
    missing = api.post(f"/games/{game}/draw", json={"player": "you"}, headers=you)
    assert missing.status_code == 400 and "source" in missing.json()["error"]
    claim = api.post(f"/games/{game}/claim", json={"player": "eve"}, headers={"authorization": tokens["eve"]})
    assert claim.status_code == 422 and "R28" in claim.json()["error"], claim.text
    paths = api.get("/openapi.json").json()["paths"]
    for verb in ("draw", "discard", "knock", "declare", "throw-down", "resign", "claim"):
        assert paths[f"/games/{{game_id}}/{verb}"]["post"]["deprecated"] is True
    moves = paths["/games/{game_id}/moves"]["post"]
    assert not moves.get("deprecated")
    assert {"400", "401", "403", "404", "409", "422", "429", "503"} <= set(moves["responses"])


def test_the_client_sends_every_move_and_claim_to_moves(server_url: str, api: httpx.Client, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no account: tokens
    game, tokens = new_game(api)
    sent: list[tuple[str, str, Any]] = []
    with RemoteGames(server_url) as remote:
        request = remote.http.request

        def recorded(method: str, path: str, **options: Any) -> Any:
            sent.append((method, path, options.get("json")))
            return request(method, path, **options)

        monkeypatch.setattr(remote.http, "request", recorded)
        you, eve = tokens["you"].split()[1], tokens["eve"].split()[1]
        remote.move(game, cmd.Draw("you", "stock"), you)
        remote.move(game, cmd.Discard("you", "2C"), you)
        with pytest.raises(Exception, match="R28"):
            remote.claim(game, "eve", eve)
    sent = [request for request in sent if request[:2] != ("GET", "/key")]  # the first contact: the server's key
    assert [(method, path) for method, path, _ in sent] == [("POST", f"/games/{game}/moves")] * 3
    assert [body for _, _, body in sent] == [{"move": "draw", "player": "you", "source": "stock"},
                                             {"move": "discard", "player": "you", "card": "2C"},
                                             {"move": "claim", "player": "eve"}]
