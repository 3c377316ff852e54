"""R24-R26: pennies, the kitty, the dole, elimination and the end of the game."""

from __future__ import annotations

from typing import Any

import pytest

from scat_core.domain import events as ev
from scat_core.domain.commands import Declare31, Discard, Draw, Knock
from scat_core.domain.errors import NotFound, RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.views import redact_state
from tests.support.decks import cards
from tests.support.domain import CHANCE, SALT, SEED, create, dealt, given, play

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C


def everyone_else_loses_to_a_declaration(lives: int, **options: Any) -> list[ev.Event]:
    """Hand 1: A declares 31 at once, so B and C lose a life each."""
    history = create(ABC, dealer="C", hands={"A": "AS KS QS", "B": "2C 3D 4H", "C": "5S 6D 9C"},
                     lives=lives, **options)
    return play(history, Declare31("A"))


def knock_and_showdown(history: list[ev.Event], knocker: str) -> tuple[list[ev.Event], Discard]:
    """From the deal of a hand of A, B, C: `knocker` knocks at once and the others draw
    from the stock and throw the drawn card; returns the history up to the last draw and
    the last discard, which brings the showdown."""
    state = fold(history)
    assert state.name(state.turn) == knocker
    history = play(history, Knock(knocker))
    while True:
        state = fold(history)
        player = state.name(state.turn)
        assert player is not None
        history = play(history, Draw(player, "stock"))
        drawn = fold(history).hands[state.turn][-1]  # type: ignore[index]
        if state.left_of(state.turn) == state.knocker:  # type: ignore[arg-type]
            return history, Discard(player, drawn)
        history = play(history, Discard(player, drawn))


def test_r24_losing_two_lives_pays_two_pennies_one_at_a_time() -> None:
    history = create(ABC, dealer="C", hands={"A": "10S 2H 3D", "B": "KH QH 2C", "C": "KD QD 2S"})
    history, last = knock_and_showdown(history, "A")
    produced, state = given(history).when(last).then_starts_with([])
    assert [type(e).__name__ for e in produced] == [
        "CardDiscarded", "ShowdownHeld", "PennyPaid", "PennyPaid", "HandDealt"
    ]
    assert produced[2] == produced[3] == ev.PennyPaid(player="A")
    assert (state.players[0].pennies, state.kitty) == (1, 2)


def test_r24_every_life_lost_is_one_penny_into_the_kitty() -> None:
    state = fold(everyone_else_loses_to_a_declaration(lives=3))
    assert [player.pennies for player in state.players] == [3, 2, 2]
    assert state.kitty == 2


def test_r25_a_player_who_pays_his_last_penny_is_on_the_dole_and_plays_on() -> None:
    history = everyone_else_loses_to_a_declaration(lives=1)
    assert history[-4:-1] == [
        ev.ThirtyOneDeclared(player="A", hand=("AS", "KS", "QS")), ev.PennyPaid(player="B"), ev.PennyPaid(player="C")
    ]
    state = fold(history)
    assert [(p.pennies, p.on_dole, p.out) for p in state.players] == [
        (1, False, False), (0, True, False), (0, True, False)
    ]
    assert state.hand_number == 2 and all(len(hand) == 3 for hand in state.hands)
    assert redact_state(state, None).players[1].on_dole is True  # what everybody is shown


def on_the_dole_in_hand_2(hands: dict[str, str], **options: Any) -> list[ev.Event]:
    """B and C are on the dole (A has his penny); hand 2 is dealt by A from a stacked deck."""
    history = everyone_else_loses_to_a_declaration(lives=1, **options)
    assert isinstance(history[-1], ev.HandDealt)
    return [*history[:-1], dealt(ABC, "A", 2, hands)]


