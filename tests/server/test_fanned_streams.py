"""Event streams that fan out (#23): one follower per game hands every open stream each new event
once, in order, as its viewer may see it; many streams cost no more store reads per move than
one; streams over a cap are refused (429, Retry-After); a follower nobody listens to stops."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from scat_cli.wiring import open_database
from tests.support.databases import migrated
from tests.support.decks import stacked
from tests.support.live_server import app_in_thread

# you are dealt first (bob, a bot, deals): you act first, then eve
DEAL = stacked([["2C", "5D", "9H"], ["KS", "QS", "4D"], ["6H", "6D", "2S"]], "7C", ["8C", "3H", "6S", "JD", "4C"])
#: A generous bound for an outcome to be reached (polled, not a stopwatch).
PATIENCE = 60.0

Seen = tuple[int, str, dict[str, Any]]


@pytest.fixture
def served(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Any]]:
    """A live server (with room for many streams from this test's one address) and its app; the
    followers look at the store only when told of a move (no timed look during a test)."""
    monkeypatch.setattr("scat_cli.server.app.PUSHED_POLL_SECONDS", 3600.0)
    monkeypatch.setattr("scat_cli.server.app.POLL_SECONDS", 3600.0)
    monkeypatch.setattr("scat_cli.server.app.KEEP_ALIVE_SECONDS", 3600.0)
    with app_in_thread(migrated(db_url), max_streams_per_address=1000) as served:
        yield served


def new_game(url: str, throw_down: bool = False) -> tuple[str, dict[str, str]]:
    """A game of you, eve and bob (a bot), you to act: (its id, the humans' tokens)."""
    body: dict[str, Any] = {"players": [{"name": "you"}, {"name": "eve"}, {"name": "bob", "is_bot": True}],
                            "dealer": "bob", "deck": DEAL.split(), "viewer": "you"}
    if throw_down:
        body["options"] = {"throw_down": True}
    created = httpx.post(f"{url}/games", json=body, timeout=30)
    assert created.status_code == 201, created.text
    return created.json()["game_id"], created.json()["tokens"]


def a_turn(url: str, game: str, player: str, token: str) -> int:
    """`player` draws from the stock and discards the first card of his hand; the head's seq after."""
    headers = {"authorization": f"Bearer {token}"}
    drawn = httpx.post(f"{url}/games/{game}/draw", json={"player": player, "source": "stock"}, headers=headers,
                       timeout=30)
    assert drawn.status_code == 200, drawn.text
    state = drawn.json()["state"]
    seat = next(p["seat"] for p in state["players"] if p["name"] == player)
    card = state["hands"][seat - 1][0]
    discarded = httpx.post(f"{url}/games/{game}/discard", json={"player": player, "card": card}, headers=headers,
                           timeout=30)
    assert discarded.status_code == 200, discarded.text
    return int(discarded.json()["events"][-1]["seq"])


def parse(lines: list[str]) -> list[Seen]:
    """(seq, type, data) of each event among a stream's lines."""
    seen, seq, kind = [], 0, ""
    for line in lines:
        if line.startswith("id:"):
            seq = int(line[3:])
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:") and kind != "stopping":
            seen.append((seq, kind, json.loads(line[5:])))
    return seen


async def streams_through_a_move(url: str, game: str, opened: list[dict[str, Any]],
                                 move: Any) -> tuple[list[list[Seen]], Any]:
    """Open one stream per item of `opened` (query parameters, and "token"), all at once; once every
    one is open, `move()` (in a thread), then read each until it has the events up to the head
    `move` returns (its int, or the first of its tuple). Each stream's events, and what `move` returned."""
    limits = httpx.Limits(max_connections=len(opened) + 10, max_keepalive_connections=0)
    ready = asyncio.Semaphore(0)
    lines: list[list[str]] = [[] for _ in opened]
    last = [0] * len(opened)

    async def one(client: httpx.AsyncClient, params: dict[str, Any], index: int) -> None:
        headers = {"authorization": f"Bearer {params['token']}"} if "token" in params else {}
        query = {key: value for key, value in params.items() if key != "token"}
        async with client.stream("GET", f"/games/{game}/events", params=query, headers=headers) as response:
            assert response.status_code == 200, await response.aread()
            ready.release()
            async for line in response.aiter_lines():
                lines[index].append(line)
                if line.startswith("id:"):
                    last[index] = int(line[3:])

    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=PATIENCE) as client:
        tasks = [asyncio.create_task(one(client, params, index)) for index, params in enumerate(opened)]
        for _ in opened:
            await asyncio.wait_for(ready.acquire(), PATIENCE)
        moved = await asyncio.to_thread(move)
        head = moved if isinstance(moved, int) else moved[0]
        deadline = time.monotonic() + PATIENCE
        while min(last) < head and time.monotonic() < deadline and not any(task.done() for task in tasks):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # anything sent after the head would be read too (and fail the test)
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass
    return [parse(these) for these in lines], moved


def test_many_streams_of_one_game_each_get_a_moves_events_once_and_in_order(served: tuple[str, Any]) -> None:
    url, _ = served
    game, tokens = new_game(url)
    start = a_turn(url, game, "you", tokens["you"])
    opened = [{"after": start}] * 20 + [{"after": start, "as": "eve", "token": tokens["eve"]}] * 10
    seen, head = asyncio.run(streams_through_a_move(url, game, opened, lambda: a_turn(url, game, "eve", tokens["eve"])))
    for events in seen:
        assert [seq for seq, _, _ in events] == list(range(start + 1, head + 1))
        assert [kind for _, kind, _ in events][:2] == ["CardDrawn", "CardDiscarded"]


def test_a_stream_opened_after_n_gets_only_the_events_after_n(served: tuple[str, Any]) -> None:
    url, _ = served
    game, tokens = new_game(url)
    a_turn(url, game, "you", tokens["you"])
    for after in (0, 3, 5):
        seen, head = asyncio.run(streams_through_a_move(
            url, game, [{"after": after}], lambda: a_turn(url, game, "eve", tokens["eve"])))
        assert [seq for seq, _, _ in seen[0]] == list(range(after + 1, head + 1))
        a_turn(url, game, "you", tokens["you"])


def count_reads(app: Any) -> list[int]:
    """A counter of the store reads of the server (every `store.read()` of its service)."""
    store, counted = app.state.server.games.store, [0]
    read = store.read

    def counting() -> Any:
        counted[0] += 1
        return read()

    store.read = counting
    return counted


def test_a_flood_of_streams_fails_no_move_and_adds_no_store_read_to_it(served: tuple[str, Any]) -> None:
    url, app = served
    game, tokens = new_game(url)
    counted = count_reads(app)
    reads: dict[int, int] = {}
    head = 0
    for flood, player in ((1, "you"), (200, "eve")):
        def move(player: str = player) -> tuple[int, int]:
            before = counted[0]
            return a_turn(url, game, player, tokens[player]), before

        seen, (head_now, before) = asyncio.run(streams_through_a_move(url, game, [{"after": head}] * flood, move))
        reads[flood] = counted[0] - before  # the move's own reads, and the follower's
        assert all([seq for seq, _, _ in events][-1] == head_now for events in seen)
        head = head_now
    # the follower reads once per request of the turn (a draw, a discard) on this process's notice
    # and, on PostgreSQL, maybe once more on the database's notice of the same move: never once
    # per stream (with one read per stream, 200 streams would add 400)
    assert reads[200] <= reads[1] + 2, reads


def test_streams_over_the_cap_of_one_address_are_refused_with_429_and_a_retry_after(db_url: str) -> None:
    with app_in_thread(migrated(db_url), max_streams_per_address=2) as (url, app):
        game, _ = new_game(url)
        stream = f"{url}/games/{game}/events"
        with httpx.stream("GET", stream, timeout=PATIENCE) as one, \
                httpx.stream("GET", stream, timeout=PATIENCE) as two:
            assert (one.status_code, two.status_code) == (200, 200)
            refused = httpx.get(f"{url}/games/{game}/events", timeout=PATIENCE)
            assert refused.status_code == 429
            assert refused.headers["retry-after"] == "5"
            assert refused.json() == {"error": "too many open event streams from 127.0.0.1 (at most 2 per "
                                               "address): close one or try again later", "exit_code": 3}
            waiting = httpx.post(f"{url}/waiting", json={"player": "eve", "tokens": {}}, timeout=PATIENCE)
            assert waiting.status_code == 429  # `wait --any`'s streams count too
        assert eventually(lambda: app.state.server.caps.count == 0)  # the streams that ended are given back
        with httpx.stream("GET", f"{url}/games/{game}/events", timeout=PATIENCE) as again:
            assert again.status_code == 200


def test_streams_over_the_cap_of_the_process_are_refused_whatever_their_address(db_url: str) -> None:
    with app_in_thread(migrated(db_url), max_streams=1) as (url, _):
        game, _ = new_game(url)
        with httpx.stream("GET", f"{url}/games/{game}/events", timeout=PATIENCE) as one:
            assert one.status_code == 200
            refused = httpx.get(f"{url}/games/{game}/events", timeout=PATIENCE)
        assert refused.status_code == 429 and refused.headers["retry-after"] == "5"
        assert refused.json()["error"] == "too many open event streams on this server (at most 1): try again later"


def test_the_429_of_the_streams_is_in_the_openapi_document(db_url: str) -> None:
    with app_in_thread(migrated(db_url)) as (url, _):
        paths = httpx.get(f"{url}/openapi.json", timeout=PATIENCE).json()["paths"]
    for path, method in (("/games/{game_id}/events", "get"), ("/waiting", "post")):
        assert "429" in paths[path][method]["responses"], path


def eventually(check: Any) -> bool:
    """Whether `check()` holds within PATIENCE seconds (asked again and again)."""
    deadline = time.monotonic() + PATIENCE
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_the_follower_of_a_game_stops_when_its_last_stream_goes_away(served: tuple[str, Any]) -> None:
    url, app = served
    game, tokens = new_game(url)
    with httpx.Client(base_url=url, timeout=PATIENCE) as client:
        with client.stream("GET", f"/games/{game}/events") as one:
            assert one.status_code == 200
            assert game in app.state.server.followers.following
    assert eventually(lambda: game not in app.state.server.followers.following)
    assert eventually(lambda: app.state.server.caps.count == 0)
    a_turn(url, game, "you", tokens["you"])  # nobody follows: a move is read by nobody
    assert app.state.server.followers.following == {}


def test_a_wait_for_any_turn_whose_client_hangs_up_ends_at_once_not_at_its_next_keep_alive(
        served: tuple[str, Any]) -> None:
    """Keep-alives here come once an hour: the stream's end is the client's hang-up heard."""
    url, app = served
    game, tokens = new_game(url)  # you to act: eve waits
    with httpx.Client(base_url=url, timeout=PATIENCE) as client:
        with client.stream("POST", "/waiting", json={"player": "eve", "tokens": {game: tokens["eve"]}}) as waiting:
            assert waiting.status_code == 200
            lines = waiting.iter_lines()
            assert next(lines).startswith("event: told")
            assert app.state.server.caps.count == 1, [next(lines, None) for _ in range(6)]
    assert eventually(lambda: app.state.server.caps.count == 0)


def test_each_viewer_sees_in_the_stream_what_the_games_log_shows_him(served: tuple[str, Any]) -> None:
    url, _ = served
    game, tokens = new_game(url)
    start = a_turn(url, game, "you", tokens["you"])
    opened = [{"after": start}, {"after": start, "as": "you", "token": tokens["you"]},
              {"after": start, "as": "EVE", "token": tokens["eve"]}]
    seen, _ = asyncio.run(streams_through_a_move(url, game, opened, lambda: a_turn(url, game, "eve", tokens["eve"])))
    logs = [httpx.get(f"{url}/games/{game}/log", params=params, headers=headers, timeout=30).json()["events"]
            for params, headers in (({}, {}), ({"as": "you"}, {"authorization": f"Bearer {tokens['you']}"}),
                                    ({"as": "eve"}, {"authorization": f"Bearer {tokens['eve']}"}))]
    for events, log in zip(seen, logs, strict=True):
        assert [data for _, _, data in events] == [event for event in log if event["seq"] > start]
    public, yours, eves = ([data["data"] for _, _, data in events] for events in seen)
    assert public[0]["card"] == "??" and yours[0]["card"] == "??"  # eve's card from the stock: hers alone
    assert eves[0]["card"] != "??"


def test_a_player_watching_a_throw_down_game_is_shown_his_new_hand_as_his_log_would(
    served: tuple[str, Any],
) -> None:
    url, _ = served
    game, tokens = new_game(url, throw_down=True)
    you = {"authorization": f"Bearer {tokens['you']}"}

    def knock_and_end_the_hand() -> int:
        # eve to draw after you knock: she and you finish the round, the hand ends, bob deals again
        assert httpx.post(f"{url}/games/{game}/knock", json={"player": "you"}, headers=you,
                          timeout=30).status_code == 200
        return a_turn(url, game, "eve", tokens["eve"])

    start = httpx.get(f"{url}/games/{game}/log", timeout=30).json()["events"][-1]["seq"]
    opened = [{"after": start, "as": "eve", "token": tokens["eve"]}]
    seen, head = asyncio.run(streams_through_a_move(url, game, opened, knock_and_end_the_hand))
    kinds = [kind for _, kind, _ in seen[0]]
    assert kinds[-1] == "HandViewed" and seen[0][-1][2]["data"] == {"player": "eve"}, kinds  # her look
    assert seen[0][-1][0] == head + 1  # recorded once the move was made, before she was told of it
    deal = next(data["data"]["deck"] for _, kind, data in seen[0] if kind == "HandDealt")
    assert len([card for card in deal if card != "??"]) == 4  # her three cards and the discard pile's top
    log = httpx.get(f"{url}/games/{game}/log", params={"as": "eve"},
                    headers={"authorization": f"Bearer {tokens['eve']}"}, timeout=30).json()["events"]
    assert [data for _, _, data in seen[0]] == [event for event in log if event["seq"] > start]


def test_scat_serve_offers_the_caps_of_open_streams_with_the_apps_defaults() -> None:
    import inspect

    from scat_cli.serve_command import serve
    from scat_cli.server import app

    options = inspect.signature(serve).parameters
    assert options["max_streams_per_address"].default == app.MAX_STREAMS_PER_ADDRESS == 50
    assert options["max_streams"].default == app.MAX_STREAMS == 2000


def a_turn_beside_the_server(mover: Any, game: str, player: str) -> int:
    """`player` draws from the stock and discards his first card, straight on the database (as
    another process would); the head's seq after."""
    from scat_core.domain.commands import Discard, Draw

    drawn = mover.playing.act(game, Draw(player, "stock"))
    seat = drawn.state.seat_of(player)
    return int(mover.playing.act(game, Discard(player, drawn.state.hands[seat][0])).state.version)


def test_on_sqlite_the_servers_one_look_at_the_log_brings_a_move_made_elsewhere_to_every_stream(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:  # (PostgreSQL tells the server of such a move by its notice: tests/server/test_push.py)
    from scat_core.domain.events import PlayerSeat

    # streams and followers look at the game themselves only every hour: only the process's look
    # at the log (each 0.2 s here) can bring the move
    monkeypatch.setattr("scat_cli.server.app.PUSHED_POLL_SECONDS", 3600.0)
    monkeypatch.setattr("scat_cli.server.app.POLL_SECONDS", 0.2)
    monkeypatch.setattr("scat_cli.server.app.KEEP_ALIVE_SECONDS", 0.2)
    database = migrated(sqlite_url)
    mover = open_database(migrated(database))
    seats = [PlayerSeat(name="you"), PlayerSeat(name="eve"), PlayerSeat(name="bob", is_bot=True)]
    game = mover.playing.create_game(seats, dealer="bob", deck=DEAL.split()).game_id
    with app_in_thread(database) as (url, _):
        start = mover.head_seq(game)
        opened = [{"after": start}] * 5
        seen, head = asyncio.run(streams_through_a_move(url, game, opened,
                                                        lambda: a_turn_beside_the_server(mover, game, "you")))
        for events in seen:
            assert [seq for seq, _, _ in events] == list(range(start + 1, head + 1))
        with httpx.stream("POST", f"{url}/waiting", json={"player": "you", "tokens": {game: "-"}},
                          timeout=PATIENCE) as waiting:
            kinds, deadline = [], time.monotonic() + PATIENCE
            for line in waiting.iter_lines():
                if time.monotonic() > deadline:  # (a keep-alive comes each 0.2 s: this is reached)
                    break
                if line.startswith("event:"):
                    kinds.append(line[6:].strip())
                    if kinds == ["told"]:
                        a_turn_beside_the_server(mover, game, "eve")  # now it is your turn again
        assert kinds == ["told", "found"]
    mover.store.engine.dispose()
