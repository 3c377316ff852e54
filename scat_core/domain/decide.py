"""decide(state, command, chance) -> events: every rule of Scat, pure.

A command that breaks a rule raises RuleViolation naming the rule. The consequences of a
command (showdown, pennies, eliminations, the next deal, the end of the game) are decided
here too, in the same list of events.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Literal

from . import events as ev
from . import speed_tricks as unvalidated  # the events decide makes, built without validation
from .cards import hand_value, validate_deck
from .commands import (
    AbandonGame,
    AcceptSeat,
    ClaimTime,
    Command,
    CreateGame,
    Declare31,
    DeclineSeat,
    Discard,
    Draw,
    ExpireInvitations,
    JoinGame,
    Knock,
    Resign,
    Say,
    ThrowDown,
    ViewHand,
)
from .errors import AuthFailed, BadInput, Hint, NotFound, RuleViolation, ScatError
from .evolve import apply, copy_of
from .names import look_alike, name_problem
from .options import deadline, format_duration
from .shuffle import Chance
from .state import STOCK_REBUILDS, GameState

MIN_PLAYERS, MAX_PLAYERS = 2, 9
#: How long an invitation stays open unless the creator says otherwise (cli.md: 7 days), and at most.
INVITATION_SECONDS = 7 * 86_400
MAX_INVITATION_SECONDS = 366 * 86_400
#: R15 (rules version 3): the least value a knock may ask for, at most; a hand worth 31 is declared.
MAX_MIN_KNOCK = 30


class _Emitter:
    """Collects events and keeps the state they lead to, so consequences see it.

    The state given is never changed: the first event is applied to a copy, which every
    later event of the command updates in place (`evolve.apply`), one copy per command.
    """

    __slots__ = ("state", "events", "_copied")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.events: list[ev.Event] = []
        self._copied = False

    def emit(self, event: Any) -> None:
        self.events.append(event)
        if not self._copied:
            self.state, self._copied = copy_of(self.state), True
        apply(self.state, event)


def value_of(state: GameState, seat: int) -> int:
    """The value of the hand at `seat` under the game's options (R3-R5)."""
    return hand_value(state.hands[seat], state.options)


def decide(state: GameState, command: Command, chance: Chance) -> list[ev.Event]:
    """The events that `command` causes in `state`, or a RuleViolation naming the rule."""
    return decide_and_evolve(state, command, chance)[0]


def decide_and_evolve(state: GameState, command: Command, chance: Chance) -> tuple[list[ev.Event], GameState]:
    """`decide`, and the state those events lead to (already computed while deciding)."""
    out = _Emitter(state)
    if isinstance(command, CreateGame):
        _create(out, command, chance)
        return out.events, out.state
    if isinstance(command, ClaimTime):
        _claim(out, command, chance)
        return out.events, out.state
    if isinstance(command, AbandonGame):
        _abandon(out, command, chance)
        return out.events, out.state
    if isinstance(command, Say):
        _say(out, command)
        return out.events, out.state
    if isinstance(command, AcceptSeat | DeclineSeat | JoinGame | ExpireInvitations):
        _TABLE[type(command)](out, command, chance)
        return out.events, out.state
    handler = _PLAYER_COMMANDS[type(command)]
    seat = state.seat_of(command.player)
    refusal = player_refusal(state, seat, command.player)
    if refusal is not None:
        raise refusal
    assert seat is not None
    handler(out, seat, command, chance)
    return out.events, out.state


def player_refusal(state: GameState, seat: int | None, name: str) -> ScatError | None:
    """Why the player `name` (at `seat`; None: not seated) may give no command at all now, or None."""
    if state.status == "new":
        return NotFound("no such game")
    if seat is None:
        return NotFound(f"no player {name!r} in this game")
    if state.status != "active":
        return not_running(state)
    if state.players[seat].resigned:
        return RuleViolation(f"out of the game: {state.players[seat].name} has resigned", "R27")
    if state.players[seat].out:
        return RuleViolation(f"out of the game: {state.players[seat].name} has no lives left", "R25")
    return None


