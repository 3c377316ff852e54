"""The stats projection on both databases: incremental catch-up equals a rebuild from the log."""

from __future__ import annotations

from typing import Any

import pytest

from scat_core.domain.bots import heuristic_move
from scat_core.domain.errors import NotFound
from scat_core.domain.events import PlayerSeat
from scat_core.service import GameService
from scat_core.store.sql.database import ensure_schema, make_engine
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.games_list import GameSummary, games_values
from scat_core.store.sql.projections import STATS, catch_up, checkpoint, is_behind
from tests.support.store import projection_rows


def bots(*names: str) -> list[PlayerSeat]:
    return [PlayerSeat(name=name, is_bot=True) for name in names]


def rebuilt_equals_current(service: GameService) -> bool:
    """Catch up, then drop and rebuild from the events: the rows must be the same."""
    engine = service.store.engine
    service.statistics.catch_up_stats()
    before = projection_rows(engine)
    service.statistics.catch_up_stats(rebuild=True)
    return projection_rows(engine) == before and before != ([], [])


def play_until_hand(service: GameService, game_id: str, hand: int) -> None:
    """Play every human's heuristic move until hand `hand` is dealt (or the game ends)."""
    state = service.playing.look(game_id)
    while state.status != "finished" and state.hand_number < hand:
        assert state.turn is not None
        command = heuristic_move(state, state.turn)
        assert command is not None
        state = service.playing.act(game_id, command).state


@pytest.fixture
def service(store: EventStore) -> GameService:
    return GameService(store)


def test_catching_up_game_by_game_gives_the_rows_a_rebuild_gives(service: GameService) -> None:
    for seed in range(3):
        service.playing.create_game(bots("ann", "bob", "cy"), seed=seed)
        assert service.statistics.catch_up_stats() > 0
    assert rebuilt_equals_current(service)
    report = service.stats()
    assert report.overall.games_played == 3
    assert sum(p.games_won for p in report.players) == 3


def test_a_second_catch_up_folds_nothing_and_keeps_the_checkpoint(service: GameService) -> None:
    service.playing.create_game(bots("ann", "bob"), seed=1)
    first = catch_up(service.store.engine, STATS)
    assert first.events > 0 and first.games == 1
    assert not is_behind(service.store.engine, STATS)
    again = catch_up(service.store.engine, STATS)
    assert again.events == 0 and again.checkpoint is not None and first.checkpoint is not None
    assert again.checkpoint.position == first.checkpoint.position  # PostgreSQL: a newer snapshot, same events
    assert checkpoint(service.store.engine, STATS) == again.checkpoint


def test_a_game_in_progress_counts_only_its_finished_hands(service: GameService) -> None:
    game_id = service.playing.create_game([PlayerSeat(name="you"), *bots("ann")], seed=5).game_id
    play_until_hand(service, game_id, 2)
    report = service.stats()
    assert report.overall.games_in_progress == 1 and report.overall.games_played == 0
    assert report.overall.hands_played == 1
    you = service.stats(player="you").players[0]
    assert you.hands_played == 1 and you.games_in_progress == 1 and you.games_played == 0
    play_until_hand(service, game_id, 3)
    assert service.stats().overall.hands_played == 2
    assert rebuilt_equals_current(service)


def test_a_player_is_his_name_ignoring_case_across_games(service: GameService) -> None:
    service.playing.create_game(bots("Ann", "bob"), seed=1)
    service.playing.create_game(bots("ANN", "cy"), seed=2)
    report = service.stats(player="ann")
    assert [p.games_played for p in report.players] == [2]
    assert len(service.stats().players) == 3


def test_a_resignation_counts_as_a_game_played_and_not_won_R27(service: GameService) -> None:
    from scat_core.domain.commands import Resign

    game_id = service.playing.create_game([PlayerSeat(name="you"), *bots("ann")], seed=6).game_id
    service.playing.act(game_id, Resign("you"))
    you, ann = service.stats(player="you").players[0], service.stats(player="ann").players[0]
    assert (you.resigned, you.games_played, you.games_won) == (1, 1, 0)
    assert (ann.resigned, ann.games_played, ann.games_won) == (0, 1, 1)
    assert rebuilt_equals_current(service)


