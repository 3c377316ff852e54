"""A finished game's result (R26) is that of its ending: what is said at the table afterwards
changes neither when it ended nor how long it lasted. The append that ends a game keeps its
result in the games read model (#42), the very result its events make (an import of a finished
game keeps it too), and `show` reads it there; a kept result of another format, or damaged, is
made from the events again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from scat_cli.wiring import open_database
from scat_core.domain.commands import Resign
from scat_core.domain.events import PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.service import GameService, reading
from scat_core.service.values import game_result, result_kept
from scat_core.store.memory import MemoryStore
from tests.support.databases import migrated
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


def _bot_games(service: GameService) -> list[str]:
    """Finished games of bots: several lengths, each ended by play (the append that ends one keeps its result)."""
    return [service.playing.create_game([PlayerSeat(name=f"bot{i}", is_bot=True) for i in range(seats)], seed=seed,
                                        options=GameOptions(lives=lives)).game_id
            for seats, seed, lives in ((2, 1, 1), (3, 2, 2), (4, 3, 3), (3, 4, 1))]


def test_the_result_kept_by_the_ending_append_is_the_one_the_events_make(any_service: GameService) -> None:
    games = _bot_games(any_service)
    over = any_service.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann").game_id
    any_service.move(over, Resign("you"))  # R27: ended by a resignation, not by play
    for game_id in [*games, over]:
        with any_service.store.read() as tx:
            row = tx.get_game(game_id)
        assert row is not None and row.status == "finished" and row.result is not None
        made = game_result([(s.seq, s.recorded_at, s.event) for s in any_service.reading.history(game_id)])
        assert result_kept(row.result) == made == any_service.reading.game_result(game_id)


def test_show_of_a_finished_game_reads_its_kept_result_not_its_log(monkeypatch: pytest.MonkeyPatch) -> None:
    service = GameService(MemoryStore())
    game_id = _bot_games(service)[0]
    expected = service.reading.game_result(game_id)

    def from_the_log(records: object) -> None:
        raise AssertionError("the result was made from the log again")

    monkeypatch.setattr(reading, "game_result", from_the_log)
    assert service.show(game_id).result == expected


def test_a_kept_result_of_another_format_or_damaged_is_made_from_the_log_again(sqlite_url: str) -> None:
    service = open_database(migrated(sqlite_url))
    game_id = _bot_games(service)[1]
    expected = service.reading.game_result(game_id)
    for kept in ('{"format": 0, "result": {}}', "not json", '{"format": 1, "result": {"game_id": 3}}'):
        with service.store.engine.begin() as conn:
            conn.execute(text("UPDATE games SET result = :r WHERE game_id = :g"), {"r": kept, "g": game_id})
        assert service.reading.game_result(game_id) == expected
    service.store.engine.dispose()


def test_an_imported_finished_game_keeps_the_result_its_events_make(any_service: GameService) -> None:
    source = GameService(MemoryStore())
    game_id = _bot_games(source)[2]
    any_service.import_records(source.archive.export_records(game_id))
    with any_service.store.read() as tx:
        row = tx.get_game(game_id)
    assert row is not None and row.result is not None  # kept by the import, as by the append that ended it
    assert result_kept(row.result) == source.reading.game_result(game_id) == any_service.reading.game_result(game_id)
