"""R27: resigning, at any time, in turn or not, under both rules versions."""

from __future__ import annotations

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import Declare31, Discard, Draw, Knock, Resign
from scat_core.domain.errors import RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.invariants import invariant_problems
from scat_core.domain.views import HIDDEN, redact, redact_state
from scat_core.records.chain import audit_records
from tests.support.decks import cards
from tests.support.domain import CHANCE, SALT, SEED, create, given, play, records_for

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C
HANDS = {"A": "9S 8S 2D", "B": "KH QH 3C", "C": "AS KS QD"}  # 17, 20, 21
VERSIONS = pytest.mark.parametrize("rules_version", [1, 2])


def game(rules_version: ev.RulesVersion = 2, **options: object) -> list[ev.Event]:
    return create(ABC, dealer="C", hands=HANDS, stock="5D 6D 7D 8D", rules_version=rules_version, **options)


@VERSIONS
def test_r27_a_player_may_resign_out_of_turn_his_cards_set_aside_his_pennies_his(
    rules_version: ev.RulesVersion,
) -> None:
    state = given(game(rules_version)).when(Resign("b")).then([ev.Resigned(player="B")])
    b = state.players[1]
    assert (b.out, b.resigned, b.pennies, state.kitty) == (True, True, 3, 0)
    assert state.hands[1] == () and sorted(state.set_aside) == sorted(cards(HANDS["B"]))
    assert state.name(state.turn) == "A" and state.phase == "draw"
    assert invariant_problems(state) == []


@VERSIONS
def test_r27_a_player_resigning_on_his_turn_is_skipped(rules_version: ev.RulesVersion) -> None:
    state = given(game(rules_version)).when(Resign("A")).then([ev.Resigned(player="A")])
    assert state.name(state.turn) == "B" and state.phase == "draw"


def test_r27_a_player_may_resign_in_the_middle_of_his_turn_with_all_four_cards_set_aside() -> None:
    history = play(game(), Draw("A", "stock"))
    state = given(history).when(Resign("A")).then([ev.Resigned(player="A")])
    assert sorted(state.set_aside) == sorted([*cards(HANDS["A"]), "5D"])
    assert (state.name(state.turn), state.phase, state.taken_from_discard) == ("B", "draw", None)
    assert invariant_problems(state) == []


@VERSIONS
def test_r27_a_card_taken_from_the_discard_pile_goes_back_on_it_when_its_taker_resigns_mid_turn(
    rules_version: ev.RulesVersion,
) -> None:
    # The deal's discard top (7C) is the whole pile: A takes it and resigns before discarding.
    history = create(ABC, dealer="C", hands=HANDS, discard="7C", rules_version=rules_version)
    history = play(history, Draw("A", "discard"))
    assert fold(history).discard == ()
    state = given(history).when(Resign("A")).then([ev.Resigned(player="A")])
    assert state.discard == ("7C",) and sorted(state.set_aside) == sorted(cards(HANDS["A"]))
    assert invariant_problems(state) == []
    after = fold(play(history, Resign("A"), Draw("B", "discard")))  # B may take it (R12)
    assert "7C" in after.hands[1]


@VERSIONS
def test_r27_r16_a_knock_stands_after_the_knocker_resigns_and_the_final_round_skips_him(
    rules_version: ev.RulesVersion,
) -> None:
    history = play(game(rules_version), Knock("A"), Resign("A"), Draw("B", "stock"), Discard("B", "5D"),
                   Draw("C", "stock"))
    produced, state = given(history).when(Discard("C", "6D")).then_starts_with([
        ev.CardDiscarded(player="C", card="6D"),
        ev.ShowdownHeld(caller="A", hands={"B": cards(HANDS["B"]), "C": cards(HANDS["C"])},
                        values={"B": 20, "C": 21}, lives_lost={"B": 1}),  # R19: A takes no part
        ev.PennyPaid(player="B"),
    ])
    assert isinstance(produced[-1], ev.HandDealt) and produced[-1].dealer == "B"  # R8: the next active after C
    assert state.hand_number == 2 and state.set_aside == () and state.hands[0] == ()
    assert state.name(state.turn) == "C"  # the resigned player is dealt no cards and never plays (R9, R11)


def test_r27_the_last_player_after_a_knock_resigning_on_his_turn_ends_the_hand_in_a_showdown() -> None:
    history = play(game(), Knock("A"), Draw("B", "stock"), Discard("B", "5D"))
    given(history).when(Resign("C")).then_starts_with([
        ev.Resigned(player="C"),
        ev.ShowdownHeld(caller="A", hands={"A": cards(HANDS["A"]), "B": cards(HANDS["B"])},
                        values={"A": 17, "B": 20}, lives_lost={"A": 2}),  # R19b: the knocker alone lowest
    ])


def test_r27_a_resignation_out_of_turn_after_a_knock_shortens_the_final_round() -> None:
    # A knocks; C (A's right) resigns while B is to play: B's discard ends the hand.
    history = play(game(), Knock("A"), Resign("C"), Draw("B", "stock"))
    produced, _ = given(history).when(Discard("B", "5D")).then_starts_with([ev.CardDiscarded(player="B", card="5D")])
    assert isinstance(produced[1], ev.ShowdownHeld) and set(produced[1].values) == {"A", "B"}


