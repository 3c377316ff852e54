"""R23: the throw-down option, and the HandViewed record that makes it auditable."""

from __future__ import annotations

from collections.abc import Mapping

from scat_core.domain import events as ev
from scat_core.domain.commands import Declare31, Discard, Draw, Knock, ThrowDown, ViewHand
from scat_core.domain.errors import RuleViolation
from scat_core.domain.evolve import fold
from tests.support.decks import cards
from tests.support.domain import CHANCE, create, given, play, take_turn

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C
HANDS = {"A": "AS KS 4S", "B": "KH QH 2C", "C": "10D 2S 3C"}  # 25, 20, 10


def game(
    hands: Mapping[str, str] = HANDS, throw_down: bool = True, rules_version: ev.RulesVersion = 2
) -> list[ev.Event]:
    return create(ABC, dealer="C", hands=hands, throw_down=throw_down, rules_version=rules_version)


def thrown_down(caller: str, hands: Mapping[str, str], values: Mapping[str, int], lost: Mapping[str, int],
                hand_number: int = 1) -> list[ev.Event]:
    return [
        ev.ThrowDownCalled(player=caller),
        ev.ShowdownHeld(
            caller=caller,
            hands={name: cards(hands[name]) for name in ABC},
            values=dict(values),
            lives_lost=dict(lost),
        ),
        *[ev.PennyPaid(player=name) for name in ABC for _ in range(lost.get(name, 0))],
        ev.HandDealt(hand_number=hand_number + 1, dealer="A", deck=tuple(CHANCE.deck(hand_number + 1))),
    ]


def test_r23_without_the_option_nobody_may_throw_down() -> None:
    given(game(throw_down=False)).when(ThrowDown("B")).then_refused(
        RuleViolation, "R23", match="without the throw-down option"
    )


def test_r23_a_player_who_has_not_looked_may_throw_down_out_of_turn_and_the_hand_is_settled_by_r19() -> None:
    state = given(game()).when(ThrowDown("B")).then(
        thrown_down("B", HANDS, {"A": 25, "B": 20, "C": 10}, {"C": 1})
    )
    assert state.revealed == {name: cards(HANDS[name]) for name in ABC}
    assert state.hand_number == 2


def test_r23_the_player_to_play_may_throw_down_instead_of_drawing() -> None:
    given(game()).when(ThrowDown("A")).then(thrown_down("A", HANDS, {"A": 25, "B": 20, "C": 10}, {"C": 1}))


def test_r23_r19b_a_caller_alone_with_the_lowest_value_loses_two_lives() -> None:
    given(game()).when(ThrowDown("C")).then(thrown_down("C", HANDS, {"A": 25, "B": 20, "C": 10}, {"C": 2}))


def test_r23_r19a_a_caller_tying_for_lowest_loses_nothing() -> None:
    hands = {"A": "AS KS 4S", "B": "10H 2C 3D", "C": "10D 2S 3H"}
    given(game(hands)).when(ThrowDown("B")).then(thrown_down("B", hands, {"A": 25, "B": 10, "C": 10}, {"C": 1}))


def test_rules_v1_r23_after_a_knock_the_caller_takes_the_knockers_place() -> None:
    # Rules version 1: A knocks alone lowest, but B throws down: A loses one life, not two (R19, caller B).
    hands = {"A": "10S 2H 3D", "B": "KH QH 2C", "C": "KD QD 2S"}
    history = play(game(hands, rules_version=1), Knock("A"))
    given(history).when(ThrowDown("B")).then(thrown_down("B", hands, {"A": 10, "B": 20, "C": 20}, {"A": 1}))


def test_rules_v2_r14_r23_no_throw_down_after_a_knock() -> None:
    # Rules version 2: a throw down counts as a knock (R14), so the knocker cannot escape R19b.
    hands = {"A": "10S 2H 3D", "B": "KH QH 2C", "C": "KD QD 2S"}
    history = play(game(hands, rules_version=2), Knock("A"))
    given(history).when(ThrowDown("B")).then_refused(RuleViolation, "R23", match="A has knocked already")
    given(history).when(ThrowDown("C")).then_refused(RuleViolation, "R23", match="no throw down after a knock")


def test_rules_v2_r20_a_31_thrown_down_unseen_is_settled_as_declared() -> None:
    hands = {"A": "AS KS QS", "B": "KH QH 2C", "C": "10D 2S 3C"}
    given(game(hands, rules_version=2)).when(ThrowDown("B")).then(
        thrown_down("B", hands, {"A": 31, "B": 20, "C": 10}, {"B": 1, "C": 1})
    )


def test_r23_viewing_ones_hand_is_recorded_once_per_hand_in_a_throw_down_game() -> None:
    given(game()).when(ViewHand("b")).then([ev.HandViewed(player="B")])
    history = play(game(), ViewHand("B"))
    state = given(history).when(ViewHand("B")).then([])
    assert state.looked == {1}


def test_r23_viewing_ones_hand_records_nothing_without_the_option() -> None:
    given(game(throw_down=False)).when(ViewHand("B")).then([])


