"""What happened, hand by hand: the outcome of each hand and the result of a finished game.

Pure functions over (seq, event) pairs, returning plain typed values; the words are the
front end's. Events may be redacted for a viewer: only names, numbers and the cards the
rules reveal (showdowns, declarations) are read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, assert_never

from scat_core.domain import events as ev

#: The actions a player takes himself (looking at his hand is not one).
ACTIONS = (ev.CardDrawn, ev.CardDiscarded, ev.Knocked, ev.ThirtyOneDeclared, ev.ThrowDownCalled, ev.Resigned)

EndedBy = Literal["showdown", "dead_hand", "declaration", "throw_down", "resignation", "abandoned"]


@dataclass
class HandOutcome:
    """One hand (or the part of it given): who played, how it ended, who lost what."""

    number: int
    dealer: str
    first_seq: int
    last_seq: int
    turns: int = 0  # draws and knocks
    knocked_by: str | None = None
    ended_by: EndedBy | None = None  # None: the hand is still being played
    by: str | None = None  # the declarer, the caller of the throw down, or the knocker at a showdown (or dead hand)
    values: dict[str, int] = field(default_factory=dict)  # at the showdown, or the declarer's 31
    lives_lost: dict[str, int] = field(default_factory=dict)
    out: list[str] = field(default_factory=list)  # eliminated at the end of this hand (R25)
    resigned: list[str] = field(default_factory=list)  # R27, by choice
    out_of_time: list[str] = field(default_factory=list)  # R28: resigned by a claim of his turn


@dataclass(frozen=True)
class Standing:
    """A player's place at the end: the winner first, then by how long he stayed in."""

    place: int
    name: str
    is_bot: bool
    pennies: int
    winner: bool
    out_in_hand: int | None  # the hand he went out in (None: never out)
    resigned: bool
    out_of_time: bool = False  # resigned by a claim of his turn out of move time (R28), not by choice


@dataclass(frozen=True)
class GameResult:
    """A finished game: every hand's outcome, the standings, how long it took, the winner (R26)."""

    game_id: str
    rules_version: int
    winner: str | None  # None: the game was abandoned (GameAbandoned)
    winner_pennies: int  # rules version 2: his own and the kitty (R26)
    kitty: int  # the kitty the winner took
    hands_played: int
    started_at: str
    ended_at: str
    duration_seconds: int
    hands: list[HandOutcome]
    standings: list[Standing]
    seats: list[str]  # the players in seat order


def hand_outcomes(events: Sequence[tuple[int, ev.Event]], hand: int = 0, dealer: str = "") -> list[HandOutcome]:
    """The hands `events` touch, in order; `hand`/`dealer`: the hand under way before the first event."""
    hands: list[HandOutcome] = []
    current: HandOutcome | None = None
    for seq, event in events:
        if isinstance(event, ev.HandDealt):
            current = HandOutcome(event.hand_number, event.dealer, seq, seq)
            hands.append(current)
            continue
        if current is None:
            if isinstance(event, ev.GameCreated):
                continue
            current = HandOutcome(hand, dealer, seq, seq)
            hands.append(current)
        current.last_seq = seq
        _follow(current, event)
    return hands