def over(state: GameState) -> RuleViolation:
    """The refusal of any command in a finished game: won (R26), abandoned, or cancelled before it began."""
    if state.status == "cancelled":
        said = {"declined": "a player declined his seat", "withdrawn": "its creator withdrew it",
                "expired": "its invitations were not all answered in time"}.get(state.cancelled or "", "")
        return RuleViolation(f"the game was cancelled before its first deal: {said}")
    if state.winner is None:
        return RuleViolation("the game is over: it was abandoned without a winner")
    return RuleViolation(f"the game is over: {state.winner} won", "R26")


def not_running(state: GameState) -> RuleViolation:
    """The refusal of a move in a game that is not being played: it waits for its players, or is over."""
    if state.status == "pending":
        return RuleViolation(f"game {state.game_id} has not begun: it waits for {waited_for(state)}", "R28",
                             game_id=state.game_id)
    return over(state)


def waited_for(state: GameState) -> str:
    """Who a pending game waits for: "ann and bob to accept, and 1 open seat" (R28)."""
    parts = []
    if state.awaiting:
        names = ", ".join(state.awaiting[:-1]) + (" and " if len(state.awaiting) > 1 else "") + state.awaiting[-1]
        parts.append(f"{names} to accept")
    if state.open_seats:
        parts.append(f"{state.open_seats} open seat{'s' if state.open_seats > 1 else ''} to be taken")
    return ", and ".join(parts) or "nobody"


def _create(out: _Emitter, command: CreateGame, chance: Chance) -> None:
    state = out.state
    if state.status != "new":
        raise RuleViolation(f"game {command.game_id} exists already")
    names = [seat.name for seat in command.players]
    if command.open_seats < 0:
        raise BadInput(f"open seats are counted from 0, not {command.open_seats}")
    seated = len(names) + command.open_seats
    if not MIN_PLAYERS <= seated <= MAX_PLAYERS:
        counted = f"{len(names)} and {command.open_seats} open seats" if command.open_seats else str(len(names))
        raise RuleViolation(f"Scat is for 2 to 9 players, not {counted}", "R6")
    legacy = command.seed_chosen is None  # a game from before names were normalised (GameCreated v3 or older)
    for name in names:
        problem = name_problem(name)
        if problem is not None and not (legacy and "normalised" in problem):
            raise BadInput(problem)
    folded = [name.casefold() for name in names]
    if len(set(folded)) != len(folded):
        twice = next(name for name in names if folded.count(name.casefold()) > 1)
        raise BadInput(f"two players are called {twice!r}: names must differ (ignoring case)")
    alike = None if legacy else look_alike(names, command.name_looks)
    if alike is not None:
        raise BadInput(f"the names {alike[0]!r} and {alike[1]!r} look alike: give players names that "
                       "cannot be mistaken for each other")
    if command.dealer is None:
        dealer, drawn = names[chance.first_dealer(len(names))], True
    else:
        if command.dealer.casefold() not in folded:
            raise NotFound(f"the dealer {command.dealer!r} is not one of the players")
        dealer, drawn = names[folded.index(command.dealer.casefold())], False
    min_knock = command.options.min_knock
    if command.rules_version >= 3 and min_knock is not None and min_knock > MAX_MIN_KNOCK:
        raise BadInput(f"min-knock is 1 to {MAX_MIN_KNOCK}, not {min_knock}: a hand worth 31 is declared, "
                       "never knocked", "R15")
    creator = None
    if command.creator is not None:
        creator = next((seat.name for seat in command.players
                        if not seat.is_bot and seat.name.casefold() == command.creator.casefold()), None)
        if creator is None:
            raise BadInput(f"the creator {command.creator!r} must sit in the game as one of its humans")
    waits = command.open_seats > 0 or (command.consent and any(
        not seat.is_bot and seat.name != creator for seat in command.players))
    if command.first_deck is not None:
        validate_deck(command.first_deck)
        if waits:
            raise BadInput("a stacked first deck (--deck) is dealt at once: not in a game that waits for its players")
    expires = command.expires if command.expires is not None else INVITATION_SECONDS if waits else None
    if expires is not None and not 1 <= expires <= MAX_INVITATION_SECONDS:
        raise BadInput(f"an invitation stays open 1 second to 366 days, not {expires} seconds")
    out.emit(
        ev.GameCreated(
            game_id=command.game_id,
            players=command.players,
            options=command.options,
            dealer=dealer,
            dealer_drawn=drawn,
            seed_commitment=chance.commitment(),
            protected=command.protected,
            first_deck_stacked=command.first_deck is not None,
            rules_version=command.rules_version,
            seed_chosen=command.seed_chosen,
            signed_moves=command.signed_moves,
            signed=command.signed,
            creator=creator,
            consent=command.consent,
            open_seats=command.open_seats,
            expires=expires,
            rematch_of=command.rematch_of,
            name_looks=command.name_looks,
        )
    )
    if waits:
        return  # R28: nothing is dealt until every seat is taken and accepted
    if command.first_deck is not None:
        out.emit(ev.HandDealt(hand_number=1, dealer=dealer, deck=command.first_deck, stacked=True))
    else:
        out.emit(unvalidated.hand_dealt(1, dealer, tuple(chance.deck(1))))


