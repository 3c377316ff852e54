"""`wait --any` through the service: the first of a player's games that waits for him, or ends,
on every adapter; what it told left out of the next wait (so a loop tells each turn once)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import Resign
from scat_core.service import GameService
from tests.support.services import next_move

ANN_AND_BOB = [ev.PlayerSeat(name="ann"), ev.PlayerSeat(name="bob")]


def new(service: GameService, first: str = "ann", protect: bool = False) -> tuple[str, dict[str, str]]:
    """A game of ann and bob where `first` is to act: its id and its tokens (protected games)."""
    created = service.new_game(ANN_AND_BOB, dealer="bob" if first == "ann" else "ann", protect=protect)
    assert created.state.turn is not None and created.state.players[created.state.turn].name == first
    return created.game_id, dict(created.tokens or {})


def bobs_games(service: GameService, count: int) -> list[str]:
    """`count` games where ann is to act (bob waits in each)."""
    return [new(service)[0] for _ in range(count)]


def pass_the_turn(service: GameService, game: str) -> None:
    """Play the player to act's moves until it is someone else's turn."""
    mover = service.playing.look(game).turn
    while service.playing.look(game).turn == mover:
        next_move(service, game)


def later(action: Callable[[], None]) -> threading.Timer:
    """`action` in another thread a moment from now (the waiter is blocked by then)."""
    timer = threading.Timer(0.2, action)
    timer.start()
    return timer


def test_a_wait_for_any_turn_returns_at_once_the_game_that_already_waits(service: GameService) -> None:
    bobs_games(service, 2)
    game, _ = new(service, "bob")
    waited = service.wait_for_any_turn("BOB", timeout=0)
    assert waited.shown is not None and waited.shown.game_id == game
    assert waited.shown.viewer == "BOB" and waited.shown.state.hands[waited.shown.state.turn or 0][0] != "??"


def test_a_wait_for_any_turn_wakes_on_a_move_in_any_of_three_games(any_service: GameService) -> None:
    games = bobs_games(any_service, 3)
    assert any_service.wait_for_any_turn("bob", timeout=0.3).timed_out
    mover = later(lambda: pass_the_turn(any_service, games[2]))
    waited = any_service.wait_for_any_turn("bob", timeout=30)
    mover.join()
    assert waited.shown is not None and waited.shown.game_id == games[2]
    assert waited.shown.state.players[waited.shown.state.turn or 0].name == "bob"


def test_a_turn_told_is_left_out_of_the_next_wait_until_a_new_turn_comes(service: GameService) -> None:
    first, second = bobs_games(service, 2)
    pass_the_turn(service, first)
    pass_the_turn(service, second)
    told = service.wait_for_any_turn("bob", timeout=0)
    assert told.shown is not None and told.shown.game_id == first
    again = service.wait_for_any_turn("bob", timeout=0, told=told.told)
    assert again.shown is not None and again.shown.game_id == second
    assert service.wait_for_any_turn("bob", timeout=0.2, told=again.told).timed_out  # both told
    pass_the_turn(service, first)
    pass_the_turn(service, first)  # ann's turn, then bob's again: a new turn
    after = service.wait_for_any_turn("bob", timeout=0, told=again.told)
    assert after.shown is not None and after.shown.game_id == first
    assert after.told.turns == {first: after.shown.state.turn_began, second: again.told.turns[second]}


def test_a_game_that_ends_while_waiting_is_told_once_and_one_ended_before_never(any_service: GameService) -> None:
    before, during = bobs_games(any_service, 2)
    any_service.move(before, Resign("ann"))
    start = any_service.wait_for_any_turn("bob", timeout=0)
    assert start.timed_out  # an end before the wait is no news
    ender = later(lambda: any_service.move(during, Resign("ann")))
    ended = any_service.wait_for_any_turn("bob", timeout=30, told=start.told)
    ender.join()
    assert ended.shown is not None and ended.shown.game_id == during
    assert ended.shown.state.status == "finished" and ended.told.ended == [during]
    assert any_service.wait_for_any_turn("bob", timeout=0.2, told=ended.told).timed_out


def test_a_protected_game_counts_only_with_the_players_own_token(service: GameService) -> None:
    game, tokens = new(service, "bob", protect=True)
    turn, other = "bob", "ann"
    assert service.wait_for_any_turn(turn, timeout=0).timed_out  # no token: not his to wait in
    assert service.wait_for_any_turn(turn, {game: tokens[other]}, timeout=0).timed_out
    waited = service.wait_for_any_turn(turn, {game: tokens[turn]}, timeout=0)
    assert waited.shown is not None and waited.shown.game_id == game


def test_a_protected_game_that_ends_counts_only_with_the_players_own_token_too(service: GameService) -> None:
    """Anyone may look at a finished game, but its end is news only for who holds its token: on a
    server, another game's "bob" may be another man than the bob who waits."""
    mine, mine_tokens = new(service, "ann", protect=True)  # bob waits in both
    theirs, their_tokens = new(service, "ann", protect=True)
    start = service.wait_for_any_turn("bob", {mine: mine_tokens["bob"]}, timeout=0)
    assert start.timed_out
    service.move(theirs, Resign("ann"), token=their_tokens["ann"])
    assert service.wait_for_any_turn("bob", {mine: mine_tokens["bob"]}, timeout=0, told=start.told).timed_out
    told = service.wait_for_any_turn("bob", {theirs: their_tokens["bob"]}, timeout=0, told=start.told)
    assert told.shown is not None and told.shown.game_id == theirs and told.shown.state.status == "finished"


@pytest.mark.parametrize("name", ["nobody", "ann"])
def test_a_wait_for_any_turn_times_out_with_nothing_shown(service: GameService, name: str) -> None:
    bobs_games(service, 1)
    other = service.wait_for_any_turn("bob" if name == "ann" else name, timeout=0.1)
    assert other.shown is None and other.timed_out and other.told.turns == {}