@pytest.mark.parametrize(("rules_version", "pennies", "kitty"), [(1, 3, 1), (2, 4, 0)])
def test_r27_r26_when_one_active_player_remains_he_wins_at_once(
    rules_version: ev.RulesVersion, pennies: int, kitty: int
) -> None:
    # A declares 31 in hand 1 (B pays a penny); in hand 2, B resigns: A wins. Rules version 1: the
    # kitty stays the kitty; version 2 (R26): A's final pennies include it.
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"}, rules_version=rules_version)
    history = play(history, Declare31("A"))
    state = given(history).when(Resign("B")).then(
        [ev.Resigned(player="B"), ev.GameWon(winner="A", kitty=1, seed=SEED, seed_salt=SALT)]
    )
    assert (state.status, state.winner, state.players[0].pennies, state.players[1].pennies, state.kitty) == (
        "finished", "A", pennies, 2, kitty)
    assert invariant_problems(state) == []


def test_r27_a_resigned_player_may_not_act_nor_resign_again() -> None:
    history = play(game(), Resign("B"))
    given(history).when(Resign("B")).then_refused(RuleViolation, "R27", match="B has resigned")
    given(history).when(Declare31("B")).then_refused(RuleViolation, "R27")


def test_r27_nobody_may_resign_once_the_game_is_over() -> None:
    history = play(create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"}), Resign("B"))
    given(history).when(Resign("A")).then_refused(RuleViolation, match="the game is over")


def test_r27_a_resignation_shows_nobody_a_card_and_the_cards_set_aside_stay_hidden() -> None:
    history = play(game(), Draw("A", "stock"))
    before = fold(history)
    after = fold(play(history, Resign("A"))[len(history):], before)
    for viewer in (None, "A", "B", "C"):
        assert redact(ev.Resigned(player="A"), before, viewer) == ev.Resigned(player="A")
        seen = redact_state(after, viewer)
        shown = {card for hand in seen.hands for card in hand} | {*seen.stock, *seen.discard, *seen.set_aside}
        assert not shown & set(after.set_aside), viewer
        assert seen.set_aside == (HIDDEN,) * 4 and seen.players[0].resigned is True
    assert len(after.set_aside) == 4 and after.players[0].resigned is True


@VERSIONS
def test_r27_audit_re_decides_a_resignation(rules_version: ev.RulesVersion) -> None:
    history = play(game(rules_version), Knock("A"), Draw("B", "stock"), Discard("B", "5D"), Resign("C"))
    assert audit_records(records_for(history)).ok
    at = next(i for i, e in enumerate(history) if isinstance(e, ev.Resigned))
    forged = [*history[:at], *history[at + 1:]]  # the showdown without the resignation that caused it
    assert audit_records(records_for(forged)).first_bad_seq == at + 1
    report = audit_records(records_for([*history, ev.Resigned(player="C")]))  # once out, out for good
    assert not report.ok and report.first_bad_seq == len(history) + 1 and "R27" in report.problems[0]


def test_r27_a_game_of_three_goes_on_after_a_resignation_and_audits_clean() -> None:
    history = play(game(), Resign("C"), Draw("A", "stock"), Discard("A", "5D"), Knock("B"),
                   Draw("A", "stock"), Discard("A", "6D"))
    state = fold(history)
    assert state.hand_number == 2 and [p.out for p in state.players] == [False, False, True]
    assert isinstance(history[-1], ev.HandDealt) and history[-1].deck == tuple(CHANCE.deck(2))
    assert audit_records(records_for(history)).ok



TIED = {"A": "9S 8S 2D", "B": "KH QH 3C", "C": "KD QD 2S"}  # 17, 20, 20


def knocker_resigns_and_the_others_tie(rules_version: ev.RulesVersion, **options: object) -> list[ev.Event]:
    """A knocks and resigns; B and C end the final round holding 20 each."""
    history = create(ABC, dealer="C", hands=TIED, stock="5D 6D 7D 8D", rules_version=rules_version, **options)
    return play(history, Knock("A"), Resign("A"), Draw("B", "stock"), Discard("B", "5D"), Draw("C", "stock"))


@VERSIONS
def test_r27_r26_a_showdown_without_the_knocker_never_puts_every_remaining_player_out(
    rules_version: ev.RulesVersion,
) -> None:
    # B and C tie for lowest on their last life (no dole): by R19 both would lose it and nobody
    # would remain. R26 says no hand puts every player out; this one, which its reasoning misses
    # (the knocker resigned, R27), costs nobody a life, by scat's decision, and the next hand is dealt.
    history = knocker_resigns_and_the_others_tie(rules_version, lives=1, no_dole=True)
    produced, state = given(history).when(Discard("C", "6D")).then_starts_with([
        ev.CardDiscarded(player="C", card="6D"),
        ev.ShowdownHeld(caller="A", hands={"B": cards(TIED["B"]), "C": cards(TIED["C"])},
                        values={"B": 20, "C": 20}, lives_lost={}),
    ])
    assert len(produced) == 3 and isinstance(produced[2], ev.HandDealt)
    assert [(p.name, p.out, p.pennies) for p in state.players] == [("A", True, 1), ("B", False, 1), ("C", False, 1)]
    assert state.status == "active" and state.phase == "draw" and invariant_problems(state) == []


def test_r27_r19_a_tie_without_the_knocker_that_leaves_someone_in_costs_each_a_life_as_before() -> None:
    # The same tie on the dole: B and C each pay their last penny and play on (R25), as R19 says.
    history = knocker_resigns_and_the_others_tie(2, lives=1)
    produced, state = given(history).when(Discard("C", "6D")).then_starts_with([
        ev.CardDiscarded(player="C", card="6D"),
        ev.ShowdownHeld(caller="A", hands={"B": cards(TIED["B"]), "C": cards(TIED["C"])},
                        values={"B": 20, "C": 20}, lives_lost={"B": 1, "C": 1}),
        ev.PennyPaid(player="B"),
        ev.PennyPaid(player="C"),
    ])
    assert [(p.out, p.on_dole) for p in state.players[1:]] == [(False, True), (False, True)]