def test_r25_a_player_who_must_lose_a_life_on_the_dole_is_out_of_the_game() -> None:
    # A deals hand 2: B plays first and knocks with 20; C is lowest with 10.
    history = on_the_dole_in_hand_2({"A": "AD KD 4C", "B": "KH QH 2C", "C": "10S 2H 3D"})
    history, last = knock_and_showdown(history, "B")
    produced, state = given(history).when(last).then_starts_with([])
    assert [type(e).__name__ for e in produced] == ["CardDiscarded", "ShowdownHeld", "PlayerEliminated", "HandDealt"]
    assert produced[2] == ev.PlayerEliminated(player="C")
    assert state.players[2].out and not state.players[2].on_dole
    assert state.hands[2] == ()
    assert produced[3] == ev.HandDealt(hand_number=3, dealer="B", deck=tuple(CHANCE.deck(3)))


def test_r25_an_eliminated_player_may_no_longer_play() -> None:
    history = on_the_dole_in_hand_2({"A": "AD KD 4C", "B": "KH QH 2C", "C": "10S 2H 3D"})
    history, last = knock_and_showdown(history, "B")
    history = play(history, last)
    given(history).when(Declare31("C")).then_refused(RuleViolation, "R25", match="out of the game: C has no lives left")


def test_r25_with_one_penny_losing_two_lives_pays_the_penny_then_puts_the_player_out() -> None:
    hands = {"A": "10S 2H 3D", "B": "KH QH 2C", "C": "KD QD 2S"}
    history = create(ABC, dealer="C", hands=hands, lives=1)
    history, last = knock_and_showdown(history, "A")  # A knocks alone lowest: two lives (R19b)
    state = given(history).when(last).then(
        [
            ev.CardDiscarded(player="C", card=last.card),
            ev.ShowdownHeld(
                caller="A",
                hands={name: cards(hand) for name, hand in hands.items()},
                values={"A": 10, "B": 20, "C": 20},
                lives_lost={"A": 2},
            ),
            ev.PennyPaid(player="A"),
            ev.PlayerEliminated(player="A"),
            # R8: C dealt hand 1; A, next on his left, is out, so B deals hand 2.
            ev.HandDealt(hand_number=2, dealer="B", deck=tuple(CHANCE.deck(2))),
        ]
    )
    assert (state.players[0].pennies, state.players[0].out, state.kitty) == (0, True, 1)
    assert state.name(state.turn) == "C"


def test_r25_on_the_dole_losing_two_lives_puts_the_player_out_at_the_first() -> None:
    # A deals hand 2; B, on the dole, knocks alone lowest.
    history = on_the_dole_in_hand_2({"A": "AD KD 4C", "B": "10S 2H 3D", "C": "KH QH 2C"})
    history, last = knock_and_showdown(history, "B")
    produced, _ = given(history).when(last).then_starts_with([])
    assert [type(e).__name__ for e in produced] == ["CardDiscarded", "ShowdownHeld", "PlayerEliminated", "HandDealt"]
    assert produced[2] == ev.PlayerEliminated(player="B")


def test_r25_with_no_dole_a_player_is_out_as_soon_as_his_last_penny_is_paid() -> None:
    history = create(ABC, dealer="C", hands={"A": "AS KS QS", "B": "2C 3D 4H", "C": "5S 6D 9C"},
                     lives=1, no_dole=True)
    given(history).when(Declare31("A")).then(
        [
            ev.ThirtyOneDeclared(player="A", hand=("AS", "KS", "QS")),
            ev.PennyPaid(player="B"),
            ev.PlayerEliminated(player="B"),
            ev.PennyPaid(player="C"),
            ev.PlayerEliminated(player="C"),
            ev.GameWon(winner="A", kitty=2, seed=SEED, seed_salt=SALT),
        ]
    )


def test_r25_with_no_dole_losing_two_lives_with_two_pennies_pays_both_then_puts_out() -> None:
    history = create(ABC, dealer="C", hands={"A": "10S 2H 3D", "B": "KH QH 2C", "C": "KD QD 2S"},
                     lives=2, no_dole=True)
    history, last = knock_and_showdown(history, "A")
    produced, _ = given(history).when(last).then_starts_with([])
    assert produced[2:5] == [ev.PennyPaid(player="A"), ev.PennyPaid(player="A"), ev.PlayerEliminated(player="A")]