def turn_refusal(state: GameState, seat: int, phase: str) -> RuleViolation | None:
    """Why the player at `seat` may not take the `phase` ('draw' or 'discard') step of a turn now (R11, R12)."""
    if state.turn != seat:
        if state.turn is None:
            return RuleViolation("the hand is being settled: nobody is to play")
        return RuleViolation(f"it is not your turn: the player to act is {state.name(state.turn)}", "R11")
    if state.phase != phase:
        if phase == "draw":
            return RuleViolation("you have drawn already: discard a card now", "R12")
        return RuleViolation("draw a card first (from the stock or the discard pile)", "R12")
    return None


def draw_refusal(state: GameState, source: str) -> RuleViolation | None:
    """Why a card cannot be drawn from `source` ('stock' or 'discard') now (R12, R17), or None.

    Decision (rules silent): a resignation (R27) can empty the discard pile (a player who took
    its only card resigns, his 4 cards set aside); it cannot be drawn from until someone
    discards, and the stock remains. An empty stock is rebuilt from the discard pile but its
    top (R17); with nothing under that top there is no card to draw from the stock either.
    """
    if source == "discard" and not state.discard:
        return RuleViolation("the discard pile is empty: draw from the stock", "R12")
    if source == "stock" and not state.stock and len(state.discard) < 2:
        return RuleViolation("the stock is empty and the discard pile has no card under its top to reshuffle", "R17")
    return None


def _draw(out: _Emitter, seat: int, command: Draw, chance: Chance) -> None:
    state = out.state
    if command.source not in ("stock", "discard"):
        raise BadInput(f"draw from 'stock' or 'discard', not {command.source!r}")
    refusal = turn_refusal(state, seat, "draw") or draw_refusal(state, command.source)
    if refusal is not None:
        raise refusal
    player = state.players[seat].name
    if command.source == "discard":
        out.emit(unvalidated.card_drawn(player, "discard", state.discard[-1]))
        return
    if not state.stock:  # R17
        stock = chance.restock(state.hand_number, state.reshuffles + 1, state.discard[:-1])
        out.emit(unvalidated.stock_reshuffled(tuple(stock)))
    out.emit(unvalidated.card_drawn(player, "stock", out.state.stock[0]))


def discard_refusal(state: GameState, seat: int, card: str) -> RuleViolation | None:
    """Why the player at `seat` may not discard `card` now (R11-R13), or None."""
    refusal = turn_refusal(state, seat, "discard")
    if refusal is not None:
        return refusal
    if card not in state.hands[seat]:
        return RuleViolation(f"you do not hold {card}", "R12")
    if card == state.taken_from_discard:
        return RuleViolation(f"you took {card} from the discard pile this turn: discard another card", "R13")
    return None


def _discard(out: _Emitter, seat: int, command: Discard, chance: Chance) -> None:
    state = out.state
    refusal = discard_refusal(state, seat, command.card)
    if refusal is not None:
        raise refusal
    out.emit(unvalidated.card_discarded(state.players[seat].name, command.card))
    if out.state.phase == "settling":  # R16: the player to the knocker's right has discarded
        assert state.knocker is not None
        _showdown(out, state.knocker, chance)
    elif hand_is_dead(out.state):
        _dead_hand(out, chance)


def hand_is_dead(state: GameState) -> bool:
    """Whether the turn just completed drew the last card of the hand's third stock (R17b, rules version 3)."""
    return state.rules_version >= 3 and state.phase == "draw" and state.reshuffles >= STOCK_REBUILDS and not state.stock


