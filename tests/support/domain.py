"""Domain test helpers: games created from stacked decks, given / when / then, bot-driven games, records."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pytest

from scat_core.domain import events as ev
from scat_core.domain.bots import heuristic_move, random_move
from scat_core.domain.cards import DECK
from scat_core.domain.commands import (
    Command,
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
from scat_core.domain.evolve import evolve, fold
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance, seed_commitment
from scat_core.domain.state import GameState
from scat_core.records.stored_log import GENESIS_HASH, chain_hash
from tests.support.decks import deal_order, stacked_deck

SEED, SALT = "seed", "salt"
CHANCE = SeededChance(SEED, SALT)
COMMITMENT = seed_commitment(SEED, SALT)
GAME_ID = "g1"


def seats(*names: str, bots: Iterable[str] = ()) -> tuple[PlayerSeat, ...]:
    """Player seats in the order given."""
    bot_names = set(bots)
    return tuple(PlayerSeat(name=name, is_bot=name in bot_names) for name in names)


def create(
    names: Sequence[str],
    dealer: str | None,
    hands: Mapping[str, str] | None = None,
    discard: str | None = None,
    stock: str | Sequence[str] = (),
    chance: SeededChance = CHANCE,
    rules_version: ev.RulesVersion = ev.RULES_VERSION,
    **options: Any,
) -> list[ev.Event]:
    """The events of creating a game (under `rules_version`); with `hands` (by player), from a stacked first deck."""
    deck = None
    if hands is not None:
        assert dealer is not None, "a stacked deal needs a named dealer"
        deck = stacked_deck([hands[name] for name in deal_order(names, dealer)], discard, stock)
    command = CreateGame(
        game_id=GAME_ID,
        players=seats(*names),
        options=GameOptions(**options),
        dealer=dealer,
        first_deck=deck,
        rules_version=rules_version,
    )
    return decide(GameState(), command, chance)


def dealt(
    names: Sequence[str], dealer: str, hand_number: int, hands: Mapping[str, str],
    discard: str | None = None, stock: str | Sequence[str] = (),
) -> ev.HandDealt:
    """A HandDealt event with a constructed deck (for given histories of later hands)."""
    order = [name for name in deal_order(names, dealer) if name in hands]
    deck = stacked_deck([hands[name] for name in order], discard, stock)
    return ev.HandDealt(hand_number=hand_number, dealer=dealer, deck=deck)


def play(events: Sequence[ev.Event], *commands: Command) -> list[ev.Event]:
    """`events` followed by the events of each command in turn."""
    history = list(events)
    state = fold(history)
    for command in commands:
        new = decide(state, command, CHANCE)
        history.extend(new)
        state = fold(new, state)
    return history


def take_turn(events: Sequence[ev.Event], source: str = "stock", card: str | None = None) -> list[ev.Event]:
    """`events` followed by a whole turn of the player to play: he draws from `source` and
    discards `card` (by default the card drawn from the stock, or his first card)."""
    state = fold(events)
    assert state.turn is not None and state.phase == "draw"
    player = state.players[state.turn].name
    drawn = decide(state, Draw(player, source), CHANCE)  # type: ignore[arg-type]
    state = fold(drawn, state)
    if card is None:
        card = drawn[-1].card if source == "stock" else state.hands[state.seat_of(player)][0]  # type: ignore[union-attr,index]
    return [*events, *drawn, *decide(state, Discard(player, card), CHANCE)]


class Scenario:
    """given(events).when(command).then(events) / .then_refused(error, rule)."""

    def __init__(self, events: Sequence[ev.Event]) -> None:
        self.history = list(events)
        self.state = fold(self.history)
        self.command: Command | None = None

    def when(self, command: Command) -> Scenario:
        self.command = command
        return self

    def _decide(self) -> list[ev.Event]:
        assert self.command is not None, "when(command) first"
        untouched = copy.deepcopy(self.state)
        try:
            return decide(self.state, self.command, CHANCE)
        finally:
            assert self.state == untouched, "decide changed the state it was given"

    def then(self, expected: Sequence[ev.Event]) -> GameState:
        """The command yields exactly `expected`; returns the state after them."""
        produced = self._decide()
        assert produced == list(expected)
        return fold(produced, self.state)

    def then_starts_with(self, expected: Sequence[ev.Event]) -> tuple[list[ev.Event], GameState]:
        """The command's events begin with `expected`; returns them and the state after."""
        produced = self._decide()
        assert produced[: len(expected)] == list(expected)
        return produced, fold(produced, self.state)

    def then_refused(self, error: type[ScatError], rule: str | None = None, match: str | None = None) -> None:
        """The command is refused with `error` naming `rule` (and the state is untouched)."""
        with pytest.raises(error, match=match) as caught:
            self._decide()
        if rule is not None:
            assert getattr(caught.value, "rule", None) == rule, str(caught.value)
            assert f"({rule})" in str(caught.value)


