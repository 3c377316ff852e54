"""The games list's values: a row of the `games` read model, the summary an append writes, a new game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


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
    move_deadline: str | None = None


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


#: One whole exported history to add (records, its games-row summary, its snapshot or None).
NewGame = tuple[Sequence[Mapping[str, Any]], GameSummary, "str | None"]
