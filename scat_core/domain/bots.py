"""Bots: a heuristic player, and a player picking uniformly among legal moves.

The heuristic bot declares 31 at once, takes the discard when it improves the hand, keeps
its best suit, and knocks on a threshold that depends on the number of players and how far
the hand has gone. It uses no randomness, so a game's bots are deterministic given its seed.
"""

from __future__ import annotations

import random
from collections.abc import Collection

from .cards import SUITS, hand_value, points, suit
from .commands import Declare31, Discard, Draw, Knock, PlayerCommand, ViewHand
from .decide import declare_refusal, value_of
from .legal import legal_moves, play_moves
from .options import GameOptions
from .state import GameState


def _best_three(state: GameState, cards: tuple[str, ...], keep: str | None = None,
                among: Collection[str] | None = None) -> tuple[int, str]:
    """The best value of 3 of 4 `cards` and the card to throw for it: never `keep`, and one of
    `among` when given (the legal discards, R13)."""
    return _best_of_four(cards, keep, state.options, among)


def _best_of_four(cards: tuple[str, ...], keep: str | None, options: GameOptions,
                  among: Collection[str] | None = None) -> tuple[int, str]:
    totals = dict.fromkeys(SUITS, 0)
    for card in cards:
        totals[suit(card)] += points(card)
    best: tuple[int, int, str] | None = None
    for thrown in cards:
        if thrown == keep or (among is not None and thrown not in among):
            continue
        thrown_suit, thrown_points = suit(thrown), points(thrown)
        suited = max(total - thrown_points if name == thrown_suit else total for name, total in totals.items())
        value = suited
        if options.values_beyond_suits:
            value = hand_value([card for card in cards if card != thrown], options)
        # Tie-break: keep the strongest suit together, throw the lowest card.
        if best is None or (value, suited - thrown_points) > best[:2]:
            best = (value, suited - thrown_points, thrown)
    assert best is not None
    return best[0], best[2]


def knock_threshold(state: GameState) -> int:
    """The value the bot knocks on: lower with more players, higher as the hand goes on."""
    players = len(state.active_seats())
    rounds = state.turns // max(players, 1)
    return max(17, min(27, 23 - (players - 2) + rounds))


def can_declare(state: GameState, seat: int) -> bool:
    """Whether the player at `seat` holds 3 cards worth 31 during a hand (R20)."""
    hand = state.hands[seat]
    if len(hand) != 3 or not hand[0][-1] == hand[1][-1] == hand[2][-1]:
        return False  # a quick no: 31 always needs three cards of one suit (R3, R5)
    return declare_refusal(state, seat) is None


def heuristic_move(state: GameState, seat: int) -> PlayerCommand | None:
    """The heuristic bot's move for `seat` among his legal moves, or None when it has nothing to do."""
    if can_declare(state, seat):
        return Declare31(state.players[seat].name)
    if state.turn != seat:
        return None
    moves = legal_moves(state, seat)
    allowed = {move.command for move in moves}
    name, hand = state.players[seat].name, state.hands[seat]
    if state.phase == "discard":  # not the card just taken from the discard pile (R13)
        discards = [move.card for move in moves if move.card is not None]  # the legal discards
        return Discard(name, _best_three(state, hand, among=discards)[1]) if discards else None
    current = value_of(state, seat)
    if current >= knock_threshold(state) and Knock(name) in allowed:
        return Knock(name)
    if Draw(name, "discard") in allowed:
        top = state.discard[-1]
        with_top, _ = _best_three(state, hand + (top,), keep=top)
        if with_top > current and (with_top - current >= 3 or with_top >= 25):
            return Draw(name, "discard")
    return Draw(name, "stock")


def random_move(state: GameState, seat: int, rng: random.Random) -> PlayerCommand | None:
    """A move picked uniformly among the legal moves of play of `seat` on his turn."""
    if state.turn != seat:
        return None
    moves = play_moves(state, seat)
    return rng.choice(moves) if moves else None


def next_bot_command(state: GameState) -> PlayerCommand | None:
    """What a bot does next: a bot holding 31 declares at once, else the bot to play moves."""
    if not state.in_hand:
        return None
    if state.options.throw_down:  # bots look at their hands at once; they never throw down
        for player in state.players:
            if player.is_bot and not player.out and player.seat not in state.looked:
                return ViewHand(player.name)
    for player in state.players:
        if player.is_bot and not player.out and can_declare(state, player.seat):
            return Declare31(player.name)
    if state.turn is not None and state.players[state.turn].is_bot:
        return heuristic_move(state, state.turn)
    return None
