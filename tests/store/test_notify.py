"""PostgreSQL announces each new head of a game (trigger of migration 0006), whatever writes it."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import Engine

from scat_core.domain.commands import Draw
from scat_core.domain.events import PlayerSeat
from scat_core.service.games import GameService
from scat_core.store.database import ensure_schema, make_engine
from scat_core.store.event_store import EventStore
from scat_core.store.notify import Listener, wait_for_head


@pytest.mark.postgres
def test_every_command_is_notified_once_committed(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    ensure_schema(engine)
    games = GameService(EventStore(engine))
    listener = Listener(engine)
    try:
        created = games.create_game([PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], seed=3)
        games.act(created.game_id, Draw("you", "stock"))
        heard = [notice for notice in listener.notices(2.0) if notice[0] == created.game_id]
        assert heard and heard[-1][1] == games.head_seq(created.game_id)
    finally:
        listener.close()
        engine.dispose()


def test_a_waiter_wakes_when_the_head_moves_and_times_out_otherwise(engine: Engine) -> None:
    games = GameService(EventStore(engine))
    created = games.create_game([PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], seed=3)
    head = games.head_seq(created.game_id)
    began = time.monotonic()
    assert not games.wait_for_event(created.game_id, head, timeout=0.3)
    assert 0.3 <= time.monotonic() - began < 3
    games.act(created.game_id, Draw("you", "stock"))
    began = time.monotonic()
    assert wait_for_head(engine, lambda: games.head_seq(created.game_id), head, created.game_id, 5.0)
    assert time.monotonic() - began < 1.0
