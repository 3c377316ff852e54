"""What travels between `scat serve` and `scat --server` besides the service's own values.

Responses are the game service's values (scat_core.service.values, the audit's report, the
stats report), already redacted by the service for the authenticated viewer; here are only
the request bodies, the refusals and the HTTP status of each exit code.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scat_core.domain.options import GameOptions

#: Longest name, card or token a request may carry; bodies are limited by the app too.
SHORT = 200
MAX_SEATS = 16
ERROR_STATUS = {1: 422, 2: 400, 3: 403, 4: 404, 5: 409}  # exit code -> HTTP status
EXIT_CODES = {status: code for code, status in ERROR_STATUS.items()} | {401: 3, 413: 2, 405: 2}


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatIn(_Body):
    """A seat of a new game."""

    name: str = Field(min_length=1, max_length=SHORT)
    is_bot: bool = False


class CreateIn(_Body):
    """`scat new`: seats in order, options; `viewer` is the human whose view comes back."""

    players: list[SeatIn] = Field(max_length=MAX_SEATS)
    options: GameOptions = Field(default_factory=GameOptions)
    dealer: str | None = Field(default=None, max_length=SHORT)
    seed: int | None = None
    deck: list[str] | None = Field(default=None, max_length=60)
    viewer: str | None = Field(default=None, max_length=SHORT)


class MoveIn(_Body):
    """A player's move: who moves, and the draw source or the card where the move needs one."""

    player: str = Field(min_length=1, max_length=SHORT)
    source: Literal["stock", "discard"] | None = None
    card: str | None = Field(default=None, max_length=8)


class ImportIn(_Body):
    """`scat import`: the records of an export, as parsed by the client."""

    records: list[dict[str, Any]]
    strict: bool = False


class GameIdOut(BaseModel):
    """The whole id of the game an abbreviated one names."""

    game_id: str


class ErrorOut(BaseModel):
    """Every refusal: the one line the CLI prints, and the CLI's exit code."""

    error: str
    exit_code: int


class HealthOut(BaseModel):
    """`GET /health`."""

    status: Literal["ok"] = "ok"
    database: str
