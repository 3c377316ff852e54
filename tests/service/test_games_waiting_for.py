"""The games list waiting for NAME: the running games where NAME is to act, newest first, in any case."""

from __future__ import annotations

from scat_core.domain import events as ev
from scat_core.domain.commands import Resign
from scat_core.service import GameService
from scat_core.store.memory import MemoryStore


def test_games_waiting_for_a_name_are_the_running_games_where_he_is_to_act_newest_first() -> None:
    service = GameService(MemoryStore())
    humans = [ev.PlayerSeat(name="Ann"), ev.PlayerSeat(name="bob")]
    first = service.playing.create_game(humans, dealer="bob").game_id  # Ann plays first (R11)
    service.playing.create_game(humans, dealer="Ann")  # bob plays first
    ended = service.playing.create_game(humans, dealer="bob").game_id
    service.playing.act(ended, Resign("bob"))  # Ann won: she waits no more
    last = service.playing.create_game(humans, dealer="bob").game_id
    assert [row.game_id for row in service.reading.list_games("active", "ANN")] == [last, first]
    assert [row.game_id for row in service.reading.list_games("active", "ann", limit=1)] == [last]
