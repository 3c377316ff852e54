"""In-flight requests per server process are capped to the connection pool: the excess waits, none fails."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from scat_cli.server.inflight import pool_capacity
from scat_core.service.games import GameService
from scat_core.store.sql.database import make_engine


def concurrency_peak(monkeypatch: pytest.MonkeyPatch, capacity: int) -> Callable[[], int]:
    """Make every `show` hold its worker thread until `capacity` of them run at once; the peak seen."""
    lock, full = threading.Lock(), threading.Event()
    running, peak = [0], [0]
    real = GameService.show

    def held(self: GameService, *args: Any, **kwargs: Any) -> Any:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            if running[0] >= capacity:
                full.set()
        try:
            full.wait(30)  # until `capacity` run at once: a cap above the pool would then show (30 s: a hang guard)
            return real(self, *args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(GameService, "show", held)
    return lambda: peak[0]


def test_requests_beyond_the_pool_wait_for_a_worker_and_all_succeed(
    server_db: str, server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(server_db)
    capacity = pool_capacity(engine)
    engine.dispose()
    with httpx.Client(base_url=server_url, timeout=60) as api:
        game = api.post("/games", json={"players": [{"name": "ann"}, {"name": "bob"}]}).json()["game_id"]
    peak = concurrency_peak(monkeypatch, capacity)
    statuses: list[int] = []

    def client() -> None:
        with httpx.Client(base_url=server_url, timeout=120) as own:
            statuses.append(own.get(f"/games/{game}").status_code)

    threads = [threading.Thread(target=client) for _ in range(capacity * 2 + 5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert statuses == [200] * len(threads)
    assert peak() == capacity  # never more requests in flight than connections, and the cap is reached
