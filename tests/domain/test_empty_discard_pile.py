"""R12 with R27: the discard pile a resignation could have emptied, and drawing from an empty pile.

A player who took the only card of the discard pile and resigns before discarding puts it
back (R27), so the next player may take it. Should the pile ever be empty, drawing from it is
refused naming R12 (Decision: the rules are silent; the stock remains) and the legal moves,
the bots and the hints (built on them) never offer it; the audit re-decides with the same
`decide`. R17's reshuffle needs a card under the discard top.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from scat_core.domain import events as ev
from scat_core.domain.bots import heuristic_move, random_move
from scat_core.domain.cards import DECK
from scat_core.domain.commands import Draw, Resign
from scat_core.domain.decide import decide, draw_refusal
from scat_core.domain.errors import RuleViolation
from scat_core.domain.evolve import fold
from scat_core.domain.invariants import invariant_problems
from scat_core.domain.legal import play_moves
from scat_core.domain.options import GameOptions
from scat_core.domain.state import GameState
from scat_core.records.chain import audit_records
from tests.support.domain import CHANCE, create, given, play, records_for
from tests.support.random_games import NAMES, Setup, play_checked

ABC = ("A", "B", "C")  # C deals: A plays first, then B, then C
HANDS = {"A": "9S 8S 2D", "B": "KH QH 3C", "C": "AS KS QD"}
VERSIONS = pytest.mark.parametrize("rules_version", [1, 2])


def resigned_mid_turn(rules_version: ev.RulesVersion) -> list[ev.Event]:
    """A takes the discard pile's only card (JS), then resigns holding 4 cards."""
    history = create(ABC, dealer="C", hands=HANDS, discard="JS", stock="5D 6D 7D 8D", rules_version=rules_version)
    return play(history, Draw("A", "discard"), Resign("A"))


def emptied() -> GameState:
    """B to draw with an empty discard pile (its card set aside: the 52 cards all in place).

    No rule leaves the pile empty since R27 puts the card taken back (the case above);
    a state built so checks that nothing crashes or offers the impossible draw anyway.
    """
    state = fold(resigned_mid_turn(2))
    odd = replace(state, discard=(), set_aside=state.set_aside + state.discard)
    assert invariant_problems(odd) == [] and (odd.name(odd.turn), odd.phase) == ("B", "draw")
    return odd


@VERSIONS
def test_r27_r12_a_player_who_resigns_after_taking_the_only_discard_leaves_it_for_the_next(
    rules_version: ev.RulesVersion,
) -> None:
    history = resigned_mid_turn(rules_version)
    state = fold(history)
    assert state.discard == ("JS",) and "JS" not in state.set_aside and invariant_problems(state) == []
    given(history).when(Draw("B", "discard")).then([ev.CardDrawn(player="B", source="discard", card="JS")])


def test_r12_drawing_from_an_empty_discard_pile_is_refused_and_the_stock_remains() -> None:
    state = emptied()
    with pytest.raises(RuleViolation, match=r"the discard pile is empty: draw from the stock \(R12\)"):
        decide(state, Draw("B", "discard"), CHANCE)
    assert decide(state, Draw("B", "stock"), CHANCE) == [ev.CardDrawn(player="B", source="stock", card="5D")]


def test_r12_legal_moves_bots_and_hints_never_offer_a_draw_from_an_empty_discard_pile() -> None:
    state = emptied()
    seat = state.seat_of("B")
    assert seat is not None
    moves = play_moves(state, seat)
    assert Draw("B", "stock") in moves and Draw("B", "discard") not in moves
    assert heuristic_move(state, seat) == Draw("B", "stock")
    rng = random.Random(0)
    assert all(random_move(state, seat, rng) != Draw("B", "discard") for _ in range(50))


def test_r17_an_empty_stock_with_no_card_under_the_discard_top_cannot_be_drawn_from() -> None:
    # Unreachable in play (at most 9 x 3 + 1 cards are in hands or set aside, so at least 24
    # are in the stock and the discard pile), but refused cleanly rather than crashing.
    state = emptied()
    for pile in ((), ("3D",)):
        rest = tuple(card for card in DECK if card not in pile and card not in state.set_aside
                     and all(card not in hand for hand in state.hands))
        odd = replace(state, stock=(), discard=pile, set_aside=state.set_aside + rest)
        assert sorted([*odd.set_aside, *odd.discard, *(c for h in odd.hands for c in h)]) == sorted(DECK)
        refusal = draw_refusal(odd, "stock")
        assert refusal is not None and refusal.rule == "R17"
        assert Draw("B", "stock") not in play_moves(odd, 1)
    two = replace(state, stock=(), discard=("3D", "4D"), set_aside=state.set_aside + tuple(
        card for card in DECK if card not in ("3D", "4D") and card not in state.set_aside
        and all(card not in hand for hand in state.hands)))
    assert draw_refusal(two, "stock") is None  # R17: "3D" is reshuffled into a one-card stock


def test_r27_the_property_seed_that_found_the_empty_discard_pile_plays_to_its_end() -> None:
    # tests/domain/test_properties.py found this game: it raised IndexError in decide.
    setup = Setup(NAMES[:6], (False,) * 6, GameOptions(lives=1), "0", None, None, 103, 0.02, 1, 0.03)
    events, state = play_checked(setup)
    assert state.status == "finished" and any(isinstance(event, ev.Resigned) for event in events)
    assert audit_records(records_for(events, "game")).ok
