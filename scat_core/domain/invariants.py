"""The invariants of rules.md that must hold after every event."""

from __future__ import annotations

from collections import Counter

from .cards import DECK
from .state import GameState


def invariant_problems(state: GameState) -> list[str]:
    """Every invariant that `state` breaks, as sentences (empty when all hold)."""
    problems: list[str] = []
    if state.status == "new" or not state.hands:
        return problems
    places = Counter(card for hand in state.hands for card in hand)
    places.update(state.stock)
    places.update(state.discard)
    places.update(state.set_aside)
    if places != Counter(DECK):
        twice = sorted(card for card, count in places.items() if count > 1)
        missing = sorted(set(DECK) - set(places))
        extra = sorted(set(places) - set(DECK))
        problems.append(
            f"cards are not each in exactly one place (twice: {twice}, missing: {missing}, unknown: {extra})"
        )
    pennies = sum(player.pennies for player in state.players) + state.kitty
    expected = state.options.lives * len(state.players)
    if pennies != expected or any(player.pennies < 0 for player in state.players):
        problems.append(f"pennies are not conserved: {pennies} in play, {expected} expected")
    for player in state.players:
        size = len(state.hands[player.seat])
        if player.out:
            if size:
                problems.append(f"{player.name} is out but holds {size} cards")
            continue
        if state.phase == "finished":
            continue
        mid_turn = state.phase == "discard" and state.turn == player.seat
        if size != (4 if mid_turn else 3) and not (state.phase == "settling" and size == 4):
            problems.append(f"{player.name} holds {size} cards")
    if state.phase == "settling" and sum(len(hand) == 4 for hand in state.hands) > 1:
        problems.append("more than one player holds 4 cards")
    if state.phase in ("draw", "discard"):
        if state.turn is None or state.players[state.turn].out:
            problems.append("nobody active is to act during a hand")
    elif state.turn is not None:
        problems.append(f"{state.name(state.turn)} is to act while the hand is {state.phase}")
    return problems
