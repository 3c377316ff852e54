"""Audit: a game is verified from its events alone; tampering is found at its first seq."""

from __future__ import annotations

import random
from typing import Any

from scat_core.domain import events as ev
from scat_core.domain.audit import audit_events
from scat_core.domain.cards import DECK
from scat_core.domain.commands import Declare31, Discard, Draw, Knock
from scat_core.domain.evolve import fold
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import seed_commitment
from scat_core.records.chain import audit_records
from scat_core.records.stored_log import GENESIS_HASH, chain_hash
from tests.support.domain import create, heuristic, play, play_out, records_for, take_turn, uniform

GAME = "g-11"


def finished_game() -> list[ev.Event]:
    events, state = play_out(("A", "B", "C"), [heuristic, uniform(random.Random(3)), heuristic], "11",
                             options=GameOptions(lives=2), dealer="B")
    assert state.status == "finished"
    return events


def rechained(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records with seqs and hashes recomputed, as a forger would."""
    previous, out = GENESIS_HASH, []
    for seq, record in enumerate(records, start=1):
        record = {**record, "seq": seq, "prev_hash": previous}
        record["hash"] = chain_hash(previous, record)
        out.append(record)
        previous = record["hash"]
    return out


def index_of(events: list[ev.Event], kind: type, after: int = 0) -> int:
    return next(i for i, event in enumerate(events) if isinstance(event, kind) and i >= after)


def test_an_honest_finished_game_passes_with_its_seed_verified() -> None:
    events = finished_game()
    report = audit_events(GAME, events)
    assert (report.ok, report.events, report.first_bad_seq, report.problems, report.seed_verified) == (
        True, len(events), None, [], True
    )
    assert audit_records(records_for(events, GAME)).ok


def test_an_honest_running_game_passes_without_its_seed() -> None:
    history = create(("A", "B", "C"), dealer="C", hands={"A": "AS KS 4S", "B": "KH QH 2C", "C": "10D 2S 3C"},
                     throw_down=True)
    history = play(history, Draw("A", "stock"), Discard("A", "4S"), Knock("B"))
    report = audit_events("g1", history)
    assert report.ok and not report.seed_verified


def test_a_changed_card_in_a_later_deal_is_found_at_that_event() -> None:
    events = finished_game()
    at = index_of(events, ev.HandDealt, after=2)
    deal = events[at]
    assert isinstance(deal, ev.HandDealt)
    deck = list(deal.deck)
    deck[0], deck[-1] = deck[-1], deck[0]
    events[at] = deal.model_copy(update={"deck": tuple(deck)})
    report = audit_events(GAME, events)
    assert not report.ok and report.first_bad_seq == at + 1
    assert f"event {at + 1}" in report.problems[0]


def test_a_changed_discard_is_found_at_that_event() -> None:
    events = finished_game()
    at = index_of(events, ev.CardDiscarded)
    state = fold(events[:at])
    not_held = next(card for card in DECK if card not in state.hands[state.turn])  # type: ignore[index]
    events[at] = events[at].model_copy(update={"card": not_held})
    report = audit_events(GAME, events)
    assert not report.ok and report.first_bad_seq == at + 1


def test_a_removed_event_is_found_where_it_is_missing() -> None:
    events = finished_game()
    at = index_of(events, ev.CardDrawn, after=12)
    report = audit_events(GAME, events[:at] + events[at + 1 :])
    assert not report.ok and report.first_bad_seq == at + 1
    assert "R12" in report.problems[0]  # the discard that follows has no draw before it


def test_a_wrong_revealed_seed_is_found_at_the_last_event() -> None:
    events = finished_game()
    events[-1] = events[-1].model_copy(update={"seed": "12"})
    report = audit_events(GAME, events)
    assert not report.ok and report.first_bad_seq == len(events)
    assert "commitment" in report.problems[0]


def test_a_forged_seed_and_commitment_still_fail_on_the_first_deal() -> None:
    events = finished_game()
    events[0] = events[0].model_copy(update={"seed_commitment": seed_commitment("12", "x")})
    events[-1] = events[-1].model_copy(update={"seed": "12", "seed_salt": "x"})
    report = audit_events(GAME, events)
    assert not report.ok and report.first_bad_seq == 2  # the deal of hand 1 is not seed 12's


def test_stored_records_with_a_changed_card_fail_on_the_hash_chain_at_that_seq() -> None:
    events = finished_game()
    records = records_for(events, GAME)
    at = index_of(events, ev.CardDiscarded, after=10)
    records[at] = {**records[at], "data": {**records[at]["data"], "card": "AS"}}
    report = audit_records(records)
    assert not report.ok and report.first_bad_seq == at + 1 and "altered" in report.problems[0]


def test_stored_records_with_a_removed_event_fail_at_the_gap() -> None:
    records = records_for(finished_game(), GAME)
    report = audit_records(records[:5] + records[6:])
    assert not report.ok and report.first_bad_seq == 6


def test_stored_records_forged_and_rechained_still_fail_on_the_rules() -> None:
    events = finished_game()
    at = index_of(events, ev.CardDrawn, after=20)
    records = records_for(events, GAME)
    drawn = events[at]
    assert isinstance(drawn, ev.CardDrawn)
    records[at] = {**records[at], "data": {**records[at]["data"], "card": "AS" if drawn.card != "AS" else "KS"}}
    report = audit_records(rechained(records))
    assert not report.ok and report.first_bad_seq == at + 1


def test_an_event_no_command_explains_is_rejected() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"})
    history = [*history, ev.PennyPaid(player="B")]
    report = audit_events("g1", history)
    assert not report.ok and report.first_bad_seq == 3


def test_an_illegal_move_is_rejected_with_the_rule_it_breaks() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"}, min_knock=25)
    history = [*history, ev.Knocked(player="B")]
    report = audit_events("g1", history)
    assert not report.ok and report.first_bad_seq == 3 and "R11" in report.problems[0]
    history = play(history[:-1], Declare31("A"))
    assert audit_events("g1", history).ok


def test_a_running_game_whose_recorded_deck_is_not_the_52_cards_is_rejected_at_the_deal() -> None:
    history = create(("A", "B", "C"), dealer="C")
    deal = history[1]
    assert isinstance(deal, ev.HandDealt)
    twice = deal.model_copy(update={"deck": (deal.deck[1], *deal.deck[1:])})
    report = audit_events("g1", [history[0], twice])
    assert not report.ok and report.first_bad_seq == 2 and "twice" in report.problems[0]


def test_a_forged_deck_too_short_to_deal_is_reported_not_a_crash() -> None:
    # A running game: the recorded deck is all the audit has, and it is cut to 5 cards.
    history = create(("A", "B", "C"), dealer="C")
    deal = history[1]
    assert isinstance(deal, ev.HandDealt)
    forged = [history[0], deal.model_copy(update={"deck": deal.deck[:5]})]
    report = audit_events("g1", forged)
    assert not report.ok and report.first_bad_seq == 2
    report = audit_records(rechained(records_for(forged)))
    assert not report.ok and report.first_bad_seq == 2


def test_malformed_stored_records_are_reported_not_a_crash() -> None:
    records = records_for(create(("A", "B", "C"), dealer="C"))
    no_hash = [records[0], {key: value for key, value in records[1].items() if key != "hash"}]
    data_not_an_object = rechained([records[0], {**records[1], "data": [1, 2]}])
    version_not_a_number = rechained([records[0], {**records[1], "schema_version": "1"}])
    for malformed in (no_hash, data_not_an_object, version_not_a_number):
        report = audit_records(malformed)
        assert not report.ok and report.first_bad_seq == 2, report


def test_a_running_game_with_a_drawn_dealer_and_reshuffles_audits_clean_from_its_records() -> None:
    history = create(("A", "B"), dealer=None)
    for _ in range(47):  # 45 cards of stock, then a reshuffle
        history = take_turn(history)
    assert any(isinstance(event, ev.StockReshuffled) for event in history)
    report = audit_records(records_for(history))
    assert report.ok and not report.seed_verified


def test_a_recorded_reshuffle_that_is_not_the_old_discard_pile_is_rejected() -> None:
    history = create(("A", "B"), dealer="B")
    for _ in range(46):
        history = take_turn(history)
    at = index_of(history, ev.StockReshuffled)
    reshuffle = history[at]
    assert isinstance(reshuffle, ev.StockReshuffled)
    history[at] = reshuffle.model_copy(update={"stock": reshuffle.stock[1:]})  # a card gone
    report = audit_events("g1", history)
    assert not report.ok and report.first_bad_seq == at + 1


def test_stored_records_out_of_order_or_of_another_game_fail_at_that_seq() -> None:
    records = records_for(finished_game(), GAME)
    swapped = rechained(records)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    report = audit_records(swapped)
    assert not report.ok and report.first_bad_seq == 4 and "missing" in report.problems[0]
    other = rechained([*records[:6], {**records[6], "game_id": "another"}, *records[7:]])
    report = audit_records(other)
    assert not report.ok and report.first_bad_seq == 7 and "another" in report.problems[0]


def test_an_unreadable_stored_event_fails_at_its_seq() -> None:
    records = records_for(finished_game(), GAME)
    unknown = rechained([*records[:8], {**records[8], "type": "CardsBurned"}, *records[9:]])
    report = audit_records(unknown)
    assert not report.ok and report.first_bad_seq == 9 and "unreadable" in report.problems[0]
    sleeve = {**records[2], "data": {**records[2]["data"], "source": "sleeve"}}
    report = audit_records(rechained([*records[:2], sleeve, *records[3:]]))
    assert not report.ok and report.first_bad_seq == 3


def test_a_game_stopped_short_of_what_the_rules_require_is_rejected() -> None:
    events = finished_game()
    at = index_of(events, ev.ShowdownHeld)
    report = audit_events(GAME, events[: at + 1])  # the pennies and the next deal are missing
    assert not report.ok and report.first_bad_seq == at + 2


def test_an_empty_history_is_not_a_game() -> None:
    assert not audit_events("g1", []).ok
    assert not audit_records([]).ok


def test_a_first_deal_relabelled_as_stacked_in_a_finished_seeded_game_is_rejected() -> None:
    events = finished_game()
    deal = events[1]
    assert isinstance(deal, ev.HandDealt) and not deal.stacked
    rigged = tuple(reversed(deal.deck))
    forged = [events[0], deal.model_copy(update={"deck": rigged, "stacked": True}), *events[2:]]
    report = audit_events(GAME, forged)
    assert not report.ok and report.first_bad_seq == 2


def test_a_game_created_with_a_stacked_first_deck_says_so_in_its_audit() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS 4S", "B": "KH QH 2C"})
    assert isinstance(history[0], ev.GameCreated) and history[0].first_deck_stacked
    report = audit_events(history[0].game_id, history)
    assert report.ok and report.first_deck_stacked


def test_a_history_whose_first_event_creates_another_game_is_rejected_at_event_1() -> None:
    events = finished_game()
    created = events[0]
    assert isinstance(created, ev.GameCreated)
    moved = [created.model_copy(update={"game_id": "someone-else"}), *events[1:]]
    report = audit_records(rechained(records_for(moved, GAME)))
    assert not report.ok and report.first_bad_seq == 1


def test_a_rechained_copy_with_loosely_typed_data_is_rejected_as_not_canonical() -> None:
    records = records_for(finished_game(), GAME)
    loose = [dict(record) for record in records]
    loose[1] = {**loose[1], "data": {**loose[1]["data"], "hand_number": "1"}}
    report = audit_records(rechained(loose))
    assert not report.ok and report.first_bad_seq == 2 and "canonical" in report.problems[0]


def test_a_mismatch_names_the_fields_that_differ_but_never_the_cards() -> None:
    events = finished_game()
    at = index_of(events, ev.CardDrawn)
    drawn = events[at]
    assert isinstance(drawn, ev.CardDrawn)
    other = next(card for card in DECK if card != drawn.card)
    report = audit_events(GAME, [*events[:at], drawn.model_copy(update={"card": other}), *events[at + 1 :]])
    assert not report.ok and report.first_bad_seq == at + 1
    assert "card" in report.problems[0] and other not in report.problems[0] and drawn.card not in report.problems[0]
