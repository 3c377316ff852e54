"""Legality is written once: `legal_moves` lists exactly the commands `decide` accepts.

On random reachable states (2-9 players, random options and rules versions, random moves,
throw downs, looks and resignations), for every seated player and every command of the
command space (both draws, a discard of each of the 52 cards, knock, 31, throw down, look,
resign): decide accepts the command if and only if legal_moves lists it (R11-R16, R20, R23, R27),
but a look at a hand already seen, which decide accepts and records nothing for.
"""

from __future__ import annotations

import random
from typing import get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scat_core.domain import events as ev
from scat_core.domain.commands import (
    CreateGame,
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
from scat_core.domain.decide import decide
from scat_core.domain.errors import ScatError
from scat_core.domain.events import PlayerSeat
from scat_core.domain.evolve import fold
from scat_core.domain.legal import legal_moves, play_moves
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.domain.views import redact_state
from tests.support.domain import command_space, create, play

NAMES = ("Ann", "bob", "Cy", "Dee", "eve", "Flo", "Gus", "Hal", "Ivy")


def test_the_command_space_holds_every_kind_of_player_command() -> None:
    """A new command type must be added to the space, so the agreement below covers it."""
    assert {type(command) for command in command_space("x")} == set(get_args(PlayerCommand))


def accepted(state: GameState, command: PlayerCommand, chance: SeededChance) -> bool:
    """Whether decide accepts `command` in `state` (a refusal is a ScatError; anything else fails the test)."""
    try:
        decide(state, command, chance)
    except ScatError:
        return False
    return True


def check_agreement(state: GameState, chance: SeededChance) -> None:
    """legal_moves of every seated player is exactly what decide accepts of the command space, and
    what his own view offers him is that, but a move hanging on his face-down hand's worth (R23)."""
    for player in state.players:
        moves = legal_moves(state, player.seat)
        assert all(move.rule == move.kind.rule and move.player == player.name for move in moves), moves
        listed = [move.command for move in moves]
        assert len(set(listed)) == len(listed), listed
        wanted = [command for command in command_space(player.name) if accepted(state, command, chance)]
        if ViewHand(player.name) in wanted and not state.hand_unseen(player.seat):  # no move: it changes nothing
            assert decide(state, ViewHand(player.name), chance) == []
            wanted.remove(ViewHand(player.name))
        assert set(listed) == set(wanted), (player.name, state.phase, listed, wanted)
        seen = [move.command for move in legal_moves(redact_state(state, player.name), player.seat, as_seen=True)]
        unknowable = [Knock(player.name)] if state.hand_unseen(player.seat) and state.options.min_knock else []
        assert seen == [move for move in listed if move not in unknowable], (player.name, listed, seen)


def pick(state: GameState, rng: random.Random, resign_rate: float) -> PlayerCommand:
    """Mostly a move of the player to play; now and then any legal command of anyone."""
    assert state.turn is not None
    if rng.random() < 0.15:
        seat = rng.choice(state.active_seats())
        moves = [move.command for move in legal_moves(state, seat)
                 if move.kind is not Resign or rng.random() < resign_rate]
        if moves:
            return rng.choice(moves)
    return rng.choice(play_moves(state, state.turn))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    count=st.integers(2, 9),
    options=st.builds(
        GameOptions,
        lives=st.integers(1, 3),
        three_of_a_kind=st.booleans(),
        straight_flush=st.booleans(),
        min_knock=st.none() | st.integers(1, 25),
        no_first_round_knock=st.booleans(),
        throw_down=st.booleans(),
        no_dole=st.booleans(),
    ),
    rules_version=st.sampled_from([1, 2, 3]),
    seed=st.integers(0, 2**32 - 1),
    moves=st.integers(0, 200),
    every=st.integers(1, 12),
    resign_rate=st.sampled_from([0.0, 0.2]),
)
def test_legal_moves_are_exactly_what_decide_accepts_on_random_reachable_states(
    count: int, options: GameOptions, rules_version: ev.RulesVersion, seed: int, moves: int, every: int,
    resign_rate: float,
) -> None:
    chance = SeededChance(str(seed), "salt")
    rng = random.Random(seed)
    players = tuple(PlayerSeat(name=name) for name in NAMES[:count])
    state = fold(decide(GameState(), CreateGame("g", players, options, rules_version=rules_version), chance))
    for step in range(moves + 1):
        if step % every == 0 or state.status == "finished":
            check_agreement(state, chance)
        if state.status == "finished":
            return
        state = fold(decide(state, pick(state, rng, resign_rate), chance), state)


def commands(moves: tuple[LegalMove, ...]) -> list[PlayerCommand]:
    """The commands of `moves`, in order."""
    return [move.command for move in moves]


