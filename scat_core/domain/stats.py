"""The statistics projection's pure part: one game's events folded into one line per player.

A player is his name, matched ignoring case (`player_key`). A hand counts once it has ended
(a showdown or a declared 31), so a game in progress contributes only its finished hands; a
game counts as played (and won) once it is finished. Imported games are events like any
other. The fold reads only the event types in `HANDLED_TYPES`; any other type (the card
moves, or a type newer than this code) is ignored explicitly, never an error.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from . import events as ev
from .speed_tricks import replaced

T = TypeVar("T")


def changed(value: T, **changes: Any) -> T:
    """A copy of a frozen line with `changes` (a fast `dataclasses.replace`; `value` is untouched)."""
    return replaced(value, changes)


def player_key(name: str) -> str:
    """A player's identity: his name NFKC-normalised and casefolded (`Ann` is `ann`)."""
    return unicodedata.normalize("NFKC", name).casefold()


#: The counters of a player's line in one game (stats_players columns besides the keys).
STATS_COUNTERS = (
    "hands_played", "hands_lost", "lives_lost", "knocks", "knocks_saved", "knocks_lost_one",
    "knocks_lost_two", "throw_downs", "thirty_ones", "showdowns", "showdown_total",
)


@dataclass(frozen=True)
class PlayerLine:
    """One player's figures in one game."""

    seat: int
    key: str
    name: str
    out: bool = False
    resigned: bool = False  # by choice (R27)
    timed_out: bool = False  # resigned by a claim of his turn out of move time (R28)
    is_bot: bool = False
    out_in_hand: int = 0  # the hand he went out in (R25, R27, R28); 0 while in: the placing of ratings
    hands_played: int = 0
    hands_lost: int = 0
    lives_lost: int = 0
    knocks: int = 0
    knocks_saved: int = 0
    knocks_lost_one: int = 0
    knocks_lost_two: int = 0
    throw_downs: int = 0
    thirty_ones: int = 0
    showdowns: int = 0
    showdown_total: int = 0


@dataclass(frozen=True)
class GameLine:
    """One game's figures: its finished hands, its end, and one line per seated player."""

    game_id: str
    last_seq: int = 0  # the last event of the game folded in (the per-game checkpoint)
    finished: bool = False
    winner_key: str | None = None
    cancelled: bool = False  # cancelled before its first deal (R28): counted nowhere
    ended_at: str = ""  # when it was won (GameWon's recorded time): the order ratings take games in
    hands: int = 0  # hands that have ended
    knocker_key: str | None = None  # who knocked in the hand under way
    players: tuple[PlayerLine, ...] = ()

    def with_player(self, key: str, **changes: Any) -> GameLine:
        """A copy with the player whose key is `key` changed (unknown keys change nothing)."""
        players = tuple(changed(p, **changes) if p.key == key else p for p in self.players)
        return changed(self, players=players)


Handler = Callable[[GameLine, Any], GameLine]


def _created(line: GameLine, event: ev.GameCreated) -> GameLine:
    players = tuple(
        PlayerLine(seat=seat, key=player_key(p.name), name=p.name, is_bot=p.is_bot)
        for seat, p in enumerate(event.players, start=1)
    )
    return changed(line, players=players)


def _seat_taken(line: GameLine, event: ev.SeatTaken) -> GameLine:
    """An open seat taken (R28): he sits after the others."""
    joined = PlayerLine(seat=len(line.players) + 1, key=player_key(event.player), name=event.player)
    return changed(line, players=(*line.players, joined))


def _knocked(line: GameLine, event: ev.Knocked) -> GameLine:
    return changed(line, knocker_key=player_key(event.player))  # booked when the hand ends


def _thrown_down(line: GameLine, event: ev.ThrowDownCalled) -> GameLine:
    key = player_key(event.player)
    return line.with_player(key, throw_downs=_get(line, key).throw_downs + 1)


def _showdown(line: GameLine, event: ev.ShowdownHeld) -> GameLine:
    values = {player_key(name): value for name, value in event.values.items()}
    lost = {player_key(name): lives for name, lives in event.lives_lost.items()}
    return _hand_ended(line, list(values), lost, values)


