"""No bound stops a game silently. Bots play in units of work, each committed, at most so many a
command; the command that meets the bound says so (`bots_owe`), a look never fails on it and lets
them go on, and a game of older rules that cannot end (a rules-version-2 game of bots with
min-knock 31, R15) is abandoned by the owner of the database, then audits with its seed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import pytest

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain.commands import CreateGame, Resign
from scat_core.domain.errors import RuleViolation
from scat_core.domain.options import GameOptions
from scat_core.service import playing
from scat_core.service.games import GameService
from scat_core.store.memory import MemoryStore
from tests.support.databases import migrated

BOTS = [ev.PlayerSeat(name=name, is_bot=True) for name in ("b0", "b1")]
ENDLESS = GameOptions(min_knock=31, lives=1, straight_flush=True)  # the referee's game (seed 90038)


@pytest.fixture
def small_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """Units of 40 bots' moves, 3 a command: the bound is met within a few hundred events."""
    monkeypatch.setattr(playing, "BOT_MOVES_PER_UNIT", 40)
    monkeypatch.setattr(playing, "BOT_UNITS_PER_COMMAND", 3)


def made_by_rules_version_2(monkeypatch: pytest.MonkeyPatch) -> None:
    """New games as the scat of rules version 2 made them (min-knock 31 allowed then)."""
    monkeypatch.setattr(playing, "CreateGame", partial(CreateGame, rules_version=2))


class Ticking:
    """A clock one second later at each reading: each unit of work records its own time."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 5, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def units_written(service: GameService[Any], game_id: str) -> list[str]:
    """Each unit's time: a unit's events are recorded at one time, so the count of distinct ones
    is the count of commits (the service's clock moves on between them here)."""
    return sorted({stored.recorded_at for stored in service.reading.history(game_id)})


def test_a_command_that_meets_the_bots_bound_says_so_and_a_look_lets_them_go_on(
    small_units: None, monkeypatch: pytest.MonkeyPatch,
) -> None:
    made_by_rules_version_2(monkeypatch)
    service = GameService(MemoryStore())
    created = service.new_game(BOTS, options=ENDLESS, seed=90038)
    assert created.bots_owe and created.state.status == "active"
    moves = sum(1 for seen in created.events if seen.type in ("CardDrawn", "CardDiscarded", "Knocked"))
    assert moves == 3 * 40  # a draw and a discard are a move each
    head = created.state.version
    looked = service.show(created.game_id)  # a read never fails on the bound: it lets them go on
    assert looked.state.version > head and looked.state.status == "active"


def test_an_endless_game_of_older_rules_is_abandoned_by_the_databases_owner_and_audits(
    small_units: None, monkeypatch: pytest.MonkeyPatch,
) -> None:
    made_by_rules_version_2(monkeypatch)
    service = GameService(MemoryStore())
    game = service.new_game(BOTS, options=ENDLESS, seed=90038).game_id
    abandoned = service.abandon(game)
    assert (abandoned.state.status, abandoned.state.winner, abandoned.state.rules_version) == ("finished", None, 2)
    assert abandoned.events[-1].type == "GameAbandoned"
    assert abandoned.result is not None and abandoned.result.winner is None
    report = service.audit(game)
    assert (report.ok, report.seed_verified) == (True, True)
    with pytest.raises(RuleViolation, match="abandoned"):
        service.abandon(game)
    stats = service.stats()
    assert (stats.overall.games_played, stats.overall.games_won) == (1, 0)


def test_each_unit_of_bots_moves_is_its_own_commit(small_units: None, monkeypatch: pytest.MonkeyPatch,
                                                   db_url: str) -> None:
    made_by_rules_version_2(monkeypatch)
    opened = open_database(migrated(db_url))
    service = GameService(opened.store, Ticking())
    created = service.new_game([ev.PlayerSeat(name="you"), *BOTS], options=ENDLESS, seed=90038, dealer="b1")
    service.move(created.game_id, Resign("you"))
    assert len(units_written(service, created.game_id)) == 1 + 3  # the game, then the resignation's 3 units
    opened.store.engine.dispose()