def _follow(hand: HandOutcome, event: ev.Event) -> None:
    match event:
        case ev.CardDrawn():
            hand.turns += 1
        case ev.Knocked():
            hand.turns += 1
            hand.knocked_by = event.player
        case ev.ThirtyOneDeclared():
            hand.ended_by, hand.by, hand.values = "declaration", event.player, {event.player: 31}
        case ev.ThrowDownCalled():
            hand.ended_by, hand.by = "throw_down", event.player
        case ev.StockRanOut():
            hand.ended_by = "dead_hand"  # R17b
        case ev.ShowdownHeld():
            if hand.ended_by is None:
                hand.ended_by = "showdown"
            hand.by = event.caller
            hand.values = dict(event.values)
            hand.lives_lost = dict(event.lives_lost)
        case ev.PennyPaid():
            if hand.ended_by == "declaration":
                hand.lives_lost[event.player] = 1  # R21: one each
        case ev.PlayerEliminated():
            hand.out.append(event.player)
            if hand.ended_by == "declaration":
                hand.lives_lost[event.player] = 1
        case ev.Resigned():
            (hand.out_of_time if event.cause is not None else hand.resigned).append(event.player)
        case ev.GameWon():
            if hand.ended_by is None:
                hand.ended_by = "resignation"  # the last other player resigned (R27)
        case ev.GameAbandoned():
            if hand.ended_by is None:
                hand.ended_by, hand.by = "abandoned", event.by
        case (
            ev.GameCreated() | ev.SeatAccepted() | ev.SeatTaken() | ev.GameCancelled() | ev.HandDealt()
            | ev.HandViewed() | ev.StockReshuffled() | ev.CardDiscarded()
            | ev.MessageSaid() | ev.MoveSigned()
        ):
            pass  # nothing a hand's summary tells
        case _:
            assert_never(event)


def last_action_index(events: Sequence[ev.Event], player: str) -> int | None:
    """The index of the last action `player` took himself (drawing, discarding, knocking ...), or None."""
    key = player.casefold()
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if isinstance(event, ACTIONS) and event.player.casefold() == key:
            return index
    return None


def _seconds(start: str, end: str) -> int:
    def parse(moment: str) -> datetime:
        return datetime.strptime(moment.rstrip("Z")[:19], "%Y-%m-%dT%H:%M:%S")

    try:
        return max(0, int((parse(end) - parse(start)).total_seconds()))
    except ValueError:
        return 0


def game_result(records: Sequence[tuple[int, str, ev.Event]]) -> GameResult:
    """The result of a finished game from its (seq, recorded_at, event) triples."""
    created, ended = records[0][2], ev.ending_of([event for _, _, event in records])
    assert isinstance(created, ev.GameCreated) and ended is not None, "a whole, finished game"
    won = ended if isinstance(ended, ev.GameWon) else None
    winner = won.winner if won is not None else None
    hands = hand_outcomes([(seq, event) for seq, _, event in records])
    out_in: dict[str, int] = {}
    resigned: set[str] = set()
    timed_out: set[str] = set()
    for hand in hands:
        for name in [*hand.out, *hand.resigned, *hand.out_of_time]:
            out_in[name] = hand.number
        resigned.update(hand.resigned)
        timed_out.update(hand.out_of_time)
    # The pennies each paid (a life lost on the dole pays none, R25).
    paid = {seat.name: 0 for seat in created.players}
    for _, _, event in records:
        if isinstance(event, ev.PennyPaid):
            paid[event.player] += 1
    own = {name: created.options.lives - count for name, count in paid.items()}
    kitty = won.kitty if won is not None else sum(paid.values())
    winner_pennies = own[winner] + (kitty if created.rules_version >= 2 else 0) if winner is not None else 0
    order = sorted(
        created.players,
        key=lambda seat: (seat.name != winner, -out_in.get(seat.name, 10**9), -own[seat.name]),
    )
    standings = [
        Standing(
            place=place,
            name=seat.name,
            is_bot=seat.is_bot,
            pennies=winner_pennies if seat.name == winner else own[seat.name],
            winner=seat.name == winner,
            out_in_hand=out_in.get(seat.name),
            resigned=seat.name in resigned,
            out_of_time=seat.name in timed_out,
        )
        for place, seat in enumerate(order, start=1)
    ]
    started, finished_at = records[0][1], records[-1][1]
    return GameResult(
        game_id=created.game_id,
        rules_version=created.rules_version,
        winner=winner,
        winner_pennies=winner_pennies,
        kitty=kitty,
        hands_played=max((hand.number for hand in hands), default=0),
        started_at=started,
        ended_at=finished_at,
        duration_seconds=_seconds(started, finished_at),
        hands=hands,
        standings=standings,
        seats=[seat.name for seat in created.players],
    )
