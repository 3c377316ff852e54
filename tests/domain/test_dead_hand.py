"""Rules version 3: every hand ends. A hand's stock is rebuilt twice at most (R17); when the last
card of its third stock has been drawn, the hand ends after that turn in a showdown (R17b),
and min-knock is 1 to 30 (R15). Games of versions 1 and 2 keep their own rules."""

from __future__ import annotations

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import CreateGame, Discard, Draw, Knock, Resign
from scat_core.domain.decide import showdown_losses
from scat_core.domain.errors import BadInput
from scat_core.domain.evolve import fold
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState, Player
from scat_core.records.chain import audit_records
from tests.support.domain import CHANCE, create, given, play, records_for, seats, take_turn


def until_last_stock_card(events: list[ev.Event], left: int = 1) -> list[ev.Event]:
    """Whole turns (draw from the stock, discard that card) until the third stock holds `left` cards."""
    state = fold(events)
    while not (state.reshuffles == 2 and len(state.stock) == left):
        events = take_turn(events)
        state = fold(events)
    return events


def test_r15_min_knock_31_is_refused_when_a_rules_version_3_game_is_created() -> None:
    command = CreateGame("g", seats("A", "B"), GameOptions(min_knock=31))
    given([]).when(command).then_refused(BadInput, "R15", match="min-knock is 1 to 30")


@pytest.mark.parametrize("rules_version", [1, 2])
def test_r15_a_game_of_rules_version_1_or_2_keeps_its_min_knock_31(rules_version: ev.RulesVersion) -> None:
    created = create(("A", "B"), "B", min_knock=31, rules_version=rules_version)
    assert fold(created).options.min_knock == 31


def test_r17b_the_hand_ends_in_a_showdown_after_the_turn_that_drew_the_third_stocks_last_card() -> None:
    events = until_last_stock_card(create(("A", "B"), "B", lives=3))
    state = fold(events)
    player = state.players[state.turn].name  # type: ignore[index]
    drawn = play(events, Draw(player, "stock"))
    assert fold(drawn).phase == "discard"  # the draw alone does not end it: his turn is not over
    card = fold(drawn).hands[state.turn][-1]  # type: ignore[index]
    after = given(drawn).when(Discard(player, card)).then_starts_with(
        [ev.CardDiscarded(player=player, card=card), ev.StockRanOut()])
    produced, final = after
    showdown = produced[2]
    assert isinstance(showdown, ev.ShowdownHeld) and showdown.caller is None  # nobody knocked (R19)
    lowest = min(showdown.values.values())
    assert showdown.lives_lost == {name: 1 for name, value in showdown.values.items() if value == lowest}
    assert final.hand_number == 2 and final.reshuffles == 0  # R26: the next hand is dealt


def test_r17b_a_knocker_is_still_the_knocker_of_a_dead_hand() -> None:
    events = until_last_stock_card(create(("A", "B", "C"), "C", lives=3), left=1)
    state = fold(events)
    knocker = state.players[state.turn].name  # type: ignore[index]
    events = play(events, Knock(knocker))
    nxt = fold(events)
    player = nxt.players[nxt.turn].name  # type: ignore[index]
    events = play(events, Draw(player, "stock"))
    card = fold(events).hands[nxt.turn][-1]  # type: ignore[index]
    produced, _ = given(events).when(Discard(player, card)).then_starts_with(
        [ev.CardDiscarded(player=player, card=card), ev.StockRanOut()])
    assert isinstance(produced[2], ev.ShowdownHeld) and produced[2].caller == knocker  # R19a, R19b apply


def test_r17b_a_player_who_drew_the_last_card_and_resigns_ends_his_turn_and_the_hand() -> None:
    events = until_last_stock_card(create(("A", "B", "C"), "C", lives=3))
    state = fold(events)
    player = state.players[state.turn].name  # type: ignore[index]
    events = play(events, Draw(player, "stock"))
    produced, after = given(events).when(Resign(player)).then_starts_with(
        [ev.Resigned(player=player), ev.StockRanOut()])
    assert isinstance(produced[2], ev.ShowdownHeld) and set(produced[2].values) == {"A", "B", "C"} - {player}
    assert after.hand_number == 2


def test_r17b_a_dead_hand_that_would_put_every_remaining_player_out_costs_nobody_a_life() -> None:
    """R26 via R17b: two players on the dole, tied at the showdown nobody called."""
    state = GameState(players=(Player("A", 0, False, 0), Player("B", 1, False, 0)), rules_version=3)
    assert showdown_losses(state, None, {0: 12, 1: 12}) == []
    assert showdown_losses(state, None, {0: 12, 1: 15}) == [(0, 1)]  # R19: the lowest alone


@pytest.mark.parametrize("rules_version", [1, 2])
def test_r17_a_hand_of_rules_version_1_or_2_rebuilds_its_stock_a_third_time(rules_version: ev.RulesVersion) -> None:
    events = until_last_stock_card(create(("A", "B"), "B", rules_version=rules_version), left=0)
    events = take_turn(take_turn(events))
    state = fold(events)
    assert state.reshuffles == 3 and state.hand_number == 1
    assert state.draws_before_dead_hand() is None
    assert not any(isinstance(event, ev.StockRanOut) for event in events)


def test_r17b_views_say_how_many_stock_draws_are_left_before_a_dead_hand() -> None:
    events = create(("A", "B"), "B")
    state = fold(events)
    assert len(state.stock) == 45 and state.draws_before_dead_hand() == 45 * 3
    drawn = fold(play(events, Draw("A", "stock")))
    assert drawn.draws_before_dead_hand() == 45 * 3 - 1  # mid-turn: his fourth card goes back to the pile
    last = fold(until_last_stock_card(events, left=7))
    assert last.draws_before_dead_hand() == 7


def test_r17b_a_game_with_dead_hands_audits_clean_with_its_seed_verified() -> None:
    events = until_last_stock_card(create(("A", "B"), "B", lives=1))
    while fold(events).status != "finished":
        events = take_turn(events)
    assert any(isinstance(event, ev.StockRanOut) for event in events)
    report = audit_records(records_for(events))
    assert (report.ok, report.problems) == (True, [])
    assert CHANCE.reveal()[0] == fold(events).seed
