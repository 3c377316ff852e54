"""Properties of random legal games (2-9 players, random options, seeds and players).

After every event the invariants of rules.md hold and no view or redacted event shows a
player a card of another player's hand or of the stock; every game ends; the fold of all
events (also read back from records) is the live state; the audit passes with the seed
verified.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from scat_core.domain import events as ev
from scat_core.domain.bots import can_declare, heuristic_move
from scat_core.domain.cards import DECK
from scat_core.domain.commands import CreateGame, Declare31, Knock, PlayerCommand, Resign, ThrowDown, ViewHand
from scat_core.domain.decide import decide, throw_down_refusal
from scat_core.domain.events import PlayerSeat
from scat_core.domain.evolve import evolve, fold
from scat_core.domain.invariants import invariant_problems
from scat_core.domain.legal import play_moves
from scat_core.domain.options import GameOptions
from scat_core.domain.public import PUBLIC_TYPES, PublicState, public_evolve, public_of, with_public
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.domain.views import redact, redact_state
from scat_core.store.chain import audit_records

from .helpers import records_for

MAX_MOVES = 20_000
CARD_STRING = re.compile(r'"(10[CDHS]|[2-9JQKA][CDHS])"')
NAMES = ("Ann", "bob", "Cy", "Dee", "eve", "Flo", "Gus", "Hal", "Ivy")


@dataclass(frozen=True)
class Setup:
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


@st.composite
def setups(draw: st.DrawFn) -> Setup:
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
        rules_version=draw(st.sampled_from([1, 2])),
        resign_rate=draw(st.sampled_from([0.0, 0.003, 0.03])),
    )


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a view or an event: any JSON string, key or value, that
    is exactly a card."""
    text = value.model_dump_json() if isinstance(value, BaseModel) else json.dumps(value)
    return set(CARD_STRING.findall(text))


def hidden_from(state: GameState, seat: int | None) -> set[str]:
    """The cards `seat` (None: the public) may not know: the stock, the others' hands, the cards set aside."""
    hidden = set(state.stock) | set(state.set_aside)
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(hand)
    return hidden


def check_views(state: GameState, last_reveal: dict[str, Any]) -> None:
    """No state redacted for a viewer shows a hidden card; what is revealed is the last showdown or declaration.

    (The JSON views are built from these redacted states: tests/cli/test_view_json.py.)
    """
    if state.status == "finished":
        return
    viewers: list[str | None] = [None, *[player.name for player in state.players]]
    for viewer in viewers:
        seat = None if viewer is None else state.seat_of(viewer)
        seen = redact_state(state, viewer)
        assert {name: list(hand) for name, hand in seen.revealed.items()} == last_reveal.get("hands", {})
        assert seen.revealed_values == last_reveal.get("values", {})
        shown = {card for hand in seen.hands for card in hand} | {*seen.stock, *seen.discard, *seen.set_aside}
        leaked = shown & hidden_from(state, seat)
        assert not leaked, f"{viewer or 'the public'} sees {sorted(leaked)}"


def check_redaction(event: ev.Event, before: GameState, after: GameState) -> None:
    """A redacted event shows nobody a card he may not know (reveals are the rules' own)."""
    if isinstance(event, (ev.ShowdownHeld, ev.ThirtyOneDeclared)):
        return  # R18, R21: the hands are shown to everybody
    public = redact(event, before, None)
    viewers = [None] if public is event else [None, *[player.name for player in before.players]]
    for viewer in viewers:  # an event shown unredacted to the public is shown so to all
        seat = None if viewer is None else before.seat_of(viewer)
        shown = cards_in(redact(event, before, viewer))
        if isinstance(event, ev.CardDrawn) and event.source == "discard":
            shown.discard(event.card)  # it was the face-up discard top
        leaked = shown & hidden_from(after, seat)
        assert not leaked, f"{type(event).__name__} shows {viewer or 'the public'} {sorted(leaked)}"


