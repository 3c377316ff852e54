"""A server claims turns out of move time by itself (R28): two `scat serve` processes sharing one
database (SQLite file and PostgreSQL) make exactly one claim per expiry, and the games audit clean."""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from tests.support.databases import migrated
from tests.support.live_server import server_process

GAMES = 3
#: A generous bound for the outcome to be reached (polled, not a stopwatch on the claims).
PATIENCE = 120.0


def _events(base: str, game: str) -> list[dict[str, object]]:
    return list(httpx.get(f"{base}/games/{game}/log", timeout=30).json()["events"])


@pytest.mark.parametrize("database", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_r28_two_servers_on_one_database_claim_each_expired_turn_exactly_once(
    database: str, request: pytest.FixtureRequest, tmp_path: Path,
) -> None:
    url = str(request.getfixturevalue("postgres_url")) if database == "postgres" else f"sqlite:///{tmp_path}/s.db"
    migrated(url)
    with ExitStack() as stack:
        servers = [stack.enter_context(server_process(url, "--claim-every", "0.2", "--testing")) for _ in range(2)]
        first = servers[0][0]
        # you and kay (humans) and ann (a bot, dealing): you play first, then kay, then ann (R11). The
        # games are seeded: a bot dealt a 31 declares it at once (R20), the hand ends and kay plays first
        body = {"players": [{"name": "you"}, {"name": "kay"}, {"name": "ann", "is_bot": True}], "dealer": "ann",
                "options": {"move_time": 1}}
        games = [httpx.post(f"{first}/games", json={**body, "seed": seed}, timeout=30).json()["game_id"]
                 for seed in range(1, GAMES + 1)]
        give_up = time.monotonic() + PATIENCE
        while time.monotonic() < give_up:  # the list claims nothing itself (a look at a game would)
            finished = httpx.get(f"{first}/games", params={"status": "finished"}, timeout=30).json()
            if len(finished) == GAMES:
                break
            time.sleep(0.25)
        for game in games:
            events = _events(first, game)
            claims = [event for event in events if event["type"] == "Resigned"]
            # each of the two humans let his time run out once: one claim each, by the server itself
            assert [claim["data"] for claim in claims] == [
                {"player": "you", "cause": "move time", "claimed_by": None},
                {"player": "kay", "cause": "move time", "claimed_by": None},
            ]
            assert events[-1]["type"] == "GameWon" and events[-1]["data"]["winner"] == "ann"
            audit = httpx.get(f"{servers[1][0]}/games/{game}/audit", timeout=30).json()
            assert audit["ok"], audit  # no claim recorded before its time (R28)
        logged = 0
        for _, process in servers:
            logged += Path(process.log_path).read_text().count("claimed the turn")  # type: ignore[attr-defined]
        assert logged == 2 * GAMES  # one process made each claim; the other skipped it