def given(events: Sequence[ev.Event]) -> Scenario:
    """Start a scenario from the state `events` build."""
    return Scenario(events)


def records_for(events: Sequence[ev.Event], game_id: str = GAME_ID) -> list[dict[str, Any]]:
    """Stored-style envelopes of `events`, hash-chained as the store writes them."""
    records, previous = [], GENESIS_HASH
    for seq, event in enumerate(events, start=1):
        event_type, version, data = ev.to_record(event)
        envelope = {
            "game_id": game_id, "seq": seq, "type": event_type, "schema_version": version,
            "recorded_at": f"2024-01-01T{seq // 3600 % 24:02d}:{seq // 60 % 60:02d}:{seq % 60:02d}.000000Z",
            "data": data,
        }
        digest = chain_hash(previous, envelope)
        records.append({**envelope, "prev_hash": previous, "hash": digest})
        previous = digest
    return records


def made_before_signed_games(records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`records` (an export) as a scat before GameCreated.signed made them: the first event without
    `signed`, every hash after it chained again; a head_signature the last carried is dropped."""
    rechained, previous = [], GENESIS_HASH
    for record in records:
        envelope = {key: record[key] for key in ("game_id", "seq", "type", "schema_version", "recorded_at", "data")}
        if record["seq"] == 1:
            envelope["data"] = {key: value for key, value in record["data"].items() if key != "signed"}
        digest = chain_hash(previous, envelope)
        rechained.append({**envelope, "prev_hash": previous, "hash": digest})
        previous = digest
    return rechained


Policy = Callable[[GameState, int], PlayerCommand | None]


def heuristic(state: GameState, seat: int) -> PlayerCommand | None:
    """The heuristic bot's move."""
    return heuristic_move(state, seat)


def uniform(rng: random.Random) -> Policy:
    """A player picking uniformly among the legal moves on his turn."""
    return lambda state, seat: random_move(state, seat, rng)


def play_out(
    names: Sequence[str], policies: Sequence[Policy], seed: str, *,
    options: GameOptions | None = None, dealer: str | None = None, max_moves: int = 20_000,
    rules_version: ev.RulesVersion = ev.RULES_VERSION,
) -> tuple[list[ev.Event], GameState]:
    """A whole game played by `policies` (one per seat); a heuristic seat holding 31 declares
    out of turn (R20). Returns the events and the final state."""
    chance = SeededChance(seed, "salt-" + seed)
    command = CreateGame(
        game_id="g-" + seed, players=seats(*names), options=options or GameOptions(), dealer=dealer,
        rules_version=rules_version,
    )
    history = decide(GameState(), command, chance)
    state = fold(history)
    for _ in range(max_moves):
        if state.status == "finished":
            return history, state
        move = None
        for seat in state.active_seats():
            if policies[seat] is heuristic and seat != state.turn:
                move = heuristic_move(state, seat)  # only a declaration, out of turn
                if move is not None:
                    break
        if move is None:
            assert state.turn is not None
            move = policies[state.turn](state, state.turn)
        assert move is not None
        new = decide(state, move, chance)
        history.extend(new)
        for event in new:
            state = evolve(state, event)
    raise AssertionError(f"the game with seed {seed} did not end within {max_moves} moves")


def command_space(name: str) -> list[PlayerCommand]:
    """Every command a player called `name` can give (a discard of any of the 52 cards)."""
    return [
        Draw(name, "stock"), Draw(name, "discard"), *(Discard(name, card) for card in DECK),
        Knock(name), Declare31(name), ThrowDown(name), ViewHand(name), Resign(name),
    ]
