"""The stats fold (pure): hands, knocks and their outcome (R19, R21), 31s, showdowns, ends."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from scat_core.domain import events as ev
from scat_core.domain.options import GameOptions
from scat_core.domain.stats import GameLine, PlayerLine, evolve_line, fold_line, player_key
from tests.support.decks import cards
from tests.support.domain import heuristic, play_out, uniform


def created(*names: str) -> ev.GameCreated:
    return ev.GameCreated(
        game_id="g1", players=tuple(ev.PlayerSeat(name=n) for n in names), options=GameOptions(),
        dealer=names[-1], dealer_drawn=False, seed_commitment="0" * 64,
    )


def showdown(caller: str, values: dict[str, int], lost: dict[str, int]) -> ev.ShowdownHeld:
    hands = {name: cards(["2C", "3C", "4C"]) for name in values}  # the fold reads values only
    return ev.ShowdownHeld(caller=caller, hands=hands, values=values, lives_lost=lost)


def player(line: GameLine, name: str) -> PlayerLine:
    return next(p for p in line.players if p.key == player_key(name))


def counts(line: GameLine, name: str, *fields: str) -> tuple[Any, ...]:
    return tuple(getattr(player(line, name), f) for f in fields)


KNOCKS = ("knocks", "knocks_saved", "knocks_lost_one", "knocks_lost_two")


def test_a_knocker_tied_for_lowest_is_saved_and_the_others_lose_a_hand_R19a() -> None:
    line = fold_line("g1", [created("A", "B", "C"), ev.Knocked(player="A"),
                            showdown("A", {"A": 15, "B": 15, "C": 20}, {"B": 1})])
    assert counts(line, "A", *KNOCKS) == (1, 1, 0, 0)
    assert counts(line, "B", "hands_played", "hands_lost", "lives_lost") == (1, 1, 1)
    assert counts(line, "C", "hands_played", "hands_lost") == (1, 0)
    assert line.hands == 1 and line.knocker_key is None


def test_a_knocker_alone_lowest_loses_two_lives_R19b() -> None:
    line = fold_line("g1", [created("A", "B", "C"), ev.Knocked(player="A"),
                            showdown("A", {"A": 12, "B": 15, "C": 20}, {"A": 2})])
    assert counts(line, "A", *KNOCKS) == (1, 0, 0, 1)
    assert counts(line, "A", "hands_lost", "lives_lost") == (1, 2)


def test_a_declared_31_costs_every_other_active_player_one_life_the_knocker_too_R21() -> None:
    events = [
        created("A", "B", "C", "D"), ev.PlayerEliminated(player="D"), ev.Knocked(player="A"),
        ev.ThirtyOneDeclared(player="B", hand=cards("AS KS QS")),
    ]
    line = fold_line("g1", events)
    assert counts(line, "A", *KNOCKS) == (1, 0, 1, 0)
    assert counts(line, "B", "thirty_ones", "hands_played", "hands_lost") == (1, 1, 0)
    assert counts(line, "C", "hands_played", "hands_lost") == (1, 1)
    assert counts(line, "D", "hands_played", "out") == (0, True)  # out before the hand


def test_showdown_values_are_summed_for_the_average() -> None:
    line = fold_line("g1", [created("A", "B"), ev.ThrowDownCalled(player="B"),
                            showdown("B", {"A": 21, "B": 30}, {"A": 1}),
                            showdown("A", {"A": 31, "B": 10}, {"B": 1})])
    assert counts(line, "A", "showdowns", "showdown_total") == (2, 52)
    assert counts(line, "B", "throw_downs", "knocks") == (1, 0)  # a throw down is not a knock
    assert line.hands == 2


def test_a_hand_under_way_counts_nothing_yet_its_knock_neither() -> None:
    line = fold_line("g1", [created("A", "B"), ev.Knocked(player="A")])
    assert counts(line, "A", *KNOCKS, "hands_played") == (0, 0, 0, 0, 0)
    assert line.hands == 0 and not line.finished and line.knocker_key == "a"


def test_a_won_game_is_finished_with_its_winner_R26() -> None:
    line = fold_line("g1", [created("Ann", "B"), ev.PlayerEliminated(player="B"),
                            ev.GameWon(winner="Ann", kitty=3, seed="s", seed_salt="t")])
    assert line.finished and line.winner_key == "ann"


def test_a_player_is_his_name_ignoring_case() -> None:
    assert player_key("ANN") == player_key("ann") == player_key("Ann")
    assert player_key("Ｂｏｂ") == "bob"  # NFKC: full-width letters are the same name


def test_event_types_the_projection_does_not_use_change_nothing_not_even_unknown_ones() -> None:
    line = fold_line("g1", [created("A", "B")])
    drawn = ev.CardDrawn(player="A", source="stock", card="2C")
    assert evolve_line(line, drawn) is line
    assert evolve_line(line, SimpleNamespace(type="SomethingNewer", player="A")) is line  # type: ignore[arg-type]


def test_a_resigned_player_is_out_and_takes_no_part_in_later_hands_R27() -> None:
    line = fold_line("g1", [created("A", "B", "C"), ev.Resigned(player="B"),
                            showdown("A", {"A": 20, "C": 15}, {"C": 1})])
    assert counts(line, "B", "out", "resigned", "hands_played") == (True, True, 0)
    assert counts(line, "C", "hands_played", "hands_lost") == (1, 1)


def test_the_knock_of_a_knocker_who_resigned_is_not_booked_R27() -> None:
    events = [created("A", "B", "C"), ev.Knocked(player="A"), ev.Resigned(player="A"),
              showdown("A", {"B": 20, "C": 15}, {"C": 1})]
    line = fold_line("g1", events)
    assert counts(line, "A", *KNOCKS, "hands_played") == (0, 0, 0, 0, 0)
    assert line.hands == 1 and line.knocker_key is None


@pytest.mark.parametrize("seed", ["s1", "s2", "s3", "s4"])
@pytest.mark.parametrize("options", [GameOptions(), GameOptions(throw_down=True, no_dole=True, lives=2)])
def test_whole_random_games_give_lines_that_agree_with_the_game_state_and_its_events(
    seed: str, options: GameOptions
) -> None:
    names = ("Ann", "bob", "cy", "dan")
    rng = random.Random(seed)
    events, state = play_out(names, [heuristic, uniform(rng), heuristic, uniform(rng)], seed, options=options)
    line = fold_line("g1", events)
    assert line.finished and line.winner_key == player_key(str(state.winner))  # R26
    assert line.hands == state.hand_number  # every hand of a finished game ended
    for seat, name in enumerate(names):
        mine = player(line, name)
        assert mine.out == state.players[seat].out
        assert mine.knocks == sum(isinstance(e, ev.Knocked) and e.player == name for e in events)
        assert mine.knocks == mine.knocks_saved + mine.knocks_lost_one + mine.knocks_lost_two
        assert mine.thirty_ones == sum(isinstance(e, ev.ThirtyOneDeclared) and e.player == name for e in events)
        assert mine.showdowns == sum(isinstance(e, ev.ShowdownHeld) and name in e.values for e in events)
        paid = sum(isinstance(e, ev.PennyPaid) and e.player == name for e in events)
        assert mine.lives_lost >= paid >= mine.hands_lost - mine.out  # on the dole a lost hand pays nothing
        assert mine.hands_lost <= mine.hands_played <= line.hands


def test_a_resigned_player_takes_no_part_in_later_hands_R27() -> None:
    line = fold_line("g1", [created("A", "B", "C"), ev.Resigned(player="C"),
                            ev.ThirtyOneDeclared(player="A", hand=cards(["AS", "KS", "QS"]))])
    assert counts(line, "B", "hands_played", "lives_lost") == (1, 1)
    assert counts(line, "C", "hands_played", "lives_lost", "out") == (0, 0, True)
