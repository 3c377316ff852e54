"""R28 through the service: claims decided by its clock, recorded at its time, audited from it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain.commands import Discard, Draw
from scat_core.domain.errors import AuthFailed, RuleViolation
from scat_core.domain.options import GameOptions, recorded_text
from scat_core.service import GameService
from scat_core.service.loading import replay
from scat_core.store.memory import MemoryStore
from tests.support.clock import HandClock
from tests.support.databases import migrated

HOUR = 3600
PLAYERS = [ev.PlayerSeat(name=name) for name in ("ann", "bob", "cy")]


@pytest.fixture
def clock() -> HandClock:
    return HandClock()


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def timed(request: pytest.FixtureRequest, clock: HandClock) -> Iterator[GameService]:
    """The service on each adapter, on the hand-moved clock."""
    if request.param == "memory":
        yield GameService(MemoryStore(), clock)
        return
    opened = open_database(migrated(str(request.getfixturevalue(f"{request.param}_url"))))
    service = GameService(opened.store, clock)
    yield service
    service.store.engine.dispose()


def a_timed_game(service: GameService, protect: bool = False) -> tuple[str, str]:
    """A game of three humans with a one-hour move time; its id and whose turn it is."""
    outcome = service.playing.create_game(PLAYERS, options=GameOptions(move_time=HOUR), seed=5, protect=protect)
    turn = outcome.state.name(outcome.state.turn)
    assert turn is not None
    return outcome.game_id, turn


def other_than(name: str) -> str:
    return next(seat.name for seat in PLAYERS if seat.name != name)


def test_r28_a_claim_before_the_move_time_is_up_is_refused_and_writes_nothing(
    timed: GameService, clock: HandClock,
) -> None:
    game, late = a_timed_game(timed)
    clock.advance(HOUR - 1)
    with pytest.raises(RuleViolation, match=r"1s to move \(R28\)"):
        timed.claim(game, other_than(late))
    assert len(timed.reading.history(game)) == 2


def test_r28_a_claim_in_time_resigns_the_player_to_act_and_is_recorded_at_the_clocks_time(
    timed: GameService, clock: HandClock,
) -> None:
    game, late = a_timed_game(timed)
    clock.advance(HOUR)
    played = timed.claim(game, other_than(late))
    claimed = timed.reading.history(game)[-1]
    assert claimed.event == ev.Resigned(player=late, cause="move time", claimed_by=other_than(late))
    assert claimed.recorded_at == clock().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert next(p for p in played.state.players if p.name == late).resigned
    assert timed.audit(game).ok


def test_r28_the_move_time_counts_from_the_turns_start_not_from_the_players_draw(
    timed: GameService, clock: HandClock,
) -> None:
    game, late = a_timed_game(timed)
    clock.advance(HOUR - 10)
    timed.playing.act(game, Draw(late, "stock"))
    clock.advance(10)
    timed.claim(game, other_than(late))
    assert timed.audit(game).ok


def test_r28_the_game_finishes_when_claims_leave_one_player(timed: GameService, clock: HandClock) -> None:
    game, _ = a_timed_game(timed)
    for _ in range(2):
        clock.advance(HOUR)
        state = replay(game, timed.reading.history(game))  # not a look: a look would claim the turn itself
        late = state.name(state.turn)
        assert late is not None
        timed.claim(game, next(p.name for p in state.players if not p.out and p.name != late))
    state = timed.playing.look(game)
    assert state.status == "finished" and state.winner is not None
    report = timed.audit(game)
    assert report.ok and report.seed_verified


def test_r28_a_claim_in_a_game_without_a_move_time_is_refused(timed: GameService, clock: HandClock) -> None:
    game = timed.playing.create_game(PLAYERS, seed=5).game_id
    clock.advance(365 * 86_400)
    with pytest.raises(RuleViolation, match=r"no move time.*\(R28\)"):
        timed.claim(game, "bob")
    assert len(timed.reading.history(game)) == 2


def test_r28_a_protected_games_claimer_proves_his_seat_with_his_token(clock: HandClock) -> None:
    service = GameService(MemoryStore(), clock)
    outcome = service.playing.create_game(PLAYERS, options=GameOptions(move_time=HOUR), seed=5, protect=True)
    late = outcome.state.name(outcome.state.turn)
    assert late is not None
    claimer = other_than(late)
    clock.advance(HOUR)
    with pytest.raises(AuthFailed):
        service.claim(outcome.game_id, claimer, "wrong")
    with pytest.raises(AuthFailed):
        service.claim(outcome.game_id, None)
    service.claim(outcome.game_id, claimer, outcome.tokens[claimer])
    assert service.audit(outcome.game_id).ok


def test_r28_the_servers_own_claim_names_no_claimer_and_bots_play_on(clock: HandClock) -> None:
    service = GameService(MemoryStore(), clock)
    seats = [ev.PlayerSeat(name="you"), ev.PlayerSeat(name="ann", is_bot=True), ev.PlayerSeat(name="bob", is_bot=True)]
    game = service.playing.create_game(seats, options=GameOptions(move_time=HOUR), seed=5, dealer="bob").game_id
    clock.advance(HOUR)
    outcome = service.playing.claim(game, None)
    assert outcome.events[0].event == ev.Resigned(player="you", cause="move time", claimed_by=None)
    assert outcome.state.status == "finished"  # the bots played it out
    assert service.audit(game).ok


def test_r28_a_look_by_another_player_claims_the_turn_of_a_player_out_of_time_in_his_name(
    timed: GameService, clock: HandClock,
) -> None:
    """On a local database any command naming another player still in the game may claim (R28);
    a look naming nobody claims nothing, and the late player's own look claims nothing either."""
    game, late = a_timed_game(timed)
    other = other_than(late)
    clock.advance(HOUR - 1)
    assert timed.playing.look(game, other).name(timed.playing.look(game).turn) == late
    assert len(timed.reading.history(game)) == 2
    clock.advance(1)  # the time is up at this very instant: a claim now is valid
    timed.playing.look(game)
    timed.playing.look(game, late)
    assert len(timed.reading.history(game)) == 2
    state = timed.playing.look(game, other)
    claimed = timed.reading.history(game)[2]
    assert claimed.event == ev.Resigned(player=late, cause="move time", claimed_by=other)
    assert state.players[state.seat_of(late) or 0].out and state.turn is not None
    assert timed.audit(game).ok


