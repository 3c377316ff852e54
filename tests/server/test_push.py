"""A server's event stream on PostgreSQL hears a move another process committed: by its notice
at once, and by looking at the game when the notice was lost."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from scat_cli.remote.client import RemoteGames
from scat_cli.wiring import open_database
from scat_core.domain.commands import Draw
from scat_core.service.games import GameService
from tests.support.databases import migrated
from tests.support.live_server import server_in_thread
from tests.support.services import HUMAN_AND_BOT


@pytest.fixture
def pg_db(postgres_url: str) -> str:
    """A migrated PostgreSQL database for the server."""
    return migrated(postgres_url)


def wait_through_the_server(server_url: str, mover: GameService, game_id: str) -> bool:
    """Whether the stream of a client waiting through the server (up to 30 s) brings a move made
    beside the server (straight on the database); the 120 s only guard against a hang."""
    after = mover.head_seq(game_id)
    with RemoteGames(server_url) as client, ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(client.wait_for_event, game_id, after, 30.0)
        time.sleep(0.5)  # the stream is open and waiting
        assert not waiting.done()
        mover.playing.act(game_id, Draw("you", "stock"))
        return bool(waiting.result(timeout=120.0))


@pytest.mark.postgres
def test_the_stream_is_woken_by_the_notice_of_a_move_made_elsewhere(
    pg_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the stream looks at the database only every hour: only the notice can bring the move
    # within the waiter's 30 s
    monkeypatch.setattr("scat_cli.server.app.PUSHED_POLL_SECONDS", 3600.0)
    mover = open_database(migrated(pg_db))
    game_id = mover.playing.create_game(HUMAN_AND_BOT, seed=3).game_id
    with server_in_thread(pg_db) as url:
        assert wait_through_the_server(url, mover, game_id) is True
    mover.store.engine.dispose()


@pytest.mark.postgres
def test_the_stream_finds_a_move_whose_notice_was_lost(pg_db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("scat_cli.server.app.PUSHED_POLL_SECONDS", 0.5)
    mover = open_database(migrated(pg_db))
    game_id = mover.playing.create_game(HUMAN_AND_BOT, seed=3).game_id
    monkeypatch.setattr("scat_core.store.sql.event_store.announce", lambda conn, heads: None)  # the notice is lost
    with server_in_thread(pg_db) as url:
        assert wait_through_the_server(url, mover, game_id) is True  # by looking: no notice went out
    mover.store.engine.dispose()
