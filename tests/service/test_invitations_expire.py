"""Invitations not all answered in time cancel the game (R28 consent; cli.md: 7 days unless the
creator chose another span): the server's sweep, or any look at the game, records it at that
instant or later, never before; the audit re-decides it from the recorded times."""

from __future__ import annotations

import pytest

from scat_core.domain import events as ev
from scat_core.service.games import GameService
from scat_core.store.memory import MemoryStore
from tests.support.clock import HandClock

SEATS = [ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bob"), ev.PlayerSeat(name="cy", is_bot=True)]


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture
def server(clock: HandClock) -> GameService[MemoryStore]:
    return GameService(MemoryStore(), clock, server=True)


def test_the_sweep_cancels_a_game_whose_invitations_expired_at_that_instant_not_before(
    server: GameService[MemoryStore], clock: HandClock,
) -> None:
    game = server.new_game_of_accounts(SEATS, viewer="ann", expires=3600).game_id
    assert server.reading.list_games()[0].move_deadline is not None  # the sweep finds it by its expiry
    clock.advance(3599)
    assert server.expired_turns() == [] and server.claim_overdue(game) is None
    clock.advance(1)
    assert server.expired_turns() == [game]
    outcome = server.claim_overdue(game)
    assert outcome is not None and outcome.state.status == "cancelled"
    last = server.reading.history(game)[-1].event
    assert isinstance(last, ev.GameCancelled) and (last.by, last.reason) == (None, "expired")
    assert server.audit(game).ok and server.audit(game).seed_verified
    assert server.expired_turns() == []


def test_invitations_stay_open_seven_days_unless_the_creator_chose_another_span_and_a_look_records_the_expiry(
    server: GameService[MemoryStore], clock: HandClock,
) -> None:
    game = server.new_game_of_accounts(SEATS, viewer="ann").game_id
    clock.advance(7 * 86_400 - 1)
    assert server.show(game).state.status == "pending"
    clock.advance(1)
    shown = server.show(game)  # anyone's look records the expiry it finds
    assert shown.state.status == "cancelled" and shown.state.cancelled == "expired"
    assert server.stats().overall.games_in_progress == 0
