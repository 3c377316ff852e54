"""Two `scat serve` processes on one PostgreSQL database, racing on one game: the store's
optimistic concurrency lets exactly one move win each race, loses nothing, and the game
audits clean."""

from __future__ import annotations

import threading
from collections import Counter

import httpx
import pytest

from tests.support.databases import migrated
from tests.support.live_server import server_process

ROUNDS = 12


@pytest.mark.postgres
def test_two_servers_racing_on_one_game_let_exactly_one_move_win(postgres_url: str) -> None:
    migrated(postgres_url)
    with server_process(postgres_url) as (first, _), server_process(postgres_url) as (second, _):
        created = httpx.post(f"{first}/games", json={"players": [{"name": "you"}, {"name": "ann", "is_bot": True}]},
                             timeout=30).json()
        game, token = created["game_id"], created["tokens"]["you"]
        headers = {"authorization": f"Bearer {token}"}
        statuses: Counter[int] = Counter()
        for _ in range(ROUNDS):
            state = httpx.get(f"{first}/games/{game}", params={"as": "you"}, headers=headers, timeout=30).json()
            if state["state"]["status"] == "finished":
                break
            if state["state"]["phase"] == "draw":
                path, body = "draw", {"player": "you", "source": "stock"}
            else:
                path, body = "discard", {"player": "you", "card": state["state"]["hands"][0][0]}
            barrier, results = threading.Barrier(4), []

            def race(base: str, path: str = path, body: dict[str, str] = body,
                     barrier: threading.Barrier = barrier, results: list[int] = results) -> None:
                with httpx.Client(base_url=base, timeout=30) as client:
                    barrier.wait()
                    results.append(client.post(f"/games/{game}/{path}", json=body, headers=headers).status_code)

            racers = [threading.Thread(target=race, args=(base,)) for base in (first, second, first, second)]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join(60)
            assert results.count(200) == 1, results  # exactly one wins
            assert set(results) <= {200, 409, 422}, results  # the others: a conflict, or too late by the rules
            statuses.update(results)
        assert statuses[200] >= 2
        audit = httpx.get(f"{second}/games/{game}/audit", timeout=30).json()
        assert audit["ok"], audit
        log = httpx.get(f"{second}/games/{game}/log", timeout=30).json()["events"]
        assert [event["seq"] for event in log] == list(range(1, len(log) + 1))  # nothing lost, no gap