def test_r23_a_player_who_was_shown_his_hand_may_not_throw_down() -> None:
    given(play(game(), ViewHand("B"))).when(ThrowDown("B")).then_refused(RuleViolation, "R23", match="looked")


def test_rules_v1_r23_a_player_who_has_taken_any_action_this_hand_may_not_throw_down() -> None:
    history = play(game(rules_version=1), Draw("A", "stock"))
    history = play(history, Discard("A", fold(history).hands[0][-1]))
    given(history).when(ThrowDown("A")).then_refused(RuleViolation, "R23", match="looked")
    history = play(history, Knock("B"))
    given(history).when(ThrowDown("B")).then_refused(RuleViolation, "R23", match="looked")
    given(history).when(ThrowDown("C")).then_starts_with([ev.ThrowDownCalled(player="C")])


def test_r23_a_throw_down_waits_until_the_player_in_the_middle_of_his_turn_has_discarded() -> None:
    history = play(game(), Draw("A", "stock"))
    refused = r"a turn is under way \(A holds 4 cards\)"
    given(history).when(ThrowDown("B")).then_refused(RuleViolation, "R23", match=refused)


def test_r23_every_player_may_look_again_in_a_new_hand() -> None:
    hands = {"A": "AS KS QS", "B": "KH QH 2C", "C": "10D 2S 3C"}
    history = play(game(hands), ViewHand("B"), ViewHand("A"), Declare31("A"))
    state = fold(history)
    assert state.hand_number == 2 and state.looked == frozenset()
    given(history).when(ThrowDown("B")).then_starts_with([ev.ThrowDownCalled(player="B")])


def test_r23_a_throw_down_is_refused_once_the_game_is_over() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"}, lives=1, no_dole=True,
                     throw_down=True)
    history = play(history, ViewHand("A"), Declare31("A"))
    given(history).when(ThrowDown("B")).then_refused(RuleViolation, match="game is over")


def test_r23_taking_turns_marks_every_player_as_having_looked() -> None:
    history = game()
    for _ in range(3):
        history = take_turn(history)
    assert fold(history).looked == {0, 1, 2}


def test_r23_an_unseen_hand_cannot_be_declared_and_the_refusal_does_not_tell_its_value() -> None:
    history = game({"A": "AS KS QS", "B": "KH QH 2C", "C": "10D 2S 3C"})
    given(history).when(Declare31("B")).then_refused(RuleViolation, "R23", match="face down")
    given(history).when(Declare31("A")).then_refused(RuleViolation, "R23", match="face down")
    declared = ev.ThirtyOneDeclared(player="A", hand=("AS", "KS", "QS"))
    given(play(history, ViewHand("A"))).when(Declare31("A")).then_starts_with([declared])


def test_r23_bots_look_at_their_hands_at_once_in_a_throw_down_game() -> None:
    from scat_core.domain.bots import next_bot_command

    history = create(("A", "B"), dealer="B", hands={"A": "2C 3D 4H", "B": "AS KS QS"}, throw_down=True)
    created = history[0]
    assert isinstance(created, ev.GameCreated)
    bot_b = (created.players[0], created.players[1].model_copy(update={"is_bot": True}))
    history = [created.model_copy(update={"players": bot_b}), *history[1:]]
    assert next_bot_command(fold(history)) == ViewHand("B")
    assert next_bot_command(fold(play(history, ViewHand("B")))) == Declare31("B")


def test_r15_r23_item3_a_knock_on_an_unseen_hand_is_refused_whatever_it_is_worth() -> None:
    """The refusal said "your hand is worth 10"; now it never depends on the unseen value."""
    for hands in (HANDS, {"A": "2D 3D 4H", "B": "KH QH 2C", "C": "10D 2S 3C"}):  # A worth 25, then 5
        history = create(ABC, dealer="C", hands=hands, throw_down=True, min_knock=20)
        refused = given(history).when(Knock("A"))
        refused.then_refused(RuleViolation, "R23", match="face down")
        try:
            from scat_core.domain.decide import decide

            decide(fold(history), Knock("A"), CHANCE)
        except RuleViolation as error:
            assert "worth 5" not in str(error) and "worth 25" not in str(error)
    looked = play(create(ABC, dealer="C", hands=HANDS, throw_down=True, min_knock=20), ViewHand("A"))
    given(looked).when(Knock("A")).then([ev.Knocked(player="A")])


def test_r15_r23_item3_moves_offered_do_not_depend_on_an_unseen_hand() -> None:
    """The hints offered `knock` only when the unseen hand was worth enough."""
    from scat_core.domain.legal import play_moves

    offered = []
    for hands in (HANDS, {"A": "2D 3D 4H", "B": "KH QH 2C", "C": "10D 2S 3C"}):
        state = fold(create(ABC, dealer="C", hands=hands, throw_down=True, min_knock=20))
        offered.append([type(move).__name__ for move in play_moves(state, 0)])
    assert offered[0] == offered[1] == ["Draw", "Draw"]


def test_r15_r23_item3_without_min_knock_an_unseen_hand_may_knock() -> None:
    """A blind knock asks nothing of the hand's value, so it is allowed (R14; taking it counts as a look)."""
    given(game()).when(Knock("A")).then([ev.Knocked(player="A")])