def _declared(line: GameLine, event: ev.ThirtyOneDeclared) -> GameLine:
    declarer = player_key(event.player)
    line = line.with_player(declarer, thirty_ones=_get(line, declarer).thirty_ones + 1)
    active = [p.key for p in line.players if not p.out]
    return _hand_ended(line, active, {key: 1 for key in active if key != declarer}, {})  # R21


def _hand_ended(line: GameLine, taking_part: list[str], lost: dict[str, int], values: dict[str, int]) -> GameLine:
    """Book a finished hand: who took part, who lost lives (R19, R21), the knock's outcome."""
    players = []
    for p in line.players:
        if p.key in taking_part:
            lives = lost.get(p.key, 0)
            changes: dict[str, Any] = {
                "hands_played": p.hands_played + 1,
                "hands_lost": p.hands_lost + (lives > 0),
                "lives_lost": p.lives_lost + lives,
            }
            if p.key in values:
                changes.update(showdowns=p.showdowns + 1, showdown_total=p.showdown_total + values[p.key])
            if p.key == line.knocker_key:
                outcome = ("knocks_saved", "knocks_lost_one", "knocks_lost_two")[min(lives, 2)]
                changes.update({"knocks": p.knocks + 1, outcome: getattr(p, outcome) + 1})
            p = changed(p, **changes)
        players.append(p)
    return changed(line, players=tuple(players), hands=line.hands + 1, knocker_key=None)


def _eliminated(line: GameLine, event: ev.PlayerEliminated) -> GameLine:
    return line.with_player(player_key(event.player), out=True, out_in_hand=line.hands)  # the hand just ended


def _resigned(line: GameLine, event: ev.Resigned) -> GameLine:
    """R27, R28: out at once, pennies kept; his game counts as played, not won; a claim's is a timeout. A knock of his
    stands for the others but is not booked for him: he takes no part in that showdown.

    A resignation that leaves one player ends the hand under way, as `show` counts it: a hand
    played by the two (no life lost, no knock booked: nobody showed his hand)."""
    key = player_key(event.player)
    taking_part = [p.key for p in line.players if not p.out]
    timed_out = event.cause is not None  # R28: out of time, not resigned by choice
    line = line.with_player(key, out=True, resigned=not timed_out, timed_out=timed_out,
                            out_in_hand=line.hands + 1)  # during the hand under way
    if key in taking_part and len(taking_part) == 2:
        return _hand_ended(changed(line, knocker_key=None), taking_part, {}, {})
    return line


def _won(line: GameLine, event: ev.GameWon) -> GameLine:
    return changed(line, finished=True, winner_key=player_key(event.winner), knocker_key=None)


def _abandoned(line: GameLine, event: ev.GameAbandoned) -> GameLine:
    """Given up without a winner: played by each of its players, won by none."""
    return changed(line, finished=True, winner_key=None, knocker_key=None)


def _cancelled(line: GameLine, event: ev.GameCancelled) -> GameLine:
    """Never dealt: no player played it, nobody won it, no figure counts it."""
    return changed(line, cancelled=True, players=(), knocker_key=None)


def _get(line: GameLine, key: str) -> PlayerLine:
    for player in line.players:
        if player.key == key:
            return player
    raise ValueError(f"game {line.game_id}: no player {key!r} seated")


#: Event type -> how it changes a game's line. A new event type that matters is one entry
#: here; every type not listed is ignored (and the store does not even read it).
_HANDLERS: dict[str, Handler] = {
    "GameCreated": _created,
    "SeatTaken": _seat_taken,
    "Knocked": _knocked,
    "ThrowDownCalled": _thrown_down,
    "ShowdownHeld": _showdown,
    "ThirtyOneDeclared": _declared,
    "PlayerEliminated": _eliminated,
    "Resigned": _resigned,
    "GameWon": _won,
    "GameAbandoned": _abandoned,
    "GameCancelled": _cancelled,
}
HANDLED_TYPES: frozenset[str] = frozenset(_HANDLERS)


def evolve_line(line: GameLine, event: ev.Event) -> GameLine:
    """The game's line after `event`; an event type the projection does not use changes nothing."""
    handler = _HANDLERS.get(event.type)
    return line if handler is None else handler(line, event)


def fold_line(game_id: str, events: Iterable[ev.Event], line: GameLine | None = None) -> GameLine:
    """The line that `events` of game `game_id` build, from `line` (an empty one by default)."""
    current = GameLine(game_id) if line is None else line
    for event in events:
        current = evolve_line(current, event)
    return current
