"""The service's reading and exporting use cases refuse before they write, on both databases."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scat_core.domain.commands import Draw
from scat_core.domain.errors import AuthFailed, BadInput, Hint, NotFound, RuleViolation
from scat_core.domain.events import PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.service import GameService
from tests.support.services import HUMAN_AND_BOT, copy_running


def seq_of(service: GameService, game_id: str) -> int:
    return len(service.reading.history(game_id))


def test_a_running_protected_game_is_not_exported_until_it_ends(service: GameService) -> None:
    created = service.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann", protect=True)
    for running in (False, True):
        with pytest.raises(RuleViolation, match="still running and protected: its export would show every "
                                                "player's cards; export it when it ends"):
            service.archive.export_records(created.game_id, running=running)
    assert service.archive.running_games() == {created.game_id: True}


def test_a_running_game_is_exported_only_when_asked_for_and_a_finished_protected_one_always(
    service: GameService
) -> None:
    running = service.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann")
    over = service.playing.create_game([PlayerSeat(name="a", is_bot=True), PlayerSeat(name="b", is_bot=True)], seed=5,
                               protect=True, options=GameOptions(lives=1))
    assert over.state.status == "finished"
    expected = (f"^game {running.game_id} is still running: its export would show "
                r"every hidden card \(hands, the stock\); export it when it ends$")
    with pytest.raises(RuleViolation, match=expected) as refused:
        service.archive.export_records(running.game_id)
    assert refused.value.hint is Hint.EXPORT_RUNNING  # the CLI adds ", or pass --running" (tests/cli)
    assert len(service.archive.export_records(running.game_id, running=True)) == running.state.version
    assert service.archive.export_records(over.game_id)[-1]["type"] == "GameWon"
    assert service.archive.running_games() == {running.game_id: False}


def test_nobody_may_look_as_a_bot_while_the_game_runs_but_may_once_it_is_over(service: GameService) -> None:
    created = service.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann", options=GameOptions(throw_down=True))
    before = seq_of(service, created.game_id)
    refusal = "ann is a bot: nobody may look at a bot's hand while the game runs"
    with pytest.raises(RuleViolation, match=refusal):
        service.playing.look(created.game_id, "ann")
    with pytest.raises(RuleViolation, match=refusal):
        service.reading.look_at_history(created.game_id, "ANN")
    with pytest.raises(RuleViolation, match=refusal):
        service.reading.look_at_history(created.game_id, "ann", up_to=2, as_then=True)
    assert seq_of(service, created.game_id) == before
    over = service.playing.create_game([PlayerSeat(name="a", is_bot=True), PlayerSeat(name="b", is_bot=True)], seed=5,
                               options=GameOptions(lives=1))
    assert service.playing.look(over.game_id, "a").status == "finished"
    state, shown = service.reading.look_at_history(over.game_id, "a", up_to=2, as_then=True)
    assert state.version == 2 and len(shown) == 2


def test_a_bad_up_to_or_viewer_is_refused_before_anything_is_written(service: GameService) -> None:
    created = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="eve")], seed=3, dealer="eve",
                                  options=GameOptions(throw_down=True))
    before = seq_of(service, created.game_id)
    with pytest.raises(BadInput, match=f"has events 1 to {before}, not 999"):
        service.reading.look_at_history(created.game_id, "eve", up_to=999, as_then=True)
    with pytest.raises(BadInput, match="not 0"):
        service.reading.look_at_history(created.game_id, "eve", up_to=0)
    with pytest.raises(NotFound, match=r"no player 'zed' .*\(players: you, eve\)"):
        service.reading.look_at_history(created.game_id, "zed")
    assert seq_of(service, created.game_id) == before  # eve's look (R23) was not recorded
    service.reading.look_at_history(created.game_id, "eve", up_to=1)  # before any deal: nothing to look at
    assert seq_of(service, created.game_id) == before
    service.reading.look_at_history(created.game_id, "eve")  # the game as it is: a look (R23)
    assert seq_of(service, created.game_id) == before + 1  # a good request records the look


def test_history_up_to_zero_or_past_the_end_is_bad_input_not_an_index_error(service: GameService) -> None:
    created = service.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann")
    last = created.state.version
    for bad in (0, -1, last + 1):
        with pytest.raises(BadInput, match=f"game {created.game_id} has events 1 to {last}, not {bad}"):
            service.reading.history(created.game_id, up_to=bad)
    assert [stored.seq for stored in service.reading.history(created.game_id, up_to=2)] == [1, 2]


@pytest.fixture
def imported(service: GameService, new_service: Callable[[], GameService]) -> tuple[GameService, str]:
    """A running, unprotected game imported into another (in-memory) store."""
    return copy_running(service, new_service(), protect=False)


def test_an_imported_running_game_is_read_only_and_showing_it_writes_nothing(imported: tuple[GameService, str]) -> None:
    target, game = imported
    before = seq_of(target, game)
    assert target.reading.is_read_only(game)
    assert target.playing.look(game, "you").version == before  # no look recorded (R23), no bot moves
    target.reading.look_at_history(game, "you")
    assert seq_of(target, game) == before
    with pytest.raises(RuleViolation, match="imported without its secret seed"):
        target.playing.act(game, Draw("you", "stock"))


def test_a_protected_imported_game_says_its_tokens_were_not_exported(
    service: GameService, new_service: Callable[[], GameService]
) -> None:
    target, game = copy_running(service, new_service(), protect=True)
    for token in ("anything", None):
        with pytest.raises(AuthFailed, match="was imported and player tokens are not exported"):
            target.playing.look(game, "you", token=token)
    assert target.playing.look(game).version == seq_of(target, game)  # the public view needs no token


def test_a_game_played_here_is_not_read_only(service: GameService) -> None:
    created = service.playing.create_game(HUMAN_AND_BOT, seed=3, dealer="ann")
    assert not service.reading.is_read_only(created.game_id)
    with pytest.raises(NotFound):
        service.reading.is_read_only("nosuchgame")


def test_an_imported_running_game_is_listed_as_read_only_and_waits_for_nobody(
    imported: tuple[GameService, str]
) -> None:
    target, game = imported
    own = target.playing.create_game(HUMAN_AND_BOT, seed=4, dealer="ann")
    over = target.playing.create_game([PlayerSeat(name="a", is_bot=True), PlayerSeat(name="b", is_bot=True)], seed=5,
                              options=GameOptions(lives=1))
    rows, read_only = target.reading.list_games_read_only()
    assert {row.game_id for row in rows} == {game, own.game_id, over.game_id} and read_only == {game}
    assert [row.game_id for row in target.reading.list_games(waiting_for="you")] == [own.game_id]
    assert target.reading.list_games_read_only(waiting_for="you") == (target.reading.list_games(waiting_for="you"),
                                                                      set())
    assert target.reading.list_games_read_only(status="finished")[1] == set()


def test_an_imported_running_game_has_no_position_to_sign_at_and_a_finished_one_keeps_its_own_for_talk(
    imported: tuple[GameService, str]
) -> None:
    target, game = imported
    with pytest.raises(RuleViolation, match=f"^game {game} was imported without its secret seed: it can be shown"):
        target.position(game)
    over = target.playing.create_game([PlayerSeat(name="a", is_bot=True), PlayerSeat(name="b", is_bot=True)], seed=5,
                                      options=GameOptions(lives=1))
    assert over.state.status == "finished"
    at = target.position(over.game_id)  # the talk after a game is signed at its last position, its seed revealed
    assert at.seq == len(target.reading.history(over.game_id))