def test_r12_r14_r23_r27_legal_moves_list_every_kind_of_command_allowed_in_the_order_offered() -> None:
    """R12, R14, R23, R27: at the start of a throw-down game the first player may do anything but
    discard or declare: first a look (R23), then a throw down (R23), the draws (R12), a knock (R14)
    and a resignation (R27), each with the rule that allows it."""
    state = fold(create(("A", "B"), dealer="B", hands={"A": "AC KC 3C", "B": "QD 8D 3S"}, discard="9H",
                        throw_down=True))
    assert legal_moves(state, 0) == (
        LegalMove(ViewHand("A"), "R23"), LegalMove(ThrowDown("A"), "R23"), LegalMove(Draw("A", "stock"), "R12"),
        LegalMove(Draw("A", "discard"), "R12"), LegalMove(Knock("A"), "R14"), LegalMove(Resign("A"), "R27"),
    )
    assert commands(legal_moves(state, 1)) == [ViewHand("B"), ThrowDown("B"), Resign("B")]  # not his turn (R11)


def test_r23_a_look_is_a_legal_move_only_while_the_hand_lies_face_down() -> None:
    """R23: once looked at, a hand can neither be looked at (a look records nothing) nor thrown down."""
    history = create(("A", "B"), dealer="B", hands={"A": "AC KC 3C", "B": "QD 8D 3S"}, discard="9H", throw_down=True)
    state = fold(play(history, ViewHand("A")))
    assert commands(legal_moves(state, 0)) == [Draw("A", "stock"), Draw("A", "discard"), Knock("A"), Resign("A")]
    plain = fold(create(("A", "B"), dealer="B", hands={"A": "AC KC 3C", "B": "QD 8D 3S"}, discard="9H"))
    assert ViewHand("A") not in commands(legal_moves(plain, 0))  # no face-down hands without the option


def test_r12_r13_after_taking_the_discard_the_legal_moves_are_the_other_discards() -> None:
    """R12, R13: after a draw only discards are legal (and resigning, R27), never the card just taken."""
    history = create(("A", "B"), dealer="B", hands={"A": "AC KC 3C", "B": "QD 8D 3S"}, discard="9H")
    moves = legal_moves(fold(play(history, Draw("A", "discard"))), 0)
    assert [(move.kind, move.card, move.rule) for move in moves] == [
        (Discard, "AC", "R12"), (Discard, "KC", "R12"), (Discard, "3C", "R12"), (Resign, None, "R27")]
    assert moves[0].arguments == ("AC",)


def test_r20_r21_a_hand_worth_31_offers_the_declaration_before_the_draws() -> None:
    """R20: a 3-card hand worth 31 may be declared, also out of turn; it comes before the draws."""
    state = fold(create(("A", "B"), dealer="B", hands={"A": "AC KC QC", "B": "AD KD QD"}, discard="9H"))
    assert commands(legal_moves(state, 0))[:3] == [Declare31("A"), Draw("A", "stock"), Draw("A", "discard")]
    assert commands(legal_moves(state, 1)) == [Declare31("B"), Resign("B")]  # out of turn (R20)
    assert legal_moves(state, 1)[0].rule == "R20"


def test_a_player_out_of_the_game_or_a_finished_game_has_no_legal_move() -> None:
    """R25, R26, R27: nobody out of the game, and nobody once it is over, may give a command."""
    history = play(create(("A", "B", "C"), dealer="C"), Resign("B"))
    state = fold(history)
    assert legal_moves(state, 1) == () and legal_moves(state, 0)
    over = fold(play(history, Resign("C")))
    assert over.status == "finished"
    assert [legal_moves(over, seat) for seat in range(3)] == [(), (), ()]
    assert legal_moves(over, 7) == ()  # no such seat


def test_r15_r23_a_face_down_hand_under_min_knock_in_rules_version_1_is_offered_no_knock_from_its_view() -> None:
    """Rules version 1 lets a knock under min-knock go by the worth of a hand not looked at (R15, R23);
    the player's own view cannot value it, so it offers no knock (it used to crash valuing "??")."""
    state = fold(create(("A", "B"), dealer="B", hands={"A": "AC KC 3C", "B": "QD 8D 3S"}, discard="9H",
                        throw_down=True, min_knock=1, rules_version=1))
    assert Knock("A") in commands(legal_moves(state, 0))  # the rules of version 1 would accept it
    view = redact_state(state, "A")
    assert view.hands[0] == ("??", "??", "??")
    assert Knock("A") not in commands(legal_moves(view, 0, as_seen=True))
    assert Draw("A", "stock") in commands(legal_moves(view, 0, as_seen=True))
