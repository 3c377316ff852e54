"""Audit a game from its events alone: rules, invariants and deals.

Every command is re-decided from the state before it: an event that the rules would not
have produced in that place is a failure. When the game is over, its revealed seed is
checked against the commitment in the first event and every deal and reshuffle is
recomputed from it; while it runs, the recorded decks are used (and checked by the
invariants). The stored records (their format, numbering and hash chain) are the store's to
check and decode into the events given here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import assert_never

from . import commands as cmd
from . import events as ev
from .audit_report import AuditReport as AuditReport  # its home before; the verdict alone loads no rules
from .cards import DECK
from .commands import signature_problem
from .decide import decide
from .errors import ScatError
from .evolve import evolve
from .invariants import invariant_problems
from .options import recorded_time
from .shuffle import Chance, SeededChance, seed_commitment
from .state import GameState


class RecordedChance:
    """Chance as recorded in the events themselves, for a game whose seed is still secret."""

    def __init__(self, events: Sequence[ev.Event]) -> None:
        self._decks: dict[int, list[str]] = {}
        self._restocks: dict[tuple[int, int], list[str]] = {}
        self._dealer = ""
        self._players: list[str] = []
        self._seed = ("", "")
        self._commitment = ""
        hand, count = 0, 0
        for event in events:
            if isinstance(event, ev.GameCreated):
                self._dealer, self._players = event.dealer, [p.name for p in event.players]
                self._commitment = event.seed_commitment
            elif isinstance(event, ev.HandDealt):
                hand, count = event.hand_number, 0
                self._decks.setdefault(hand, list(event.deck))
            elif isinstance(event, ev.StockReshuffled):
                count += 1
                self._restocks[(hand, count)] = list(event.stock)
            elif isinstance(event, ev.ENDINGS):
                self._seed = (event.seed, event.seed_salt)

    def deck(self, hand_number: int) -> list[str]:
        """The recorded deck of hand `hand_number`."""
        recorded = self._decks.get(hand_number, [])
        return recorded if len(recorded) == len(DECK) else list(DECK)  # a short deck deals nothing

    def restock(self, hand_number: int, index: int, cards: Sequence[str]) -> list[str]:
        """The recorded new stock, if it is a reordering of `cards`."""
        recorded = self._restocks.get((hand_number, index), [])
        return recorded if sorted(recorded) == sorted(cards) else list(cards)

    def first_dealer(self, players: int) -> int:
        """The seat of the recorded first dealer."""
        return self._players.index(self._dealer) if self._dealer in self._players else 0

    def reveal(self) -> tuple[str, str]:
        """The recorded seed and salt, if any."""
        return self._seed

    def commitment(self) -> str:
        """The recorded commitment to the seed."""
        return self._commitment


def command_for(events: Sequence[ev.Event], index: int) -> cmd.Command | None:
    """The command that must have caused the event at `index` (None: no command does)."""
    event = events[index]
    following = events[index + 1] if index + 1 < len(events) else None
    match event:
        case ev.GameCreated():
            stacked = event.first_deck_stacked and isinstance(following, ev.HandDealt)
            return cmd.CreateGame(
                game_id=event.game_id,
                players=event.players,
                options=event.options,
                dealer=None if event.dealer_drawn else event.dealer,
                first_deck=following.deck if stacked and isinstance(following, ev.HandDealt) else None,
                protected=event.protected,
                rules_version=event.rules_version,
                seed_chosen=event.seed_chosen,
                signed_moves=event.signed_moves,
                signed=event.signed,
                creator=event.creator,
                consent=event.consent,
                open_seats=event.open_seats,
                expires=event.expires,
                rematch_of=event.rematch_of,
                name_looks=event.name_looks,
            )
        case ev.StockReshuffled():  # the start of a draw from the empty stock (R17)
            return cmd.Draw(following.player, following.source) if isinstance(following, ev.CardDrawn) else None
        case ev.HandViewed():
            return cmd.ViewHand(event.player)
        case ev.Knocked():
            return cmd.Knock(event.player)
        case ev.ThirtyOneDeclared():
            return cmd.Declare31(event.player)
        case ev.ThrowDownCalled():
            return cmd.ThrowDown(event.player)
        case ev.Resigned():
            return cmd.Resign(event.player)
        case ev.CardDrawn():
            return cmd.Draw(event.player, event.source)
        case ev.CardDiscarded():
            return cmd.Discard(event.player, event.card)
        case ev.GameAbandoned():
            return cmd.AbandonGame(event.by)
        case ev.MessageSaid():
            return cmd.Say(event.player, event.text)
        case ev.SeatAccepted():
            return cmd.AcceptSeat(event.player)
        case ev.SeatTaken():
            return cmd.JoinGame(event.player)
        case ev.GameCancelled():  # expired invitations are re-decided from their times (claim_for)
            return cmd.DeclineSeat(event.by) if event.by is not None else None
        case (
            ev.HandDealt() | ev.StockRanOut() | ev.ShowdownHeld() | ev.PennyPaid() | ev.PlayerEliminated()
            | ev.GameWon()
        ):
            return None  # consequences decided with a command, never a command's first event
        case ev.MoveSigned():
            return None  # a signature precedes its move (audit_events pairs them: commands.signature_problem)
        case _:
            assert_never(event)


def _choose_chance(events: Sequence[ev.Event]) -> tuple[Chance, bool, str | None]:
    created = events[0] if isinstance(events[0], ev.GameCreated) else None
    won = ev.ending_of(events)
    if created is None or won is None:
        return RecordedChance(events), False, None
    if seed_commitment(won.seed, won.seed_salt) != created.seed_commitment:
        return RecordedChance(events), False, "the revealed seed does not match the commitment"
    return SeededChance(won.seed, won.seed_salt), True, None


def claim_for(
    events: Sequence[ev.Event], index: int, state: GameState, times: Sequence[str] | None
) -> cmd.ClaimTime | cmd.ExpireInvitations | None:
    """The claim (R28) that must have caused a resignation for lack of time at `index`, with its
    recorded time and that of the event that began the late player's turn (or the expiry of a
    game's invitations, with its time and its creation's); None for any other event."""
    event = events[index]
    if isinstance(event, ev.GameCancelled) and event.reason == "expired" and times is not None:
        return cmd.ExpireInvitations(recorded_time(times[index]), recorded_time(times[0]))
    if not isinstance(event, ev.Resigned) or event.cause is None or times is None:
        return None
    began = max(state.turn_began, 1) - 1
    return cmd.ClaimTime(event.claimed_by, recorded_time(times[index]), recorded_time(times[began]))


def audit_events(game_id: str, events: Sequence[ev.Event], times: Sequence[str] | None = None) -> AuditReport:
    """Re-decide every command from the state before it, checking invariants after each event.

    `times` are the events' recorded times (recorded_at): a claim (R28) is re-decided from them.
    Without them a claim cannot have been made, and fails.
    """
    if not events:
        return AuditReport(game_id, False, 0, None, ["the game has no events"])
    created = events[0]
    if not isinstance(created, ev.GameCreated) or created.game_id != game_id:
        return _bad(game_id, events, 1, f"event 1 does not create game {game_id}")
    chance, seeded, seed_problem = _choose_chance(events)
    if seed_problem:
        return AuditReport(game_id, False, len(events), len(events), [seed_problem])
    state, index = GameState(), 0
    signed: ev.MoveSigned | None = None  # the signature just read, of the command whose events follow
    while index < len(events):
        seq = index + 1
        current = events[index]
        if isinstance(current, ev.MoveSigned):
            if signed is not None or not state.signed_moves:
                return _bad(game_id, events, seq, f"event {seq} signs a move where no signed move can be")
            signed = current
            state = evolve(state, current)
            index += 1
            continue
        try:
            command = claim_for(events, index, state, times) or command_for(events, index)
        except ValueError as error:
            return _bad(game_id, events, seq, f"event {seq} ({events[index].type}) has no readable time: {error}")
        if command is None:
            return _bad(
                game_id,
                events,
                seq,
                f"event {seq} ({events[index].type}) is not the effect of any command here",
            )
        unsigned = signature_problem(state, command, signed, seq)
        if unsigned is not None:
            return _bad(game_id, events, seq, unsigned)
        signed = None
        try:
            expected = decide(state, command, chance)
        except (ValueError, LookupError, TypeError) as error:  # recorded chance no deal can use
            return _bad(game_id, events, seq, f"event {seq} ({events[index].type}) cannot be played: {error!r}")
        except ScatError as error:
            return _bad(
                game_id,
                events,
                seq,
                f"event {seq} ({events[index].type}) breaks the rules: {error}",
            )
        if not expected:
            return _bad(
                game_id,
                events,
                seq,
                f"event {seq} ({events[index].type}) should not have been recorded",
            )
        for offset, wanted in enumerate(expected):
            at = index + offset
            if at >= len(events):
                return _bad(
                    game_id,
                    events,
                    at + 1,
                    f"the game stops before event {at + 1} ({wanted.type}), which the rules require",
                )
            if events[at] != wanted:
                return _bad(game_id, events, at + 1, _mismatch(at + 1, events[at], wanted))
            try:
                state = evolve(state, events[at])
            except (ValueError, LookupError, TypeError) as error:  # a forged event no rule makes
                return _bad(game_id, events, at + 1, f"event {at + 1} ({events[at].type}) cannot be played: {error!r}")
            problems = invariant_problems(state)
            if problems:
                return _bad(game_id, events, at + 1, f"after event {at + 1}: " + "; ".join(problems))
        index += len(expected)
    if signed is not None:
        return _bad(game_id, events, len(events), f"event {len(events)} signs a move that was never made")
    return AuditReport(game_id, True, len(events), None, [], seeded, created.first_deck_stacked, created.seed_chosen)


def _mismatch(seq: int, recorded: ev.Event, wanted: ev.Event) -> str:
    """Why a recorded event is not the one the rules produce, naming fields, never cards."""
    if recorded.type != wanted.type:
        return f"event {seq} is {recorded.type} where the rules produce {wanted.type}"
    theirs, ours = recorded.model_dump(), wanted.model_dump()
    fields = [name for name in {**ours, **theirs} if theirs.get(name) != ours.get(name)]
    named = fields[0] if len(fields) == 1 else ", ".join(fields[:-1]) + " and " + fields[-1]
    verb = "differs" if len(fields) == 1 else "differ"
    return f"event {seq} ({recorded.type}) is not what the rules produce here: its {named} {verb}"


def _bad(game_id: str, events: Sequence[ev.Event], seq: int, problem: str) -> AuditReport:
    return AuditReport(game_id, False, len(events), seq, [problem])