def test_r26_after_a_hand_with_two_or_more_players_left_the_next_hand_is_dealt() -> None:
    history = create(ABC, dealer="C", hands={"A": "AS KS QS", "B": "2C 3D 4H", "C": "5S 6D 9C"}, lives=1)
    produced, state = given(history).when(Declare31("A")).then_starts_with([])
    assert produced[-1] == ev.HandDealt(hand_number=2, dealer="A", deck=tuple(CHANCE.deck(2)))
    assert state.status == "active" and state.winner is None


def both_on_the_dole_in_hand_3(hands: dict[str, str], rules_version: ev.RulesVersion = 2) -> list[ev.Event]:
    """Heads-up with one life: A declares in hand 1, B in hand 2, so both are on the dole;
    hand 3 is dealt by B (A plays first) from a stacked deck."""
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"}, lives=1,
                     rules_version=rules_version)
    history = play(history, Declare31("A"))  # B pays his penny: on the dole
    history = [*history[:-1], dealt(("A", "B"), "A", 2, {"A": "10S 2H 3D", "B": "KH QH AH"})]
    history = play(history, Declare31("B"))  # A pays his penny: on the dole
    state = fold(history[:-1])
    assert [player.on_dole for player in state.players] == [True, True]
    return [*history[:-1], dealt(("A", "B"), "B", 3, hands)]


@pytest.mark.parametrize(("rules_version", "kitty", "pennies"), [(1, 2, 0), (2, 0, 2)])
def test_r26_the_last_player_left_wins_takes_the_kitty_and_the_seed_is_revealed(
    rules_version: ev.RulesVersion, kitty: int, pennies: int
) -> None:
    # Rules version 1: the kitty stays the kitty; version 2 (R26): the winner's pennies include it.
    history = both_on_the_dole_in_hand_3({"A": "AD KD QD", "B": "2C 3D 4H"}, rules_version)
    state = given(history).when(Declare31("A")).then(
        [
            ev.ThirtyOneDeclared(player="A", hand=("AD", "KD", "QD")),
            ev.PlayerEliminated(player="B"),
            ev.GameWon(winner="A", kitty=2, seed=SEED, seed_salt=SALT),
        ]
    )
    assert (state.status, state.phase, state.winner, state.kitty, state.turn) == (
        "finished", "finished", "A", kitty, None)
    assert state.players[0].pennies == pennies
    assert (state.seed, state.seed_salt) == (SEED, SALT)
    shown = redact_state(state, None)  # what everybody is shown once the game is over (R26)
    assert shown.winner == "A" and shown.seed == SEED and shown.status == "finished"


def test_r26_a_showdown_where_the_knocker_ties_for_lowest_puts_out_only_the_other() -> None:
    history = both_on_the_dole_in_hand_3({"A": "10S 2H 3D", "B": "10C 2D 3S"})
    history, last = knock_and_showdown(history, "A")
    produced, state = given(history).when(last).then_starts_with([])
    assert produced[2:] == [ev.PlayerEliminated(player="B"), ev.GameWon(winner="A", kitty=2, seed=SEED, seed_salt=SALT)]
    assert not state.players[0].out


def test_r26_a_knocker_alone_lowest_on_the_dole_is_the_only_one_out() -> None:
    history = both_on_the_dole_in_hand_3({"A": "10S 2H 3D", "B": "KC QC 3S"})
    history, last = knock_and_showdown(history, "A")
    produced, _ = given(history).when(last).then_starts_with([])
    assert produced[2:] == [ev.PlayerEliminated(player="A"), ev.GameWon(winner="B", kitty=2, seed=SEED, seed_salt=SALT)]


def test_r26_no_command_is_accepted_once_the_game_is_won() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"}, lives=1, no_dole=True)
    history = play(history, Declare31("A"))
    for command in (Draw("A", "stock"), Knock("A"), Declare31("A"), Discard("A", "AS")):
        given(history).when(command).then_refused(RuleViolation, match="the game is over: A won")
    given(history).when(Draw("Zed", "stock")).then_refused(NotFound)
