"""Talk at the table: a player of the game says one line (MessageSaid). It is not a move (no turn,
no clock: R11, R28 are untouched), a player out of the game or after its end may speak, a stranger
may not, and the audit re-decides every message like any command."""

from __future__ import annotations

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import CreateGame, Draw, Resign, Say
from scat_core.domain.decide import MAX_MESSAGE, decide
from scat_core.domain.errors import AuthFailed, BadInput, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.state import GameState
from scat_core.records.chain import audit_records
from tests.support.domain import CHANCE, GAME_ID, create, given, play, records_for, seats


def test_a_message_changes_no_turn_and_no_clock_only_the_log() -> None:
    events = create(("ann", "bob"), "bob")
    before = fold(events)
    after = given(events).when(Say("ANN", "hello")).then([ev.MessageSaid(player="ann", text="hello")])
    assert (after.turn, after.phase, after.turn_began, after.hands) == (before.turn, before.phase,
                                                                         before.turn_began, before.hands)
    assert after.version == before.version + 1


def test_a_player_out_of_the_game_and_every_player_after_its_end_may_still_speak() -> None:
    events = play(create(("ann", "bob", "cy"), "cy"), Resign("bob"))
    given(events).when(Say("bob", "gg")).then([ev.MessageSaid(player="bob", text="gg")])
    over = play(events, Resign("cy"))
    assert fold(over).status == "finished"
    given(over).when(Say("cy", "well played")).then([ev.MessageSaid(player="cy", text="well played")])
    given(over).when(Draw("ann", "stock")).then_refused(RuleViolation, "R26")


@pytest.mark.parametrize("text", ["", "   ", "a\nb", "tab\there", "x" * (MAX_MESSAGE + 1)])
def test_a_message_is_one_line_of_printable_text_of_at_most_500_characters(text: str) -> None:
    given(create(("ann", "bob"), "bob")).when(Say("ann", text)).then_refused(BadInput)


def test_the_longest_message_and_any_script_are_said_as_written() -> None:
    text = "ÿ" * (MAX_MESSAGE - 4) + " 😀 é"[:4]
    given(create(("ann", "bob"), "bob")).when(Say("ann", text)).then([ev.MessageSaid(player="ann", text=text)])


def test_someone_without_a_seat_cannot_speak_and_neither_can_a_bot() -> None:
    events = create(("ann", "bob"), "bob")
    given(events).when(Say("zed", "hi")).then_refused(AuthFailed)
    with_a_bot = decide(GameState(), CreateGame(GAME_ID, seats("ann", "b0", bots=("b0",)), dealer="ann"), CHANCE)
    given(with_a_bot).when(Say("b0", "hi")).then_refused(RuleViolation, match="bots do not talk")


def test_a_game_with_messages_during_and_after_it_audits_clean_and_ends_where_it_ended() -> None:
    events = play(create(("ann", "bob"), "bob"), Say("ann", "hi"), Draw("ann", "stock"), Say("bob", "go on"))
    over = play(events, Resign("bob"), Say("ann", "thanks"), Say("bob", "rematch?"))
    assert isinstance(ev.ending_of(over), ev.GameWon) and ev.ending_of(over[:-5]) is None
    report = audit_records(records_for(over))
    assert (report.ok, report.problems, report.seed_verified) == (True, [], True)
