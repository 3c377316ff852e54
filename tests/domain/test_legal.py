"""Legality is written once: `legal_moves` lists exactly the commands `decide` accepts.

On random reachable states (2-9 players, random options and rules versions, random moves,
throw downs, looks and resignations), for every seated player and every command of the
command space (both draws, a discard of each of the 52 cards, knock, 31, throw down, look,
resign): decide accepts the command if and only if legal_moves lists it (R11-R16, R20, R23, R27).
"""

from __future__ import annotations

import random
from typing import get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scat_core.domain import events as ev
from scat_core.domain.cards import DECK
from scat_core.domain.commands import (
    CreateGame,
    Declare31,
    Discard,
    Draw,
    Knock,
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
from tests.support.domain import create, play

NAMES = ("Ann", "bob", "Cy", "Dee", "eve", "Flo", "Gus", "Hal", "Ivy")


def command_space(name: str) -> list[PlayerCommand]:
    """Every command a player called `name` can give (a discard of any of the 52 cards)."""
    return [
        Draw(name, "stock"), Draw(name, "discard"), *(Discard(name, card) for card in DECK),
        Knock(name), Declare31(name), ThrowDown(name), ViewHand(name), Resign(name),
    ]


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
        listed = legal_moves(state, player.seat)
        assert len(set(listed)) == len(listed), listed
        wanted = [command for command in command_space(player.name) if accepted(state, command, chance)]
        assert set(listed) == set(wanted), (player.name, state.phase, listed, wanted)
        seen = legal_moves(redact_state(state, player.name), player.seat, as_seen=True)
        unknowable = [Knock(player.name)] if state.hand_unseen(player.seat) and state.options.min_knock else []
        assert seen == [move for move in listed if move not in unknowable], (player.name, listed, seen)


def pick(state: GameState, rng: random.Random, resign_rate: float) -> PlayerCommand:
    """Mostly a move of the player to play; now and then any legal command of anyone."""
    assert state.turn is not None
    if rng.random() < 0.15:
        seat = rng.choice(state.active_seats())
        moves = [move for move in legal_moves(state, seat)
                 if not isinstance(move, Resign) or rng.random() < resign_rate]
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


def test_legal_moves_list_every_kind_of_command_when_each_is_allowed() -> None:
    """R12, R14, R23, R27: at the start of a throw-down game the first player may do anything but discard."""
    state = fold(create(("A", "B"), dealer="B", hands={"A": "AC KC 3C", "B": "QD 8D 3S"}, discard="9H",
                        throw_down=True))
    assert legal_moves(state, 0) == [
        Draw("A", "stock"), Draw("A", "discard"), Knock("A"), ThrowDown("A"), ViewHand("A"), Resign("A"),
    ]
    assert legal_moves(state, 1) == [ThrowDown("B"), ViewHand("B"), Resign("B")]  # not his turn (R11)


def test_a_player_out_of_the_game_or_a_finished_game_has_no_legal_move() -> None:
    """R25, R26, R27: nobody out of the game, and nobody once it is over, may give a command."""
    history = play(create(("A", "B", "C"), dealer="C"), Resign("B"))
    state = fold(history)
    assert legal_moves(state, 1) == [] and legal_moves(state, 0)
    over = fold(play(history, Resign("C")))
    assert over.status == "finished"
    assert [legal_moves(over, seat) for seat in range(3)] == [[], [], []]
    assert legal_moves(over, 7) == []  # no such seat


def test_r15_r23_a_face_down_hand_under_min_knock_in_rules_version_1_is_offered_no_knock_from_its_view() -> None:
    """Rules version 1 lets a knock under min-knock go by the worth of a hand not looked at (R15, R23);
    the player's own view cannot value it, so it offers no knock (it used to crash valuing "??")."""
    state = fold(create(("A", "B"), dealer="B", hands={"A": "AC KC 3C", "B": "QD 8D 3S"}, discard="9H",
                        throw_down=True, min_knock=1, rules_version=1))
    assert Knock("A") in legal_moves(state, 0)  # the rules of version 1 would accept it
    view = redact_state(state, "A")
    assert view.hands[0] == ("??", "??", "??")
    assert Knock("A") not in legal_moves(view, 0, as_seen=True)
    assert Draw("A", "stock") in legal_moves(view, 0, as_seen=True)
