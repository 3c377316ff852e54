"""The application service: play, bots, audit, export and import (on the in-memory store; the first
two on every store, the damaged-history ones on the databases)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scat_cli.wiring import open_database
from scat_core.domain.bots import heuristic_move
from scat_core.domain.commands import Draw, ThrowDown, ViewHand
from scat_core.domain.errors import AuthFailed, NotFound, RuleViolation
from scat_core.domain.events import PlayerSeat
from scat_core.domain.options import GameOptions
from scat_core.service import GameService
from tests.support.databases import migrated


def test_a_game_of_bots_is_played_to_the_end_and_audits_clean(any_service: GameService) -> None:
    service = any_service
    outcome = service.playing.create_game([PlayerSeat(name=n, is_bot=True) for n in ("ann", "bob", "cy")], seed=7)
    assert outcome.state.status == "finished"
    report = service.audit(outcome.game_id)
    assert report.ok and report.seed_verified
    [row] = service.reading.list_games(status="finished")
    assert (row.game_id, row.winner, row.head_seq) == (outcome.game_id, outcome.state.winner, outcome.state.version)


def test_a_human_move_is_stored_then_bots_play_until_the_human_must_act(any_service: GameService) -> None:
    service = any_service
    created = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="bot", is_bot=True)], seed=3,
                                          dealer="bot")
    assert created.state.name(created.state.turn) == "you"  # R11: left of the dealer starts
    drawn = service.playing.act(created.game_id, Draw("you", "stock"))
    assert drawn.state.phase == "discard" and len(drawn.events) == 1
    hand = drawn.state.hands[0]
    from scat_core.domain.commands import Discard

    after = service.playing.act(created.game_id, Discard("you", hand[0]))
    assert (after.state.status, after.state.name(after.state.turn)) == ("active", "you")
    assert service.audit(created.game_id).ok


def test_protected_games_need_the_players_token(service: GameService) -> None:
    created = service.playing.create_game([PlayerSeat(name="ann"), PlayerSeat(name="bob")], seed=1, dealer="bob",
                                          protect=True)
    assert set(created.tokens) == {"ann", "bob"}
    with pytest.raises(AuthFailed):
        service.playing.act(created.game_id, Draw("ann", "stock"))
    with pytest.raises(AuthFailed):
        service.playing.act(created.game_id, Draw("ann", "stock"), token=created.tokens["bob"])
    drawn = service.playing.act(created.game_id, Draw("ann", "stock"), token=created.tokens["ann"])
    assert drawn.state.phase == "discard"


def test_a_finished_protected_game_is_shown_to_its_players_without_a_token_as_log_and_replay_are(
        service: GameService) -> None:
    created = service.playing.create_game([PlayerSeat(name="ann"), PlayerSeat(name="bob", is_bot=True)], seed=1,
                                  dealer="bob", protect=True, options=GameOptions(lives=1))
    state, token = created.state, created.tokens["ann"]
    while state.status != "finished":
        command = heuristic_move(state, state.turn) if state.turn is not None else None
        assert command is not None
        state = service.playing.act(created.game_id, command, token=token).state
    assert service.playing.look(created.game_id, "ann").status == "finished"  # every card is public now
    assert service.replay(created.game_id, viewer="ann").state == service.playing.look(created.game_id, "ANN")
    with pytest.raises(NotFound):
        service.playing.look(created.game_id, "zed")


def test_refused_commands_write_nothing(service: GameService) -> None:
    created = service.playing.create_game([PlayerSeat(name="ann"), PlayerSeat(name="bob")], seed=1, dealer="bob")
    with pytest.raises(RuleViolation):
        service.playing.act(created.game_id, Draw("bob", "stock"))  # R11: ann is to play
    with pytest.raises(NotFound):
        service.playing.act(created.game_id, Draw("zed", "stock"))
    with pytest.raises(NotFound):
        service.playing.act("nosuchgame", Draw("ann", "stock"))
    assert len(service.reading.history(created.game_id)) == created.state.version


def test_an_exported_game_imports_into_a_fresh_database_and_a_tampered_one_is_refused(
    any_service: GameService, new_service: Callable[[], GameService]
) -> None:
    source = any_service
    outcome = source.playing.create_game([PlayerSeat(name=n, is_bot=True) for n in ("ann", "bob")], seed=11)
    records = source.archive.export_records(outcome.game_id)
    target = new_service()
    tampered = [dict(r) for r in records]
    tampered[5] = {**tampered[5], "recorded_at": "2020-01-01T00:00:00.000000Z"}
    with pytest.raises(RuleViolation):
        target.import_records(tampered)
    assert target.reading.list_games() == []
    assert target.import_records(records).ok
    assert target.audit(outcome.game_id).ok
    with pytest.raises(RuleViolation):
        target.import_records(records)  # already there


def test_r23_reading_the_log_as_a_player_in_a_throw_down_game_records_that_he_saw_his_hand(
    service: GameService,
) -> None:
    from scat_core.domain.options import GameOptions

    created = service.playing.create_game(
        [PlayerSeat(name="ann"), PlayerSeat(name="bob")], seed=4, dealer="bob", options=GameOptions(throw_down=True)
    )
    _, shown = service.reading.look_at_history(created.game_id, viewer="ann")
    assert [stored.type for stored, _ in shown][-1] == "HandViewed"
    with pytest.raises(RuleViolation, match="R23"):
        service.playing.act(created.game_id, ThrowDown("ann"))
    assert service.playing.act(created.game_id, ThrowDown("bob")).state.hand_number == 2


def test_a_move_in_a_finished_game_is_refused_saying_who_won(service: GameService) -> None:
    outcome = service.playing.create_game([PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="you")], seed=9,
                                          dealer="you")
    from scat_core.domain.commands import Knock

    state = outcome.state
    while state.status != "finished":  # you knock at every turn and discard the first card otherwise
        command = Knock("you") if state.knocker is None else Draw("you", "stock")
        if state.phase == "discard":
            from scat_core.domain.commands import Discard

            command = Discard("you", state.hands[1][0])
        state = service.playing.act(outcome.game_id, command).state
    with pytest.raises(RuleViolation, match=f"the game is over: {state.winner} won"):
        service.playing.act(outcome.game_id, Draw("you", "stock"))


def test_an_audit_fails_when_the_games_list_no_longer_has_the_game(db_url: str) -> None:
    from sqlalchemy import text

    service = open_database(migrated(db_url))
    outcome = service.playing.create_game([PlayerSeat(name=n, is_bot=True) for n in ("ann", "bob")], seed=2)
    with service.store.engine.begin() as connection:
        connection.execute(text("DELETE FROM games WHERE game_id = :g"), {"g": outcome.game_id})
    report = service.audit(outcome.game_id)
    assert not report.ok and "no entry" in report.problems[0]
    assert [r.game_id for r in service.audit_all()] == [outcome.game_id]


def test_a_history_damaged_outside_scat_is_one_clear_error_and_its_audit_names_the_event(sqlite_url: str) -> None:
    from sqlalchemy import text

    from scat_core.records.errors import CorruptHistory

    service = open_database(migrated(sqlite_url))
    created = service.playing.create_game([PlayerSeat(name="ann"), PlayerSeat(name="bob")], seed=1, dealer="bob")
    with service.store.engine.begin() as connection:  # what only someone bypassing scat can do
        connection.execute(text("DROP TRIGGER events_no_update"))
        connection.execute(
            text("UPDATE events SET data = '{not json' WHERE game_id = :g AND seq = 2"), {"g": created.game_id}
        )
    with pytest.raises(CorruptHistory, match="event 2 (of game|was altered)"):
        service.playing.look(created.game_id)
    report = service.audit(created.game_id)
    assert not report.ok and report.first_bad_seq == 2


def test_r23_replaying_a_past_hand_records_no_look_at_the_current_one(service: GameService) -> None:
    from scat_core.domain.options import GameOptions

    created = service.playing.create_game(
        [PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], seed=8, dealer="ann",
        options=GameOptions(throw_down=True, lives=5),
    )
    state = service.playing.act(created.game_id, ThrowDown("you")).state  # unseen, in hand 1
    assert state.hand_number == 2 and state.hand_unseen(0)
    last = state.version
    service.reading.look_at_history(created.game_id, "you", up_to=3)  # inside hand 1
    assert len(service.reading.history(created.game_id)) == last
    service.reading.look_at_history(created.game_id, "you")  # the current hand: now a look
    assert service.reading.history(created.game_id)[-1].type == "HandViewed"


def test_r23_replaying_the_current_hand_before_a_look_shows_it_face_down_and_records_no_look(
        service: GameService) -> None:
    """A replay cut inside the current hand shows it as the viewer saw it then: face down before
    his first look; nothing is shown, so no look is recorded and he may still throw down (R23)."""
    from scat_core.domain.options import GameOptions
    from scat_core.domain.views import HIDDEN

    created = service.playing.create_game([PlayerSeat(name="a"), PlayerSeat(name="b"), PlayerSeat(name="c")], seed=8,
                                  dealer="c", options=GameOptions(throw_down=True))
    last = created.state.version
    mine = service.reading.history(created.game_id)[1].event.deck[0:9:3]  # type: ignore[union-attr]  # a: first dealt to
    for to in (2, last):  # the deal, and the last event given as --to
        replayed = service.replay(created.game_id, to=to, viewer="a")
        assert replayed.state.hands[0] == (HIDDEN,) * 3  # face down
        shown_deck = replayed.events[1].event.deck  # type: ignore[union-attr]
        assert not set(mine) & set(shown_deck)  # the deal as the public saw it
    assert len(service.reading.history(created.game_id)) == last  # nothing recorded
    thrown = service.playing.act(created.game_id, ThrowDown("a")).state  # still allowed: he never looked (R23)
    assert thrown.version > last


def test_r23_a_show_without_a_look_keeps_a_face_down_hand_so_and_tells_its_deal_as_the_public_saw_it(
        any_service: GameService) -> None:
    """`show(look=False)` (what `scat play` shows) records no look: the hand stays face down, the
    news tell its deal without its cards, and the player may still throw down (R23)."""
    from scat_core.domain.views import HIDDEN

    service = any_service
    created = service.playing.create_game([PlayerSeat(name="you"), PlayerSeat(name="ann", is_bot=True)], seed=8,
                                  dealer="ann", options=GameOptions(throw_down=True))
    game, last = created.game_id, created.state.version
    mine = created.state.hands[0]
    shown = service.show(game, "you", look=False)
    assert shown.state.hands[0] == (HIDDEN,) * 3 and shown.state.hand_unseen(0)
    assert [move.kind for move in shown.moves][:2] == [ViewHand, ThrowDown]
    assert shown.news is not None
    deal = next(seen.event for seen in shown.news.events if seen.type == "HandDealt")
    assert not set(mine) & set(deal.deck)  # type: ignore[union-attr]
    assert len(service.reading.history(game)) == last  # nothing recorded
    looked = service.show(game, "you")  # a look, as `scat show --as` is
    assert looked.state.hands[0] == mine and ThrowDown not in [move.kind for move in looked.moves]
    assert service.reading.history(game)[-1].type == "HandViewed"
    with pytest.raises(RuleViolation, match="R23"):
        service.playing.act(game, ThrowDown("you"))