def _dead_hand(out: _Emitter, chance: Chance) -> None:
    """R17b: the hand ends in a showdown; a knocker is still the knocker, else the lowest lose (R19, R19c)."""
    out.emit(unvalidated.stock_ran_out())
    _showdown(out, out.state.knocker, chance)


def knock_refusal(state: GameState, seat: int) -> RuleViolation | None:
    """Why the player at `seat` may not knock at the start of his turn (R14-R16), or None."""
    if state.knocker is not None:
        return RuleViolation(f"{state.name(state.knocker)} has knocked already: draw a card", "R16")
    options = state.options
    if options.no_first_round_knock and not set(state.active_seats()) <= state.had_turn:
        return RuleViolation("nobody may knock until every player has had a turn", "R15b")
    if options.min_knock is not None and state.hand_unseen(seat) and state.rules_version >= 2:
        # Refusing by value would tell an unseen hand's worth (R23, rules version 2): look first, as for a 31.
        name = state.players[seat].name
        return RuleViolation(
            f"{name}'s hand is still face down: look at it first", "R23", game_id=state.game_id, player=name,
            hint=Hint.LOOK, after=f"; knocking needs a hand worth at least {options.min_knock} (R15)",
        )
    if options.min_knock is not None and value_of(state, seat) < options.min_knock:
        return RuleViolation(
            f"your hand is worth {value_of(state, seat)}: knocking needs at least {options.min_knock}",
            "R15",
        )
    return None


def declare_refusal(state: GameState, seat: int) -> RuleViolation | None:
    """Why the player at `seat` may not declare 31 now (R20, R23), or None."""
    if not state.in_hand:
        return RuleViolation("the hand is being settled: nothing to declare", "R20")
    if state.options.throw_down and seat not in state.looked:
        # Refusing by value would tell an unseen hand's worth without recording the look.
        name = state.players[seat].name
        return RuleViolation(f"{name}'s hand is still face down: look at it first", "R23", game_id=state.game_id,
                             player=name, hint=Hint.LOOK)
    if len(state.hands[seat]) != 3:
        return RuleViolation("you hold 4 cards: discard first, then declare 31", "R20")
    value = value_of(state, seat)
    if value != 31:
        return RuleViolation(f"your hand is worth {value}, not 31", "R20")
    return None


def _knock(out: _Emitter, seat: int, command: Knock, chance: Chance) -> None:
    state = out.state
    refusal = turn_refusal(state, seat, "draw") or knock_refusal(state, seat)
    if refusal is not None:
        raise refusal
    out.emit(unvalidated.knocked(state.players[seat].name))


def _declare(out: _Emitter, seat: int, command: Declare31, chance: Chance) -> None:
    state = out.state
    refusal = declare_refusal(state, seat)
    if refusal is not None:
        raise refusal
    player = state.players[seat].name
    out.emit(unvalidated.thirty_one_declared(player, state.hands[seat]))
    _lose_lives(out, [(other, 1) for other in state.play_order() if other != seat])  # R21
    _next_hand_or_end(out, chance)


def throw_down_refusal(state: GameState, seat: int) -> RuleViolation | None:
    """Why the player at `seat` may not call a throw down now (R23), or None."""
    if not state.options.throw_down:
        return RuleViolation("this game was created without the throw-down option", "R23")
    if not state.in_hand:
        return RuleViolation("the hand is being settled", "R23")
    if seat in state.looked:
        return RuleViolation("you have looked at your hand: only a player who has not may throw down", "R23")
    if state.knocker is not None and state.rules_version >= 2:  # a throw down is a knock (R14)
        return RuleViolation(f"{state.name(state.knocker)} has knocked already: no throw down after a knock", "R23")
    if state.phase != "draw":
        return RuleViolation(
            f"a turn is under way ({state.name(state.turn)} holds 4 cards): throw down between turns", "R23"
        )
    return None


def _throw_down(out: _Emitter, seat: int, command: ThrowDown, chance: Chance) -> None:
    state = out.state
    refusal = throw_down_refusal(state, seat)
    if refusal is not None:
        raise refusal
    out.emit(unvalidated.throw_down_called(state.players[seat].name))
    _showdown(out, seat, chance)


def _view(out: _Emitter, seat: int, command: ViewHand, chance: Chance) -> None:
    state = out.state
    if state.hand_unseen(seat):  # R23: a first look is recorded
        out.emit(unvalidated.hand_viewed(state.players[seat].name))