def test_each_player_has_his_own_longest_game_the_earliest_id_on_a_tie(service: GameService) -> None:
    for seed, lineup in enumerate([("ann", "bob"), ("ann", "cy"), ("bob", "cy", "dan"), ("dan", "eve")]):
        service.playing.create_game(bots(*lineup), seed=seed)
    report = service.stats()
    games, players = projection_rows(service.store.engine)
    hands = {row[0]: row[4] for row in games}  # game_id -> hands (every game finished)
    for figures in report.players:
        mine = [row[0] for row in players if row[2] == figures.name]
        best = min(mine, key=lambda game_id: (-hands[game_id], game_id))
        assert figures.longest_game is not None
        assert (figures.longest_game.game_id, figures.longest_game.hands) == (best, hands[best])


def test_an_unknown_player_is_not_found(service: GameService) -> None:
    service.playing.create_game(bots("ann", "bob"), seed=1)
    with pytest.raises(NotFound, match="no player 'zed'"):
        service.stats(player="zed")


def test_imported_games_count_as_games_played_here(service: GameService, sqlite_url: str, db_url: str) -> None:
    game_id = service.playing.create_game(bots("ann", "bob"), seed=3).game_id
    records = service.archive.export_records(game_id)
    target_url = sqlite_url if db_url.startswith("postgresql") else sqlite_url.replace("scat.db", "other.db")
    other = GameService(EventStore(make_engine(target_url)))
    ensure_schema(other.store.engine)
    other.stats()  # an empty projection, caught up, before the import
    assert other.import_records(records).ok
    imported, original = other.stats(), service.stats()
    assert imported.players == original.players and imported.overall.games_played == 1
    other.store.engine.dispose()


def _old_bot_game(service: GameService, seats: list[PlayerSeat]) -> None:
    """A bot game played out in memory and appended as a scat of revision 0001 did: no snapshot."""
    from scat_core.domain.bots import next_bot_command
    from scat_core.domain.commands import CreateGame
    from scat_core.domain.decide import decide_and_evolve
    from scat_core.domain.shuffle import SeededChance
    from scat_core.domain.state import GameState
    from scat_core.service.loading import summarize

    chance, state, events = SeededChance("4", "salt"), GameState(), []
    command: Any = CreateGame(game_id="old0000001", players=tuple(seats))
    while command is not None:
        produced, state = decide_and_evolve(state, command, chance)
        events += produced
        command = next_bot_command(state)
    with service.store.transaction() as tx:
        tx.append(state.game_id, 0, events, summarize(state))


def _before_0008(summary: GameSummary) -> dict[str, Any]:
    """The games row's values as a scat before migration 0008 wrote them."""
    later = ("move_deadline", "turn_key", "awaiting", "open_seats", "rematch_of")  # 0008's and 0014's
    return {key: value for key, value in games_values(summary).items() if key not in later}


def test_games_from_before_the_projection_migration_are_counted_after_it(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from alembic import command
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from scat_core.store.sql.database import alembic_config

    engine = make_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0001")
    old = GameService(EventStore(engine))
    with monkeypatch.context() as unsigned:  # revision 0001 had no head_signatures table either
        unsigned.setattr("scat_core.store.sql.appending.sign_appended_head", lambda *_: None)
        unsigned.setattr("scat_core.store.sql.games_list.games_values", _before_0008)  # nor 0008's columns
        unsigned.setattr("scat_core.store.sql.games_list.seat_rows", lambda *_: [])  # nor 0011's game_seats
        _old_bot_game(old, bots("ann", "bob"))  # written by a scat without projections (nor snapshots)
    ensure_schema(engine)
    assert old.stats().overall.games_played == 1
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0001")
    with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
        conn.execute(text("UPDATE events SET seq = seq + 100"))  # the triggers survived the downgrade
    engine.dispose()