def test_r28_on_a_server_the_server_claims_on_any_look(clock: HandClock) -> None:
    service = GameService(MemoryStore(), clock, server=True)
    game, late = a_timed_game(service)
    clock.advance(HOUR)
    service.playing.look(game)
    assert service.reading.history(game)[2].event == ev.Resigned(player=late, cause="move time", claimed_by=None)
    assert service.audit(game).ok


def test_r28_the_late_player_may_still_move_until_a_claim_is_recorded_and_his_move_stands(
    timed: GameService, clock: HandClock,
) -> None:
    game, late = a_timed_game(timed)
    clock.advance(HOUR + 1)
    outcome = timed.playing.act(game, Draw(late, "stock"))
    assert [stored.type for stored in outcome.events] == ["CardDrawn"]
    assert [stored.type for stored in timed.reading.history(game)] == ["GameCreated", "HandDealt", "CardDrawn"]
    assert timed.audit(game).ok


def test_r28_another_players_move_after_the_time_is_up_comes_after_his_claim(
    timed: GameService, clock: HandClock,
) -> None:
    game, late = a_timed_game(timed)
    clock.advance(HOUR)
    state = replay(game, timed.reading.history(game))
    after = state.players[((state.seat_of(late) or 0) + 1) % len(state.players)].name  # next in turn (R11)
    outcome = timed.playing.act(game, Draw(after, "stock"))
    assert [stored.type for stored in outcome.events] == ["Resigned", "CardDrawn"]
    assert outcome.events[0].event == ev.Resigned(player=late, cause="move time", claimed_by=after)
    assert timed.audit(game).ok


def test_r28_the_read_models_deadline_follows_the_turn(timed: GameService, clock: HandClock) -> None:
    game, late = a_timed_game(timed)
    created = timed.reading.history(game)[-1].recorded_at
    row = timed.reading.list_games()[0]
    assert row.move_deadline is not None and row.move_deadline > created
    clock.advance(60)
    timed.playing.act(game, Draw(late, "stock"))  # the same turn: the same deadline
    assert timed.reading.list_games()[0].move_deadline == row.move_deadline
    state = replay(game, timed.reading.history(game))
    seat = state.seat_of(late)
    assert seat is not None
    clock.advance(60)
    timed.playing.act(game, Discard(late, state.hands[seat][0]))  # the next player's turn begins now
    assert timed.reading.list_games()[0].move_deadline == recorded_text(clock() + timedelta(seconds=HOUR))


def test_r28_a_wait_for_a_turn_behind_a_player_out_of_time_claims_it_when_his_time_runs_out() -> None:
    service = GameService(MemoryStore())  # the system clock: a one-second move time runs out for real
    seats = [ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bob"), ev.PlayerSeat(name="cy", is_bot=True)]
    game = service.playing.create_game(seats, options=GameOptions(move_time=1), seed=5, dealer="cy").game_id
    waited = service.wait_for_turn(game, "bob", timeout=60)  # a generous bound, never reached
    assert not waited.timed_out and waited.shown.state.turn is not None
    assert waited.shown.state.players[waited.shown.state.turn].name == "bob"
    claim = next(stored.event for stored in service.reading.history(game) if stored.type == "Resigned")
    assert claim == ev.Resigned(player="ann", cause="move time", claimed_by="bob")  # a local database: bob's