def _resign(out: _Emitter, seat: int, command: Resign, chance: Chance) -> None:
    """R27: out at once, at any time; a knock stands; the last active player wins (R26)."""
    state = out.state
    refusal = resign_refusal(state, seat)
    if refusal is not None:
        raise refusal
    out.emit(unvalidated.resigned(state.players[seat].name))
    _after_resignation(out, chance)


def _after_resignation(out: _Emitter, chance: Chance) -> None:
    """R27: the last active player wins (R26); the last to play after a knock leaves the showdown due (R16)."""
    if len(out.state.active_seats()) == 1:
        _next_hand_or_end(out, chance)
    elif out.state.phase == "settling":  # he was the last to play after the knock (R16)
        assert out.state.knocker is not None
        _showdown(out, out.state.knocker, chance)
    elif hand_is_dead(out.state):  # his turn, the one that drew the third stock's last card, is over (R17b)
        _dead_hand(out, chance)


def _claim(out: _Emitter, command: ClaimTime, chance: Chance) -> None:
    """R28: the player to act, out of time, is resigned (R27) on a claim by another player or the server."""
    state = out.state
    refusal = claim_refusal(state, command)
    if refusal is not None:
        raise refusal
    assert state.turn is not None
    claimer = None if command.claimer is None else state.name(state.seat_of(command.claimer))
    out.emit(unvalidated.timed_out(state.players[state.turn].name, claimer))
    _after_resignation(out, chance)


def claim_refusal(state: GameState, command: ClaimTime) -> ScatError | None:
    """Why the turn of the player to act may not be claimed by `command` now (R28), or None."""
    if command.claimer is not None:
        seat = state.seat_of(command.claimer)
        refusal = player_refusal(state, seat, command.claimer)
        if refusal is not None:
            return refusal
        if seat == state.turn:
            return RuleViolation("you cannot claim your own turn: play it", "R28")
    elif state.status != "active":
        return NotFound("no such game") if state.status == "new" else not_running(state)
    if state.options.move_time is None:
        return RuleViolation("this game has no move time: nobody's turn can be claimed", "R28")
    if state.turn is None or not state.in_hand:
        return RuleViolation("nobody is to act now: there is no turn to claim", "R28")
    late = state.players[state.turn]
    if late.is_bot:
        return RuleViolation(f"{late.name} is a bot: bots play at once", "R28")
    ends = deadline(command.turn_began_at, state.options.move_time)
    if command.now < ends:
        left = format_duration(math.ceil((ends - command.now).total_seconds()))
        return RuleViolation(f"{late.name} still has {left} to move", "R28")
    return None


def _abandon(out: _Emitter, command: AbandonGame, chance: Chance) -> None:
    """The game ends without a winner and its seed is revealed (valid in every rules version)."""
    refusal = abandon_refusal(out.state, command.player)
    if refusal is not None:
        raise refusal
    state = out.state
    by = None if command.player is None else state.name(state.seat_of(command.player))
    seed, salt = chance.reveal()
    out.emit(unvalidated.game_abandoned(by, seed, salt))


def abandon_refusal(state: GameState, player: str | None) -> ScatError | None:
    """Why `player` (None: the owner of a local database) may not abandon the game now, or None:
    only the last human still in it may, or anyone when no human is."""
    if state.status == "new":
        return NotFound("no such game")
    if state.status != "active":
        if state.status == "pending":
            return RuleViolation(f"game {state.game_id} has not begun: decline it (its creator withdraws it)")
        return over(state)
    others = [p.name for p in state.players if not p.is_bot and not p.out]
    seat = None
    if player is not None:
        seat = state.seat_of(player)
        if seat is None:
            return NotFound(f"no player {player!r} in this game")
        if state.players[seat].is_bot:
            return RuleViolation(f"{state.players[seat].name} is a bot: bots never give a game up")
        others = [name for name in others if name != state.players[seat].name]
    if others:
        who = " and ".join(others)
        return RuleViolation(f"{who} {'is' if len(others) == 1 else 'are'} still in the game: only the last human "
                             "in a game may abandon it; resign to leave it yourself")
    return None


#: The longest message a player may say, in characters.
MAX_MESSAGE = 500


