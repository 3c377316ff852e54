"""The games list with a player's games first (a server lists an account's own first, cli.md),
alike on every adapter: his games newest activity first, then the others, the limit over both;
his name matched whole, in any case, as `--as` matches names (a `_` or `.` is a letter)."""

from __future__ import annotations

from scat_core.domain import events as ev
from scat_core.service import GameService


def test_a_players_games_come_first_and_only_his(any_service: GameService) -> None:
    made = {}
    for name in ("a_n", "ann", "ann.b", "bob"):
        made[name] = any_service.new_game([ev.PlayerSeat(name=name), ev.PlayerSeat(name="bot", is_bot=True)]).game_id
    newest_first = [made[name] for name in ("bob", "ann.b", "ann", "a_n")]
    assert [row.game_id for row in any_service.game_list()] == newest_first
    listed = [row.game_id for row in any_service.game_list_for(first_for="a_n")]
    assert listed == [made["a_n"], *newest_first[:-1]]
    two = any_service.game_list_for(first_for="ann", limit=2)
    assert [row.game_id for row in two] == [made["ann"], made["bob"]]
    page = any_service.games_page_for(first_for="ann.b", limit=1)
    assert [row.game_id for row in page.games] == [made["ann.b"]] and page.total == 4
    assert [row.game_id for row in any_service.game_list_for(status="finished", first_for="ann")] == []


def test_a_players_name_is_matched_in_any_case(any_service: GameService) -> None:
    theirs = any_service.new_game([ev.PlayerSeat(name="Zoë"), ev.PlayerSeat(name="bot", is_bot=True)]).game_id
    other = any_service.new_game([ev.PlayerSeat(name="zoe"), ev.PlayerSeat(name="bot", is_bot=True)]).game_id
    assert [row.game_id for row in any_service.game_list_for(first_for="ZOË")] == [theirs, other]
