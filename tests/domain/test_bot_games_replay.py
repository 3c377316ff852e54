"""Whole bot games in memory: every event keeps the invariants, replay equals live state."""

from __future__ import annotations

import pytest

from scat_core.domain.audit import audit_events
from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide
from scat_core.domain.events import Event, PlayerSeat
from scat_core.domain.evolve import evolve, fold
from scat_core.domain.invariants import invariant_problems
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState


@pytest.mark.parametrize("players", [2, 5, 9])
def test_a_bot_game_ends_keeps_every_invariant_and_replays_to_the_live_state(players: int) -> None:
    chance = SeededChance(f"seed-{players}", "salt")
    seats = tuple(PlayerSeat(name=f"bot{i}", is_bot=True) for i in range(players))
    history: list[Event] = []
    state = GameState()
    command = CreateGame("g1", seats)
    while command is not None:
        for event in decide(state, command, chance):
            state = evolve(state, event)
            assert invariant_problems(state) == [], event
            history.append(event)
        command = next_bot_command(state)
    assert state.status == "finished" and state.winner is not None  # R26
    assert fold(history) == state
    report = audit_events("g1", history)
    assert report.ok and report.seed_verified, report.problems
