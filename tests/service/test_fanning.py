"""New events rendered once per kind of viewer (scat_core/service/fanning.py): each view is what a
history read shows that viewer, event by event (a stream's follower relies on it)."""

from __future__ import annotations

from scat_core.domain.events import PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from scat_core.service.fanning import PUBLIC, hands_to_show, seen_by_all
from scat_core.service.games import GameService
from scat_core.service.values import SeenEvent
from tests.support.services import a_game_in_play


def test_each_view_of_a_running_game_is_what_its_viewer_reads_in_the_history(service: GameService) -> None:
    game = a_game_in_play(service, moves=14)
    history = service.reading.history(game)
    for split in (0, 5, len(history) - 3):  # as a follower hands them: from where it stood
        state, seen = seen_by_all(GameState(), history[:split])
        state, seen = seen_by_all(state, history[split:])
        assert [item.seq for item in seen] == [stored.seq for stored in history[split:]]
        for viewer in (None, "ann", "bob", "cy"):
            _, shown = service.reading.look_at_history(game, viewer)
            view = PUBLIC if viewer is None else state.seat_of(viewer)
            expected = [SeenEvent.of(stored, event) for stored, event in shown[split:]]
            assert [item.seen_by(view) for item in seen] == expected, viewer


def test_once_the_game_is_over_every_view_is_the_events_as_recorded_with_their_hashes(
    service: GameService,
) -> None:
    bots = [PlayerSeat(name=name, is_bot=True) for name in ("ann", "bob")]
    game = service.playing.create_game(bots, seed=4).game_id  # bots alone play to the end at once
    history = service.reading.history(game)
    state, seen = seen_by_all(GameState(), history)
    assert state.status == "finished"
    log = service.log(game).events
    assert [item.seen_by(PUBLIC) for item in seen] == log and all(event.hash for event in log)
    assert [item.seen_by(0) for item in seen] == log


def test_a_hand_still_face_down_is_dealt_to_its_player_as_the_public_saw_it(service: GameService) -> None:
    game = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], dealer="ann",
                               options=GameOptions(throw_down=True), seed=8).game_id
    history = service.reading.history(game)
    state, seen = seen_by_all(GameState(), history)
    you = state.seat_of("you")
    assert you is not None and state.hand_unseen(you)
    deal = next(item for item in seen if item.seen_by(PUBLIC).type == "HandDealt")
    assert deal.seen_by(you) == deal.seen_by(PUBLIC)  # his cards stay hidden until he looks (R23)
    assert hands_to_show(state, history, [you]) == [you]  # a follower records his look first
    service.playing.look(game, "you")
    state, seen = seen_by_all(GameState(), service.reading.history(game))
    deal = next(item for item in seen if item.seen_by(PUBLIC).type == "HandDealt")
    assert deal.seen_by(you) != deal.seen_by(PUBLIC) and not state.hand_unseen(you)
    assert hands_to_show(state, service.reading.history(game), [you]) == []
