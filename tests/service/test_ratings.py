"""Ratings (Weng-Lin, openskill), kept from the statistics' lines: the placing is the order players
went out (the winner first; out in the same hand, tied), games are taken in the order they were
won, a rebuild from the events gives the same ratings, bots never share a human's row, and a
cancelled, abandoned or running game counts for nothing."""

from __future__ import annotations

from scat_core.domain import events as ev
from scat_core.domain.stats import GameLine, PlayerLine
from scat_core.records.stats import placing, ratings
from scat_core.service.games import GameService
from scat_core.store.memory import MemoryStore


def line(game_id: str, winner: str, out: dict[str, int], bots: tuple[str, ...] = (), ended: str = "x") -> GameLine:
    players = tuple(PlayerLine(seat, name, name, is_bot=name in bots, out_in_hand=out.get(name, 0))
                    for seat, name in enumerate([winner, *out], start=1))
    return GameLine(game_id, finished=True, winner_key=winner, players=players, ended_at=ended)


def test_the_winner_places_first_then_by_the_hand_each_went_out_and_a_hand_shared_is_a_tie() -> None:
    game = line("g", "ann", {"bob": 5, "cy": 3, "dee": 3})
    assert placing(game) == [1, 2, 3, 3]


def test_games_are_rated_in_the_order_they_were_won_whatever_order_they_are_given_in() -> None:
    first, second = line("b", "ann", {"bob": 2}, ended="2026-12-01"), line("a", "bob", {"ann": 2}, ended="2026-12-02")
    assert ratings([first, second]) == ratings([second, first])
    assert ratings([first, second]) != ratings([line("b", "ann", {"bob": 2}, ended="2026-12-03"), second])


def test_a_bot_is_never_rated_in_the_row_of_a_human_of_the_same_name() -> None:
    rows = ratings([line("g", "ann", {"bob": 1}, bots=("bob",)), line("h", "bob", {"ann": 1}, bots=("ann",))])
    assert sorted((row.name, row.is_bot, row.games) for row in rows) == [
        ("ann", False, 1), ("ann", True, 1), ("bob", False, 1), ("bob", True, 1)]


def test_cancelled_abandoned_and_running_games_count_for_nothing() -> None:
    running = GameLine("r", players=line("x", "ann", {"bob": 1}).players)
    abandoned = GameLine("a", finished=True, players=running.players)
    cancelled = GameLine("c", cancelled=True, players=())
    assert ratings([running, abandoned, cancelled]) == []


def test_ratings_rebuilt_from_the_events_are_the_same_to_the_last_digit() -> None:
    service = GameService(MemoryStore())
    for seed in range(4):
        service.new_game([ev.PlayerSeat(name=name, is_bot=True) for name in ("ann", "bob", "cy")], seed=seed)
    kept = service.ratings()
    assert [row.games for row in kept.players] == [4, 4, 4]
    assert service.ratings(rebuild=True) == kept
    assert service.ratings("BOB").players == [row for row in kept.players if row.name == "bob"]
