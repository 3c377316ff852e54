"""Properties of random legal games (2-9 players, random options, seeds and players).

After every event the invariants of rules.md hold and no view or redacted event shows a
player a card of another player's hand or of the stock; every game ends; the fold of all
events (also read back from records) is the live state; the audit passes with the seed
verified.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings

from scat_core.domain import events as ev
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide
from scat_core.domain.events import PlayerSeat
from scat_core.domain.evolve import evolve, fold
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.domain.views import PUBLIC_TYPES, PublicState, public_evolve, public_of, redact, with_public
from scat_core.records.chain import audit_records
from tests.support.domain import records_for
from tests.support.random_games import MAX_MOVES, NAMES, Setup, pick_move, play_checked, setups


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setups())
def test_random_legal_games_keep_every_invariant_hide_every_secret_end_and_audit_clean(setup: Setup) -> None:
    events, state = play_checked(setup)
    event(f"rules version {setup.rules_version}")
    kinds = ("StockReshuffled", "ThrowDownCalled", "ThirtyOneDeclared", "HandViewed", "PlayerEliminated", "Resigned")
    event(f"knockers resign: {setup.knocker_resigns}")
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

    # R17b (rules version 3): no hand rebuilds its stock more than twice; its third stock ends it.
    if setup.rules_version >= 3:
        rebuilt_in_hand = 0
        for item in events:
            rebuilt_in_hand = 0 if isinstance(item, ev.HandDealt) else rebuilt_in_hand + isinstance(
                item, ev.StockReshuffled)
            assert rebuilt_in_hand <= 2

    # The state is only ever the fold of its events, also as read back from records.
    assert state.version == len(events)
    assert fold(events) == state
    back = [ev.from_record(*ev.to_record(event)) for event in events]
    assert fold(back) == state

    # An honest game audits clean, its deals recomputed from the revealed seed.
    report = audit_records(records_for(events, "game"))
    assert (report.ok, report.first_bad_seq, report.problems, report.seed_verified) == (True, None, [], True)


@pytest.mark.parametrize(("rules_version", "count", "seed"),
                         [(1, 2, 0), (1, 9, 3), (2, 2, 1), (2, 9, 0), (3, 2, 1), (3, 9, 0)])
def test_r17_long_hands_reshuffle_the_stock_and_keep_every_property(
    rules_version: ev.RulesVersion, count: int, seed: int
) -> None:
    # Random players who seldom knock: hands long enough to empty the stock (every rules version).
    setup = Setup(
        NAMES[:count], (False,) * count, GameOptions(lives=1), str(seed), None, None, seed, 0.01, rules_version
    )
    events, state = play_checked(setup)
    assert any(isinstance(event, ev.StockReshuffled) for event in events)
    assert fold(events) == state
    assert audit_records(records_for(events, "game")).seed_verified


@pytest.mark.parametrize("count", [2, 4, 9])
def test_r17b_hands_of_players_who_never_knock_end_dead_and_every_game_ends(count: int) -> None:
    """Rules version 3: random players who never knock (min-knock 30), yet every hand ends: after its
    third stock, in a showdown nobody called (R17b, R19, R19c)."""
    setup = Setup(NAMES[:count], (False,) * count, GameOptions(lives=2, min_knock=30), "7", None, None, 7, 0.0, 3)
    events, state = play_checked(setup)
    assert state.status == "finished"
    dead = [index for index, item in enumerate(events) if isinstance(item, ev.StockRanOut)]
    assert dead, "no hand ran out of its third stock"
    for index in dead:
        showdown = events[index + 1]
        assert isinstance(showdown, ev.ShowdownHeld)
        knocker = fold(events[:index]).knocker
        assert showdown.caller == (None if knocker is None else state.players[knocker].name)
    assert audit_records(records_for(events, "game")).ok


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
            assert moved is table  # the news reads only these from the log (`Reading.news`, service/reading.py)
        assert with_public(after, moved) == after
        table = moved
    assert table.status == "finished" and table.winner is not None
    assert sum(seat.pennies for seat in table.seats) + table.kitty == setup.options.lives * len(setup.names)
