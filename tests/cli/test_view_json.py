"""The JSON views of `scat show --json` (scat_cli.presenter): a player sees his own hand, the
discard top and counts; the public sees no hand; the contract's fields (moved from the domain tier)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from scat_cli.presenter import player_view, public_view
from scat_core.domain import events as ev
from scat_core.domain.cards import is_card
from scat_core.domain.commands import Declare31, Discard, Draw, Knock, Resign, ViewHand
from scat_core.domain.evolve import fold
from tests.support.decks import cards
from tests.support.domain import create, play, take_turn

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C
HANDS = {"A": "AS KS 4S", "B": "KH QH 2C", "C": "10D 2S 3C"}


def cards_in(value: Any) -> Iterator[str]:
    """Every card named anywhere in a view or an event."""
    if isinstance(value, BaseModel):
        value = value.model_dump()
    if isinstance(value, str):
        if is_card(value):
            yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from cards_in(key)
            yield from cards_in(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from cards_in(item)


def game() -> list[ev.Event]:
    return create(ABC, dealer="C", hands=HANDS, discard="9H", stock="5H 6H 7H")


def test_a_player_sees_his_own_hand_and_its_value_the_discard_top_and_counts() -> None:
    view = player_view(fold(game()), "b")
    assert view["you"] == "B"
    assert view["hand"] == ["KH", "QH", "2C"] and view["hand_value"] == 20
    assert view["discard_top"] == "9H" and view["stock_count"] == 52 - 10
    assert [p["cards"] for p in view["players"]] == [3, 3, 3]
    assert (view["turn"], view["phase"], view["dealer"], view["knocked_by"]) == ("A", "draw", "C", None)
    assert set(cards_in(view)) == {"KH", "QH", "2C", "9H"}


def test_r3_the_value_shown_to_a_player_holding_4_cards_is_never_more_than_31() -> None:
    # A hand is 3 cards (R3): mid-turn, A holds AS KS QS JS, worth 31 at best, not 41.
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"}, discard="JS")
    view = player_view(fold(play(history, Draw("A", "discard"))), "A")
    assert view["hand"] == ["AS", "KS", "QS", "JS"]
    assert view["hand_value"] in (None, 31)


def test_the_public_view_shows_no_hand_at_all() -> None:
    view = public_view(fold(game()))
    assert "hand" not in view and "hands" not in view
    assert set(cards_in(view)) == {"9H"}


def test_a_card_drawn_from_the_stock_is_seen_only_by_the_drawer() -> None:
    state = fold(play(game(), Draw("A", "stock")))
    assert "5H" in player_view(state, "A")["hand"]
    for viewer in ("B", "C"):
        assert "5H" not in set(cards_in(player_view(state, viewer)))
    assert [p["cards"] for p in public_view(state)["players"]] == [4, 3, 3]


def test_r13_only_the_drawer_is_reminded_which_card_he_took_from_the_discard_pile() -> None:
    state = fold(play(game(), Draw("A", "discard")))
    assert player_view(state, "A")["taken_from_discard"] == "9H"
    assert player_view(state, "B")["taken_from_discard"] is None
    assert public_view(state)["discard_top"] is None


def test_r18_a_showdown_reveals_every_hand_to_everybody() -> None:
    history = play(game(), Knock("A"))
    history = take_turn(history)
    history = play(history, Draw("C", "stock"))
    history = play(history, Discard("C", fold(history).hands[2][-1]))
    view = public_view(fold(history))
    assert view["hand_number"] == 2
    assert view["revealed"] == {name: list(cards(HANDS[name])) for name in ABC}
    assert view["revealed_values"] == {"A": 25, "B": 20, "C": 10}


def test_r26_after_the_game_everything_is_revealed_with_the_seed() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "2C 3D 4H"}, lives=1, no_dole=True)
    state = fold(play(history, Declare31("A")))
    view = public_view(state)
    assert view["status"] == "finished" and view["seed"] == "seed"
    assert view["hands"] == {"A": ["AS", "KS", "QS"], "B": []}


def test_r23_in_a_throw_down_game_a_players_view_keeps_his_hand_face_down_until_he_looks() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS 4S", "B": "KH QH 2C"}, throw_down=True)
    unseen = player_view(fold(history), "A")
    assert unseen["hand_hidden"] and (unseen["hand"], unseen["looked"]) == (None, False) and "hand_value" not in unseen
    seen = player_view(fold(play(history, ViewHand("A"))), "A")
    assert seen["hand"] == ["AS", "KS", "4S"] and seen["looked"] is True and "hand_hidden" not in seen


def test_the_public_view_phase_is_one_of_the_contracts_three_and_stage_tells_the_rest() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS QS", "B": "KH QH 2C"})
    before_deal = public_view(fold(history[:1]))
    assert (before_deal["phase"], before_deal["stage"], before_deal["turn"]) == ("draw", "new", None)
    declared = play(history, Declare31("A"))
    settling = public_view(fold(declared[: declared.index(next(e for e in declared if isinstance(e, ev.PennyPaid)))]))
    assert (settling["phase"], settling["stage"], settling["turn"]) == ("draw", "settling", None)


def test_r27_no_view_shows_the_cards_a_resigned_player_set_aside_only_their_count() -> None:
    hands = {"A": "9S 8S 2D", "B": "KH QH 3C", "C": "AS KS QD"}
    history = play(create(ABC, dealer="C", hands=hands, stock="5D 6D 7D 8D"), Draw("A", "stock"))
    after = fold(play(history, Resign("A")))
    for viewer in (None, "A", "B", "C"):
        view = public_view(after) if viewer is None else player_view(after, viewer)
        shown = str(view)
        assert not [card for card in after.set_aside if f"'{card}'" in shown], viewer
    assert public_view(after)["set_aside_count"] == 4
    assert public_view(after)["players"][0]["resigned"] is True
