"""Random legal games checked event by event (2-9 players, random options, seeds and players)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from scat_core.domain import events as ev
from scat_core.domain.bots import can_declare, heuristic_move
from scat_core.domain.cards import DECK
from scat_core.domain.commands import CreateGame, Declare31, Knock, PlayerCommand, Resign, ThrowDown, ViewHand
from scat_core.domain.decide import decide, decide_and_evolve, throw_down_refusal
from scat_core.domain.events import PlayerSeat
from scat_core.domain.evolve import evolve, fold
from scat_core.domain.invariants import invariant_problems
from scat_core.domain.legal import play_moves
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from tests.support.redaction import check_redaction, check_views

MAX_MOVES = 20_000
NAMES = ("Ann", "bob", "Cy", "Dee", "eve", "Flo", "Gus", "Hal", "Ivy")


@dataclass(frozen=True)
class Setup:
    """A random game: its players, options, seeds and how its random players behave."""

    names: tuple[str, ...]
    heuristic: tuple[bool, ...]
    options: GameOptions
    seed: str
    dealer: str | None
    first_deck: tuple[str, ...] | None
    moves_seed: int
    knock_rate: float  # how often a random player who may knock does (low: long hands, R17)
    rules_version: ev.RulesVersion = ev.RULES_VERSION
    resign_rate: float = 0.0  # how often, before a move, some active player resigns instead (R27)
    knocker_resigns: bool = False  # every knocker resigns at once: showdowns without him (R27, R26)


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    """A random setup: 2-9 players, random options, seeds, dealer and first deck."""
    count = draw(st.integers(2, 9))
    names = NAMES[:count]
    options = GameOptions(
        lives=draw(st.integers(1, 4)),
        three_of_a_kind=draw(st.booleans()),
        straight_flush=draw(st.booleans()),
        min_knock=draw(st.none() | st.integers(1, 21)),  # the seeds suggest 17 to 21
        no_first_round_knock=draw(st.booleans()),
        throw_down=draw(st.booleans()),
        no_dole=draw(st.booleans()),
    )
    return Setup(
        names=names,
        heuristic=tuple(draw(st.lists(st.booleans(), min_size=count, max_size=count))),
        options=options,
        seed=str(draw(st.integers(0, 2**64 - 1))),
        dealer=draw(st.none() | st.sampled_from(names)),
        first_deck=draw(st.none() | st.permutations(DECK).map(tuple)),
        moves_seed=draw(st.integers(0, 2**32 - 1)),
        knock_rate=draw(st.sampled_from([1 / 3, 0.02])),
        rules_version=draw(st.sampled_from([1, 2, 3])),
        resign_rate=draw(st.sampled_from([0.0, 0.003, 0.03])),
        knocker_resigns=draw(st.sampled_from([False, False, True])),
    )


def pick_move(state: GameState, setup: Setup, rng: random.Random) -> PlayerCommand:
    """A heuristic seat holding 31 declares at once; now and then someone not to play
    declares, looks at his hand or throws down; otherwise the player to play moves."""
    active = state.active_seats()
    for seat in active:
        if setup.heuristic[seat] and can_declare(state, seat):
            return Declare31(state.players[seat].name)
    if setup.knocker_resigns and state.knocker is not None and not state.players[state.knocker].out:
        return Resign(state.players[state.knocker].name)
    if setup.resign_rate and rng.random() < setup.resign_rate:  # R27: at any time, in turn or not
        return Resign(state.players[rng.choice(active)].name)
    roll = rng.random()
    if roll < 0.08:
        seat = rng.choice(active)
        name = state.players[seat].name
        if can_declare(state, seat):
            return Declare31(name)
        if (
            roll < 0.01 and throw_down_refusal(state, seat) is None
        ):
            return ThrowDown(name.upper())
        return ViewHand(name.lower())
    assert state.turn is not None
    if setup.heuristic[state.turn]:
        move = heuristic_move(state, state.turn)
        assert move is not None
        return move
    moves = play_moves(state, state.turn)
    knocks = [move for move in moves if isinstance(move, Knock)]
    # With min-knock (R15) a knock is rare enough already: take it a third of the time.
    rate = setup.knock_rate if state.options.min_knock is None else max(setup.knock_rate, 1 / 3)
    if knocks and rng.random() < rate:
        return knocks[0]
    return rng.choice([move for move in moves if not isinstance(move, Knock)])


def play_checked(setup: Setup) -> tuple[list[ev.Event], GameState]:
    """Play `setup` to its end, checking the invariants, the views and the redaction after every event."""
    rng = random.Random(setup.moves_seed)
    chance = SeededChance(setup.seed, "salt")
    players = tuple(PlayerSeat(name=name, is_bot=bot) for name, bot in zip(setup.names, setup.heuristic, strict=True))
    command = CreateGame(
        "game", players, setup.options, setup.dealer, setup.first_deck, rules_version=setup.rules_version
    )
    history: list[ev.Event] = []
    state = GameState()
    last_reveal: dict[str, Any] = {}
    moves = 0
    while True:
        produced = decide(state, command, chance)
        for new in produced:
            before, state = state, evolve(state, new)
            assert invariant_problems(state) == [], (new, invariant_problems(state))
            if isinstance(new, ev.ShowdownHeld):
                last_reveal = {"hands": {k: list(v) for k, v in new.hands.items()}, "values": dict(new.values)}
            elif isinstance(new, ev.ThirtyOneDeclared):
                last_reveal = {"hands": {new.player: list(new.hand)}, "values": {new.player: 31}}
            check_redaction(new, before, state)
            check_views(state, last_reveal)
        history.extend(produced)
        if state.status == "finished":
            return history, state
        moves += 1
        assert moves <= MAX_MOVES, f"the game did not end within {MAX_MOVES} moves"
        command = pick_move(state, setup, rng)  # type: ignore[assignment]


def play_states(setup: Setup) -> tuple[list[ev.Event], list[GameState]]:
    """A random game: its events and the state after each of them (states[0] is the empty game)."""
    rng = random.Random(setup.moves_seed)
    chance = SeededChance(setup.seed, "salt")
    players = tuple(PlayerSeat(name=n, is_bot=b) for n, b in zip(setup.names, setup.heuristic, strict=True))
    command = CreateGame("game", players, setup.options, setup.dealer, setup.first_deck,
                         rules_version=setup.rules_version)
    events: list[ev.Event] = []
    states = [GameState()]
    for _ in range(MAX_MOVES):
        produced, state = decide_and_evolve(states[-1], command, chance)
        for event in produced:
            states.append(fold([event], states[-1]))
        events += produced
        assert states[-1] == state
        if state.status == "finished":
            return events, states
        command = pick_move(state, setup, rng)  # type: ignore[assignment]
    raise AssertionError("the game did not end")
