"""Nobody is seated without consent (R28): a game that asks for it waits, nothing dealt, until every
seated human has accepted and every open seat is taken (joining is accepting); a decline or the
creator's withdrawal cancels it, as do invitations left unanswered past their time. Every step is
an event the audit re-decides."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from scat_core.domain import events as ev
from scat_core.domain.cards import DECK
from scat_core.domain.commands import AcceptSeat, CreateGame, DeclineSeat, Draw, ExpireInvitations, JoinGame, Say
from scat_core.domain.decide import INVITATION_SECONDS, decide
from scat_core.domain.errors import BadInput, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from scat_core.records.chain import audit_records
from tests.support.domain import CHANCE, GAME_ID, given, play, records_for, seats

CREATED = datetime(2026, 12, 5, tzinfo=UTC)


def invited(*names: str, creator: str = "ann", open_seats: int = 0, bots: tuple[str, ...] = (),
            **more: Any) -> list[ev.Event]:
    """A game created by `creator` that asks its other humans for consent (a server's)."""
    command = CreateGame(GAME_ID, seats(*names, bots=bots), GameOptions(), dealer=names[0], creator=creator,
                         consent=True, open_seats=open_seats, **more)
    return decide(GameState(), command, CHANCE)


def test_r28_a_game_waits_undealt_for_its_other_humans_and_a_move_names_who_it_waits_for() -> None:
    events = invited("ann", "bob", "cy", "b0", bots=("b0",))
    assert [event.type for event in events] == ["GameCreated"]
    state = fold(events)
    assert (state.status, state.awaiting, state.hand_number, state.turn) == ("pending", ("bob", "cy"), 0, None)
    assert events[0].expires == INVITATION_SECONDS  # type: ignore[union-attr]
    given(events).when(Draw("bob", "stock")).then_refused(RuleViolation, "R28", match="waits for bob and cy to accept")
    given(events).when(Say("bob", "who else?")).then([ev.MessageSaid(player="bob", text="who else?")])


def test_r28_the_last_acceptance_deals_the_first_hand_and_starts_the_first_turns_clock() -> None:
    events = invited("ann", "bob", "cy")
    events = play(events, AcceptSeat("BOB"))
    assert fold(events).awaiting == ("cy",)
    produced, state = given(events).when(AcceptSeat("cy")).then_starts_with([ev.SeatAccepted(player="cy")])
    assert isinstance(produced[1], ev.HandDealt) and produced[1].hand_number == 1 and produced[1].dealer == "ann"
    assert (state.status, state.hand_number, state.turn_began) == ("active", 1, state.version)
    given(events).when(AcceptSeat("bob")).then_refused(RuleViolation, match="accepted already")
    given(events).when(AcceptSeat("ann")).then_refused(RuleViolation, match="accepted already")  # by creating
    given(events).when(AcceptSeat("zed")).then_refused(RuleViolation, match="no seat")


@pytest.mark.parametrize(("who", "reason"), [("bob", "declined"), ("ann", "withdrawn")])
def test_a_decline_or_the_creators_withdrawal_cancels_the_game_never_dealt(who: str, reason: str) -> None:
    events = play(invited("ann", "bob", "cy"), AcceptSeat("bob"))
    seed, salt = CHANCE.reveal()
    state = given(events).when(DeclineSeat(who)).then([ev.GameCancelled(by=who, reason=reason, seed=seed,  # type: ignore[arg-type]
                                                                          seed_salt=salt)])
    assert (state.status, state.winner, state.hand_number) == ("cancelled", None, 0)
    cancelled = play(events, DeclineSeat(who))
    given(cancelled).when(AcceptSeat("cy")).then_refused(RuleViolation, match="not waiting")
    given(cancelled).when(Draw("bob", "stock")).then_refused(RuleViolation, match="cancelled before its first deal")
    report = audit_records(records_for(cancelled))
    assert (report.ok, report.problems, report.seed_verified) == (True, [], True)


def test_open_seats_fill_in_the_order_joined_and_the_last_one_taken_deals() -> None:
    events = invited("ann", "b0", open_seats=2, bots=("b0",))
    assert fold(events).status == "pending" and fold(events).open_seats == 2
    events = play(events, JoinGame("zed"))
    given(events).when(JoinGame("ZED")).then_refused(RuleViolation, match="sits in game")
    given(events).when(JoinGame("zеd")).then_refused(RuleViolation, match="looks like")  # a Cyrillic е
    given(events).when(JoinGame("ᴀnn")).then_refused(RuleViolation, match="looks like")  # Unicode's confusables
    given(events).when(JoinGame("bad\nname")).then_refused(BadInput)
    produced, state = given(events).when(JoinGame("yan")).then_starts_with([ev.SeatTaken(player="yan")])
    assert isinstance(produced[1], ev.HandDealt)
    assert [p.name for p in state.players] == ["ann", "b0", "zed", "yan"] and state.status == "active"
    assert all(len(state.hands[seat]) == 3 for seat in range(4))  # R9: the joined are dealt too
    full = play(events, JoinGame("yan"))
    given(full).when(JoinGame("xi")).then_refused(RuleViolation, match="no open seat")
    report = audit_records(records_for(full))
    assert (report.ok, report.problems) == (True, [])


def test_r6_open_seats_count_among_the_two_to_nine_players() -> None:
    with pytest.raises(RuleViolation, match=r"not 3 and 7 open seats \(R6\)"):
        invited("ann", "bob", "cy", open_seats=7)


def test_a_stacked_first_deck_is_refused_for_a_game_that_waits_for_its_players() -> None:
    command = CreateGame(GAME_ID, seats("ann", "bob"), dealer="ann", first_deck=DECK, creator="ann", consent=True)
    with pytest.raises(BadInput, match="dealt at once"):
        decide(GameState(), command, CHANCE)


def test_invitations_unanswered_past_their_time_cancel_the_game_at_that_instant_not_before() -> None:
    events = invited("ann", "bob", expires=3600)
    early = ExpireInvitations(CREATED + timedelta(seconds=3599), CREATED)
    given(events).when(early).then_refused(RuleViolation, match="still open")
    seed, salt = CHANCE.reveal()
    on_time = ExpireInvitations(CREATED + timedelta(seconds=3600), CREATED)
    state = given(events).when(on_time).then([ev.GameCancelled(by=None, reason="expired", seed=seed,
                                                               seed_salt=salt)])
    assert state.status == "cancelled" and state.cancelled == "expired"


def test_a_game_with_nobody_to_wait_for_is_dealt_at_once() -> None:
    alone = invited("ann", "b0", bots=("b0",))
    assert [event.type for event in alone] == ["GameCreated", "HandDealt"] and fold(alone).status == "active"
