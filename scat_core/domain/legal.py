"""Legal moves, from the very refusals `decide` raises: legality is written once, in decide.py.

`legal_moves` is the one list of what a player may do now, each a `LegalMove` (the command and
the rule that allows it): over the whole command space (a first look, a throw down, 31, draws,
knock, discards, a resignation), in the order a player is offered them. `decide` accepts exactly
these, and a look at a hand already seen, which changes nothing (tests/domain/test_legal.py
checks it on random games). Hints, `play`'s keys, shell completion, the server's answers and the
bots all take their moves from it; `play_moves` keeps the commands of play that bots pick among.
"""

from __future__ import annotations

from typing import Final, Literal

from .commands import (
    Declare31,
    Discard,
    Draw,
    Knock,
    LegalMove,
    PlayerCommand,
    Resign,
    ThrowDown,
    ViewHand,
)
from .decide import (
    declare_refusal,
    discard_refusal,
    draw_refusal,
    knock_refusal,
    player_refusal,
    resign_refusal,
    throw_down_refusal,
    turn_refusal,
)
from .state import GameState

#: The sources a card is drawn from (R12), in the order moves are listed.
DRAW_SOURCES: Final[tuple[Literal["stock", "discard"], ...]] = ("stock", "discard")
#: The moves of play (no throw down, look or resignation): what bots choose among (R12-R14, R20).
PLAY_MOVES: Final = (Declare31, Draw, Discard, Knock)


def legal_moves(state: GameState, seat: int, as_seen: bool = False) -> tuple[LegalMove, ...]:
    """Every move the player at `seat` may make now, as `decide` would accept it, in the order he is
    offered them: a first look at a face-down hand (R23), a throw down (R23), 31 (R20), the draws
    (R12), a knock (R14), the discards (R12, R13), a resignation (R27).

    `as_seen`: `state` is that player's own view (views.redact_state), whose hidden cards have no
    value: a move whose legality hangs on the worth of his face-down hand (a knock under
    min-knock in rules version 1, R15 and R23) is left out, as the view cannot tell it.
    """
    if not 0 <= seat < len(state.players):
        return ()
    name = state.players[seat].name
    if player_refusal(state, seat, name) is not None:
        return ()
    moves: list[PlayerCommand] = []
    if state.hand_unseen(seat):  # a later look is accepted too, but records nothing: no move
        moves.append(ViewHand(name))
    if throw_down_refusal(state, seat) is None:
        moves.append(ThrowDown(name))
    if declare_refusal(state, seat) is None:
        moves.append(Declare31(name))
    if turn_refusal(state, seat, "draw") is None:
        moves.extend(Draw(name, source) for source in DRAW_SOURCES if draw_refusal(state, source) is None)
        blind = as_seen and state.hand_unseen(seat) and state.options.min_knock is not None
        if not blind and knock_refusal(state, seat) is None:
            moves.append(Knock(name))
    if turn_refusal(state, seat, "discard") is None:
        moves.extend(Discard(name, card) for card in state.hands[seat] if discard_refusal(state, seat, card) is None)
    if resign_refusal(state, seat) is None:
        moves.append(Resign(name))
    return tuple(LegalMove.of(move) for move in moves)


def play_moves(state: GameState, seat: int, as_seen: bool = False) -> list[PlayerCommand]:
    """The commands of the legal moves of play of the player at `seat`: declare 31, draw, discard or
    knock (`as_seen`: from his own view, as `legal_moves`)."""
    return [move.command for move in legal_moves(state, seat, as_seen) if move.kind in PLAY_MOVES]