def pick_move(state: GameState, setup: Setup, rng: random.Random) -> PlayerCommand:
    """A heuristic seat holding 31 declares at once; now and then someone not to play
    declares, looks at his hand or throws down; otherwise the player to play moves."""
    active = state.active_seats()
    for seat in active:
        if setup.heuristic[seat] and can_declare(state, seat):
            return Declare31(state.players[seat].name)
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


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
def test_random_legal_games_keep_every_invariant_hide_every_secret_end_and_audit_clean(setup: Setup) -> None:
    events, state = play_checked(setup)
    event(f"rules version {setup.rules_version}")
    kinds = ("StockReshuffled", "ThrowDownCalled", "ThirtyOneDeclared", "HandViewed", "PlayerEliminated", "Resigned")
    for kind in kinds:
        event(f"{kind}: {'yes' if any(e.type == kind for e in events) else 'no'}")
    event(f"events: {'<200' if len(events) < 200 else '<1000' if len(events) < 1000 else '1000+'}")

    # Every game ends (R26): one player left, who has won.
    assert isinstance(events[-1], ev.GameWon)
    assert [p.name for p in state.players if not p.out] == [state.winner]
    assert sum(p.pennies for p in state.players) + state.kitty == setup.options.lives * len(setup.names)
    kitty_before = fold(events[:-1]).kitty
    assert events[-1].kitty == kitty_before
    if setup.rules_version == 1:
        assert state.kitty == kitty_before
    else:  # R26 (rules version 2): the winner's final pennies include the kitty
        assert state.kitty == 0
        assert state.players[state.seat_of(state.winner or "")].pennies >= kitty_before  # type: ignore[index]

    # The state is only ever the fold of its events, also as read back from records.
    assert state.version == len(events)
    assert fold(events) == state
    back = [ev.from_record(*ev.to_record(event)) for event in events]
    assert fold(back) == state

    # An honest game audits clean, its deals recomputed from the revealed seed.
    report = audit_records(records_for(events, "game"))
    assert (report.ok, report.first_bad_seq, report.problems, report.seed_verified) == (True, None, [], True)


@pytest.mark.parametrize(("rules_version", "count", "seed"), [(1, 2, 0), (1, 9, 3), (2, 2, 1), (2, 9, 0)])
def test_r17_long_hands_reshuffle_the_stock_and_keep_every_property(
    rules_version: ev.RulesVersion, count: int, seed: int
) -> None:
    # Random players who seldom knock: hands long enough to empty the stock (both rules versions).
    setup = Setup(
        NAMES[:count], (False,) * count, GameOptions(lives=1), str(seed), None, None, seed, 0.01, rules_version
    )
    events, state = play_checked(setup)
    assert any(isinstance(event, ev.StockReshuffled) for event in events)
    assert fold(events) == state
    assert audit_records(records_for(events, "game")).seed_verified


def played(setup: Setup) -> list[tuple[GameState, ev.Event, GameState]]:
    """Every event of a random game with the full state before and after it (no checks: fast)."""
    rng = random.Random(setup.moves_seed)
    chance = SeededChance(setup.seed, "salt")
    players = tuple(PlayerSeat(name=name, is_bot=bot) for name, bot in zip(setup.names, setup.heuristic, strict=True))
    command: Any = CreateGame(
        "game", players, setup.options, setup.dealer, setup.first_deck, rules_version=setup.rules_version
    )
    state, steps = GameState(), []
    while len(steps) <= MAX_MOVES:
        for new in decide(state, command, chance):
            before, state = state, evolve(state, new)
            steps.append((before, new, state))
        if state.status == "finished":
            return steps
        command = pick_move(state, setup, rng)
    raise AssertionError(f"the game did not end within {MAX_MOVES} events")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
def test_r7_r24_r25_r26_r27_the_public_fold_agrees_with_the_full_fold_after_every_event(setup: Setup) -> None:
    """Pennies (R7, R24), who is out (R25, R27), the kitty and the winner (R26), seats, hand and
    dealer: `public_evolve` over the events, as recorded or redacted for the public, is the
    public part of `evolve`'s state after every event; only the `PUBLIC_TYPES` and deals change it."""
    table = public = PublicState()
    for before, new, after in played(setup):
        moved = public_evolve(table, new)
        assert moved == public_of(after), (new, moved, public_of(after))
        public = public_evolve(public, redact(new, before, None))  # what the transcript follows
        assert public == moved
        if new.type not in (*PUBLIC_TYPES, "HandDealt"):
            assert moved is table  # the news reads only these from the log (service/news.py)
        assert with_public(after, moved) == after
        table = moved
    assert table.status == "finished" and table.winner is not None
    assert sum(seat.pennies for seat in table.seats) + table.kitty == setup.options.lives * len(setup.names)
