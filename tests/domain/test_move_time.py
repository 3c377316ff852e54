"""R28: a move time, claims of a turn that ran out, and the audit re-deciding each claim."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from scat_core.domain import events as ev
from scat_core.domain.audit import audit_events
from scat_core.domain.commands import ClaimTime, Discard, Draw
from scat_core.domain.errors import NotFound, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.options import GameOptions, format_duration, parse_duration, recorded_text
from scat_core.records.chain import audit_records
from scat_core.records.stored_log import GENESIS_HASH, chain_hash
from tests.support.domain import create, given, play, records_for

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C
HANDS = {"A": "9S 8S 2D", "B": "KH QH 3C", "C": "AS KS QD"}
BEGAN = datetime(2024, 1, 1, tzinfo=UTC)
MINUTE = 60


def game(**options: object) -> list[ev.Event]:
    return create(ABC, dealer="C", hands=HANDS, stock="5D 6D 7D 8D", **options)


def claim(claimer: str | None, after: float, began: datetime = BEGAN) -> ClaimTime:
    return ClaimTime(claimer, began + timedelta(seconds=after), began)


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("30m", 1800), ("36h", 129_600), ("2d", 172_800),
                                               ("1d12h", 129_600), ("1H30M", 5400)])
def test_r28_a_move_time_reads_as_seconds_and_prints_back_the_same(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds
    assert parse_duration(format_duration(seconds)) == seconds


@pytest.mark.parametrize("text", ["", "90", "s", "1x", "-5m", "1.5h", "2d 3h"])
def test_r28_a_move_time_that_is_not_a_duration_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_r28_a_game_without_a_move_time_records_its_options_exactly_as_before() -> None:
    assert "move_time" not in ev.to_record(game()[0])[2]["options"]
    assert GameOptions().model_dump() == GameOptions(move_time=None).model_dump()
    assert ev.to_record(game(move_time=90)[0])[2]["options"]["move_time"] == 90


def test_r28_a_plain_resignation_records_exactly_what_it_did_before() -> None:
    assert ev.to_record(ev.Resigned(player="A"))[2] == {"player": "A"}


def test_r28_the_turn_of_a_late_player_is_claimed_and_he_is_resigned_naming_the_cause() -> None:
    state = given(game(move_time=MINUTE)).when(claim("B", MINUTE)).then(
        [ev.Resigned(player="A", cause="move time", claimed_by="B")])
    a = state.players[0]
    assert (a.out, a.resigned, a.pennies) == (True, True, 3)
    assert state.name(state.turn) == "B" and state.phase == "draw"


def test_r28_the_server_itself_may_claim_a_turn_that_ran_out() -> None:
    given(game(move_time=MINUTE)).when(claim(None, MINUTE + 1)).then(
        [ev.Resigned(player="A", cause="move time", claimed_by=None)])


def test_r28_a_claim_before_the_move_time_is_up_is_refused() -> None:
    given(game(move_time=MINUTE)).when(claim("B", MINUTE - 1)).then_refused(RuleViolation, "R28", "1s to move")


def test_r28_a_claim_in_a_game_without_a_move_time_is_refused() -> None:
    given(game()).when(claim("B", 10 * 86_400)).then_refused(RuleViolation, "R28", "no move time")


def test_r28_a_player_may_not_claim_his_own_turn() -> None:
    given(game(move_time=MINUTE)).when(claim("A", MINUTE)).then_refused(RuleViolation, "R28", "your own turn")


def test_r28_only_a_player_still_in_the_game_may_claim() -> None:
    given(game(move_time=MINUTE)).when(claim("Z", MINUTE)).then_refused(NotFound)
    history = game(move_time=MINUTE)
    history.append(ev.Resigned(player="C"))
    given(history).when(claim("C", MINUTE)).then_refused(RuleViolation, "R27")


def test_r28_the_move_time_counts_from_the_event_that_made_it_his_turn_not_from_his_draw() -> None:
    history = play(game(move_time=MINUTE), Draw("A", "stock"))
    state = fold(history)
    assert state.turn_began == 2  # the deal made it A's turn; his draw did not start a new one
    history = play(history, Discard("A", "5D"))
    assert fold(history).turn_began == len(history)  # A's discard made it B's turn


def test_r28_a_claim_that_leaves_one_player_ends_the_game_as_a_resignation_would() -> None:
    history = game(move_time=MINUTE)
    history.append(ev.Resigned(player="C"))
    produced, state = given(history).when(claim("B", MINUTE)).then_starts_with(
        [ev.Resigned(player="A", cause="move time", claimed_by="B")])
    assert isinstance(produced[-1], ev.GameWon) and state.winner == "B"


def timed_records(events: list[ev.Event], claim_at: datetime) -> list[dict[str, object]]:
    """Records of `events` recorded at BEGAN, the last (the claim's events) at `claim_at`, chained."""
    records = records_for(events)
    times = [recorded_text(BEGAN)] * len(events)
    claim_seq = next(i for i, e in enumerate(events) if isinstance(e, ev.Resigned) and e.cause)
    times[claim_seq:] = [recorded_text(claim_at)] * (len(events) - claim_seq)
    for record, moment in zip(records, times, strict=True):
        record["recorded_at"] = moment
    previous = GENESIS_HASH
    for record in records:
        record["prev_hash"] = previous
        record["hash"] = previous = chain_hash(previous, record)
    return records


def test_r28_the_audit_accepts_a_claim_recorded_once_the_move_time_was_up() -> None:
    history = game(move_time=MINUTE)
    history += given(history).when(claim("B", MINUTE)).then_starts_with([])[0]
    assert audit_records(timed_records(history, BEGAN + timedelta(seconds=MINUTE))).ok


def test_r28_the_audit_fails_a_claim_recorded_before_the_move_time_was_up_at_its_seq() -> None:
    history = game(move_time=MINUTE)
    history += given(history).when(claim("B", MINUTE)).then_starts_with([])[0]
    report = audit_records(timed_records(history, BEGAN + timedelta(seconds=MINUTE - 1)))
    assert not report.ok and report.first_bad_seq == len(game()) + 1
    assert "R28" in report.problems[0]


def test_r28_the_audit_fails_a_claim_it_is_given_no_times_for() -> None:
    history = game(move_time=MINUTE)
    history += given(history).when(claim("B", MINUTE)).then_starts_with([])[0]
    assert not audit_events("g1", history).ok