def message_problem(text: str) -> str | None:
    """What is wrong with `text` as a message (1 to MAX_MESSAGE characters of printable text), or None."""
    if not text.strip():
        return "say something: the message is empty"
    if len(text) > MAX_MESSAGE:
        return f"a message is at most {MAX_MESSAGE} characters, not {len(text)}"
    if not text.isprintable():
        return "a message is one line of printable text (no line breaks, tabs or control characters)"
    return None


def _say(out: _Emitter, command: Say) -> None:
    """A player of the game says one line: at any time, out of the game or after its end too."""
    state = out.state
    if state.status == "new":
        raise NotFound("no such game")
    problem = message_problem(command.text)
    if problem is not None:
        raise BadInput(problem)
    seat = state.seat_of(command.player)
    if seat is None:
        raise AuthFailed(f"only the players of game {state.game_id} speak at its table, and {command.player!r} "
                         "has no seat in it", game_id=state.game_id, player=command.player)
    if state.players[seat].is_bot:
        raise RuleViolation(f"{state.players[seat].name} is a bot: bots do not talk")
    out.emit(unvalidated.message_said(state.players[seat].name, command.text))


def _pending_seat(state: GameState, player: str, what: str) -> int:
    """The seat of the human `player` in a game waiting for its players, or the refusal of `what` (R28)."""
    if state.status == "new":
        raise NotFound("no such game")
    seat = state.seat_of(player)
    if state.status != "pending":
        raise RuleViolation(f"game {state.game_id} is not waiting for its players: nothing to {what}"
                            + (f" ({over(state)})" if state.status in ("finished", "cancelled") else ""))
    if seat is None:
        raise RuleViolation(f"{player} has no seat in game {state.game_id}: nothing to {what}",
                            game_id=state.game_id, player=player)
    if state.players[seat].is_bot:
        raise RuleViolation(f"{state.players[seat].name} is a bot: bots need no acceptance")
    return seat


def _accept(out: _Emitter, command: AcceptSeat, chance: Chance) -> None:
    """R28: a seated human accepts; the last acceptance (every seat taken) deals the first hand."""
    state = out.state
    name = state.players[_pending_seat(state, command.player, "accept")].name
    if name not in state.awaiting:
        raise RuleViolation(f"{name} has accepted already: game {state.game_id} waits for {waited_for(state)}")
    out.emit(unvalidated.seat_accepted(name))
    _deal_when_ready(out, chance)


def _decline(out: _Emitter, command: DeclineSeat, chance: Chance) -> None:
    """A seated human declines (the creator withdraws the game): it is cancelled, never dealt."""
    state = out.state
    name = state.players[_pending_seat(state, command.player, "decline")].name
    reason: Literal["declined", "withdrawn"] = "withdrawn" if name == state.creator else "declined"
    seed, salt = chance.reveal()
    out.emit(unvalidated.game_cancelled(name, reason, seed, salt))


def _join(out: _Emitter, command: JoinGame, chance: Chance) -> None:
    """Someone takes the first open seat (joining is accepting); the last seat taken deals."""
    state = out.state
    if state.status != "pending" or not state.open_seats:
        raise RuleViolation(f"game {state.game_id} has no open seat" + (
            "" if state.status in ("pending", "active") else f" ({over(state)})"), game_id=state.game_id)
    problem = name_problem(command.player)
    if problem is not None:
        raise BadInput(problem)
    if state.seat_of(command.player) is not None:
        raise RuleViolation(f"{command.player} sits in game {state.game_id} already", game_id=state.game_id)
    alike = look_alike([player.name for player in state.players] + [command.player], state.name_looks)
    if alike is not None:
        raise RuleViolation(f"{alike[1]!r} looks like {alike[0]!r}, who sits in game {state.game_id} already")
    out.emit(unvalidated.seat_taken(command.player))
    _deal_when_ready(out, chance)


def _deal_when_ready(out: _Emitter, chance: Chance) -> None:
    """R28, R9: once every seat is taken and accepted, the first hand is dealt."""
    state = out.state
    if not state.awaiting and not state.open_seats:
        out.emit(unvalidated.hand_dealt(1, state.players[state.dealer].name, tuple(chance.deck(1))))


