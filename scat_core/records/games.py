"""The games list's values: a row of the `games` read model, the summary an append writes, a new game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scat_core.domain.errors import BadInput


@dataclass(frozen=True)
class GameSummary:
    """What the games read model needs to know after an append (computed by the caller)."""

    status: str
    players: tuple[str, ...]
    turn: str | None = None
    hand_number: int = 1
    dealer: str | None = None
    winner: str | None = None
    protected: bool = False
    bots: tuple[str, ...] = field(default=())
    #: When the player to act runs out of move time (R28), as recorded_at text; None without one.
    #: In a game waiting for its players: when its invitations expire.
    move_deadline: str | None = None
    #: The seated humans a pending game waits for to accept (R28), and its seats not taken yet.
    awaiting: tuple[str, ...] = ()
    open_seats: int = 0
    #: The game this one is the rematch of (one rematch a game).
    rematch_of: str | None = None
    #: The finished game's result, as the service encodes it (JSON), given by the append that ends
    #: the game; None keeps the row's (an append after the end: a message).
    result: str | None = None
    #: What the game was created with that its lists tell, as the service encodes it (JSON), given by
    #: the append that creates the game (or adds it whole); None keeps the row's.
    creation: str | None = None


@dataclass(frozen=True)
class GameRow:
    """One row of the games read model."""

    game_id: str
    status: str
    players: tuple[str, ...]
    bots: tuple[str, ...]
    turn: str | None
    hand_number: int
    dealer: str | None
    created_at: str
    last_activity: str
    winner: str | None
    head_seq: int
    head_hash: str
    protected: bool
    move_deadline: str | None = None
    awaiting: tuple[str, ...] = ()
    open_seats: int = 0
    rematch_of: str | None = None
    #: The finished game's result (GameSummary.result), None before its end. Only a game's own row
    #: (`get_game`) is sure to carry it: a list may leave it out (the SQL store's lists do).
    result: str | None = None
    #: What the game was created with (GameSummary.creation); None for a game added before it was kept.
    creation: str | None = None


@dataclass(frozen=True)
class ListedAfter:
    """Where a page of the games list ended: its last row's `last_activity` and `game_id` (the list's
    order, newest activity first, then by id), and with a `first_for` list, whether that row was among
    the player's own games (`seated`: the part listed first) or the others."""

    last_activity: str
    game_id: str
    seated: bool = False

    def text(self) -> str:
        """The cursor as a client sends it back (`after`): opaque to it."""
        return f"{int(self.seated)}~{self.last_activity}~{self.game_id}"

    @classmethod
    def parse(cls, text: str) -> ListedAfter:
        """The cursor `text` gives back; BadInput for one this list never gave."""
        parts = text.split("~")
        if len(parts) != 3 or parts[0] not in ("0", "1") or not parts[1] or not parts[2]:
            raise BadInput("the games list's cursor is not one it gave: ask for the first page again")
        return cls(last_activity=parts[1], game_id=parts[2], seated=parts[0] == "1")


#: One whole exported history to add (records, its games-row summary, its snapshot or None).
NewGame = tuple[Sequence[Mapping[str, Any]], GameSummary, "str | None"]


def sits_and_waits(rows: list[GameRow], player: str) -> list[GameRow]:
    """Of `rows`, those of finished (or cancelled) games `player` sat in, of running ones where he is
    to act, and of pending ones that await his acceptance (an invitation, R28)."""
    wanted = player.casefold()

    def waits(row: GameRow) -> bool:
        if row.status in ("finished", "cancelled"):
            return any(name.casefold() == wanted for name in row.players)
        if row.status == "pending":
            return any(name.casefold() == wanted for name in row.awaiting)
        return row.turn is not None and row.turn.casefold() == wanted

    return [row for row in rows if waits(row)]
