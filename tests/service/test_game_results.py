"""A finished game's result (R26) is that of its ending: what is said at the table afterwards
changes neither when it ended nor how long it lasted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from scat_core.domain.commands import Resign
from scat_core.service import GameService
from scat_core.store.memory import MemoryStore
from tests.support.services import HUMAN_AND_BOT


def test_a_message_after_the_end_moves_neither_the_end_nor_the_duration() -> None:
    now = [datetime(2026, 12, 6, 9, 0, tzinfo=UTC)]
    service = GameService(MemoryStore(), clock=lambda: now[0])
    game = service.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann").game_id
    now[0] += timedelta(minutes=5)
    human = "you"  # against the bot ann
    assert service.move(game, Resign(human)).state.status == "finished"  # R27: the bot is left, and wins
    ended = service.reading.game_result(game)
    now[0] += timedelta(hours=2)
    service.say(game, human, "well played")
    after = service.reading.game_result(game)
    assert after.ended_at == ended.ended_at
    assert after.duration_seconds == ended.duration_seconds == 300
    assert service.reading.history(game)[-1].type == "MessageSaid"