def _expire(out: _Emitter, command: ExpireInvitations, chance: Chance) -> None:
    """Invitations not all answered in time cancel the game."""
    state = out.state
    if state.status != "pending":
        raise RuleViolation(f"game {state.game_id} is not waiting for its players: no invitation to expire")
    assert state.expires is not None
    if command.now < command.created_at + timedelta(seconds=state.expires):
        raise RuleViolation(f"game {state.game_id}'s invitations are still open")
    seed, salt = chance.reveal()
    out.emit(unvalidated.game_cancelled(None, "expired", seed, salt))


_TABLE: dict[type, Callable[[_Emitter, Any, Chance], None]] = {
    AcceptSeat: _accept,
    DeclineSeat: _decline,
    JoinGame: _join,
    ExpireInvitations: _expire,
}


def resign_refusal(state: GameState, seat: int) -> RuleViolation | None:
    """Why the player at `seat` may not resign now (R27: at any time during a hand), or None."""
    if not state.in_hand:
        return RuleViolation("the hand is being settled: resign once the next hand is dealt", "R27")
    return None


def showdown_losses(state: GameState, caller: int | None, values: dict[int, int]) -> list[tuple[int, int]]:
    """Who loses how many lives at a showdown called by `caller` (R19; R20 in rules version 2);
    `caller` None: a dead hand nobody knocked in, where the lowest lose (R17b, R19, R19c)."""
    order = list(values)
    if state.rules_version >= 2 and 31 in values.values():  # settled as declared (R20, R21)
        return [(seat, 1) for seat in order if values[seat] != 31]
    lowest = min(values.values())
    losers = [seat for seat in order if values[seat] == lowest]
    if caller is not None and losers == [caller]:
        return [(caller, 2)]  # R19b
    losses = [(seat, 1) for seat in losers if seat != caller]  # R19a, R19c
    if all(_put_out(state, seat, lives) for seat, lives in losses) and len(losses) == len(order):
        return []  # R26 (decided here): a hand never puts every player out
    return losses


def _put_out(state: GameState, seat: int, lives: int) -> bool:
    """Whether losing `lives` lives puts the player at `seat` out of the game (R24, R25)."""
    pennies = state.players[seat].pennies
    return lives >= pennies if state.options.no_dole else lives > pennies


def _showdown(out: _Emitter, caller: int | None, chance: Chance) -> None:
    """R18, R19: reveal and value every active hand; the lowest lose lives (R20 v2: a 31 wins)."""
    state = out.state
    order = state.play_order()
    values = {seat: value_of(state, seat) for seat in order}
    losses = showdown_losses(state, caller, values)
    names = state.players
    out.emit(
        unvalidated.showdown_held(
            caller=None if caller is None else names[caller].name,
            hands={names[seat].name: state.hands[seat] for seat in order},
            values={names[seat].name: values[seat] for seat in order},
            lives_lost={names[seat].name: lives for seat, lives in losses},
        )
    )
    _lose_lives(out, losses)
    _next_hand_or_end(out, chance)


def _lose_lives(out: _Emitter, losses: list[tuple[int, int]]) -> None:
    """R24, R25: pay one penny per life; a life lost on the dole puts the player out."""
    for seat, lives in losses:
        for _ in range(lives):
            player = out.state.players[seat]
            if player.out:
                break
            if player.pennies > 0:
                out.emit(unvalidated.penny_paid(player.name))
                if out.state.options.no_dole and out.state.players[seat].pennies == 0:
                    out.emit(unvalidated.player_eliminated(player.name))
            else:
                out.emit(unvalidated.player_eliminated(player.name))


def _next_hand_or_end(out: _Emitter, chance: Chance) -> None:
    """R26 and R8: the last player standing wins; otherwise the deal passes to the left."""
    state = out.state
    remaining = state.active_seats()
    if len(remaining) == 1:
        seed, salt = chance.reveal()
        winner = state.players[remaining[0]].name
        out.emit(unvalidated.game_won(winner, state.kitty, seed, salt))
        return
    dealer = state.left_of(state.dealer)
    number = state.hand_number + 1
    out.emit(unvalidated.hand_dealt(number, state.players[dealer].name, tuple(chance.deck(number))))


_PLAYER_COMMANDS: dict[type, Callable[[_Emitter, int, Any, Chance], None]] = {
    Draw: _draw,
    Discard: _discard,
    Knock: _knock,
    Declare31: _declare,
    ThrowDown: _throw_down,
    ViewHand: _view,
    Resign: _resign,
}
