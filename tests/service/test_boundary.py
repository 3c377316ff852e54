"""The one boundary (#9 point 1): one call per command, values redacted for the viewer, the same on both sides."""

from __future__ import annotations

from scat_cli.wiring import open_database
from scat_core.domain.commands import Discard, Draw, LegalMove, Resign
from scat_core.domain.events import PlayerSeat
from scat_core.domain.views import HIDDEN
from scat_core.service.values import Export, Played, Skipped
from tests.support.databases import migrated


def test_a_move_comes_back_redacted_for_the_mover_with_his_moves_now(db_url: str) -> None:
    service = open_database(migrated(db_url))
    game = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="eve")], seed=3, dealer="eve").game_id
    played = service.move(game, Draw("you", "stock"))
    assert isinstance(played, Played) and played.viewer == "you"
    assert len(played.state.hands[0]) == 4 and HIDDEN not in played.state.hands[0]
    assert played.state.hands[1] == (HIDDEN,) * 3 and set(played.state.stock) == {HIDDEN}
    assert [move.kind for move in played.moves] == [Discard] * 4 + [Resign]  # R12, R27
    assert {move.card for move in played.moves[:4]} == set(played.state.hands[0])
    assert Played.model_validate_json(played.model_dump_json()) == played  # what the server sends, as it is


def test_show_as_the_player_to_act_offers_his_draws_and_knock_and_as_the_public_none(db_url: str) -> None:
    service = open_database(migrated(db_url))
    game = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="eve")], seed=3, dealer="eve").game_id
    shown = service.show(game, "you")
    assert shown.moves[:2] == [LegalMove(Draw("you", "stock"), "R12"), LegalMove(Draw("you", "discard"), "R12")]
    assert not shown.read_only and shown.news is not None and shown.result is None
    public = service.show(game)
    assert public.moves == [] and public.news is None and public.state.hands[0] == (HIDDEN,) * 3


def test_export_all_exports_finished_games_and_says_why_it_skips_running_ones(db_url: str) -> None:
    service = open_database(migrated(db_url))
    bots = [PlayerSeat(name=name, is_bot=True) for name in ("ann", "bob")]
    finished = service.playing.create_game(bots, seed=7).game_id
    running = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="eve")], seed=3).game_id
    guarded = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="eve")], seed=3,
                                          protect=True).game_id
    items = {item.game_id: item for item in service.export_all()}
    assert isinstance(items[finished], Export) and not items[finished].running
    assert items[running] == Skipped(game_id=running, reason="running")
    assert items[guarded] == Skipped(game_id=guarded, reason="running and protected")
    with_running = {item.game_id: item for item in service.export_all(running=True)}
    assert isinstance(with_running[running], Export) and with_running[running].running
    assert with_running[guarded] == Skipped(game_id=guarded, reason="running and protected")


def test_waiting_for_a_turn_that_is_already_there_returns_at_once_and_a_timeout_is_said(db_url: str) -> None:
    service = open_database(migrated(db_url))
    game = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="eve")], seed=3, dealer="eve").game_id
    assert not service.wait_for_turn(game, "you").timed_out
    waited = service.wait_for_turn(game, "eve", timeout=0)
    assert waited.timed_out and waited.shown.state.name(waited.shown.state.turn) == "you"
