"""The server's sweep (R28) on a clock the test moves: it claims the turns out of time, once,
tells the waiters of each game claimed, and leaves the others alone."""

from __future__ import annotations

from scat_cli.server.sweep import sweep_once
from scat_core.domain import events as ev
from scat_core.domain.options import GameOptions
from scat_core.service import GameService
from scat_core.store.memory import MemoryStore
from tests.support.clock import HandClock

HOUR = 3600
SEATS = [ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bob"), ev.PlayerSeat(name="cy", is_bot=True)]


def test_r28_a_sweep_claims_each_turn_out_of_time_once_and_tells_its_game() -> None:
    clock = HandClock()
    service = GameService(MemoryStore(), clock)
    hour = service.playing.create_game(SEATS, options=GameOptions(move_time=HOUR), dealer="cy", protect=True).game_id
    day = service.playing.create_game(SEATS, options=GameOptions(move_time=24 * HOUR), dealer="cy").game_id
    untimed = service.playing.create_game(SEATS, dealer="cy").game_id
    told: list[str] = []
    clock.advance(HOUR - 1)
    assert sweep_once(service, told.append) == 0
    clock.advance(1)
    assert sweep_once(service, told.append) == 1
    assert told == [hour]
    claimed = service.reading.history(hour)[-1]
    assert claimed.event == ev.Resigned(player="ann", cause="move time", claimed_by=None)
    assert sweep_once(service, told.append) == 0  # bob's hour has just begun
    assert [len(service.reading.history(game)) for game in (day, untimed)] == [2, 2]
    assert service.audit(hour).ok
