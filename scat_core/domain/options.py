"""The options a game is created with (R4, R5, R7, R15, R15b, R23, R25), and move time (R28).

Move time is stated here once: durations as typed (`1h30m`), the recorded times of events,
and when a turn runs out.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

_UNITS = {"d": 86_400, "h": 3_600, "m": 60, "s": 1}
_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")
#: The shortest and longest move time a game may have (R28): a second, and a year of 366 days.
MOVE_TIME_RANGE = (1, 366 * 86_400)
#: How recorded_at is written by the store: UTC, microseconds, a Z.
RECORDED_AT_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def parse_duration(text: str) -> int:
    """Seconds in a move time like `90s`, `30m`, `36h`, `2d` or `1d12h`, from 1s to 366d;
    ValueError otherwise."""
    match = _DURATION.fullmatch(text.strip().lower())
    if not text.strip() or match is None or not any(match.groups()):
        raise ValueError(f"not a duration like 90s, 30m, 36h, 2d or 1d12h: {text!r}")
    seconds = sum(int(amount) * size for amount, size in zip(match.groups(), _UNITS.values(), strict=True) if amount)
    low, high = MOVE_TIME_RANGE
    if not low <= seconds <= high:
        raise ValueError(f"{text.strip()!r} is not between 1s and 366d")
    return seconds


def format_duration(seconds: int) -> str:
    """`seconds` as `parse_duration` reads it, largest units first (`1d12h`, `90s` as `1m30s`)."""
    parts, left = [], max(0, int(seconds))
    for unit, size in _UNITS.items():
        if left >= size:
            parts.append(f"{left // size}{unit}")
            left %= size
    return "".join(parts) or "0s"


def recorded_time(text: str) -> datetime:
    """A recorded_at string as an aware UTC datetime; ValueError if it is not one."""
    return datetime.strptime(text, RECORDED_AT_FORMAT).replace(tzinfo=UTC)


def recorded_text(moment: datetime) -> str:
    """An aware datetime as recorded_at text."""
    return moment.astimezone(UTC).strftime(RECORDED_AT_FORMAT)


def deadline(turn_began_at: datetime, move_time: int) -> datetime:
    """When a turn that began at `turn_began_at` runs out (R28)."""
    return turn_began_at + timedelta(seconds=move_time)


class GameOptions(BaseModel):
    """Rule options, recorded in the game's first event so a replay uses the game's own rules.

    An on/off option is a `bool` field, off by default (`describe` names those that are on).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    lives: int = Field(default=3, ge=1, le=9, description="R7: pennies each player starts with")
    three_of_a_kind: bool = Field(default=False, description="R4: three of a rank are worth 30")
    straight_flush: bool = Field(default=False, description="R5: a suited run is worth 30 (A-K-Q 31)")
    min_knock: int | None = Field(default=None, ge=1, le=31, description="R15: least value to knock")
    no_first_round_knock: bool = Field(default=False, description="R15b: no knock in the first round")
    throw_down: bool = Field(default=False, description="R23: throw down allowed")
    no_dole: bool = Field(default=False, description="R25: out as soon as the last penny is paid")
    move_time: int | None = Field(default=None, ge=MOVE_TIME_RANGE[0], le=MOVE_TIME_RANGE[1],
                                   description="R28: seconds for each turn")

    @model_serializer(mode="wrap")
    def _without_move_time_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
        """No move time is left out, so games without one serialize (and hash) as before R28."""
        data = handler(self)
        if isinstance(data, dict) and data.get("move_time", 0) is None:
            del data["move_time"]
        return data

    @property
    def values_beyond_suits(self) -> bool:
        """Whether a hand may be worth more than its point suit (R4 or R5 enabled): see `cards.hand_value`."""
        return self.three_of_a_kind or self.straight_flush

    def describe(self) -> list[str]:
        """The options that differ from the defaults, in CLI spelling."""
        parts = [] if self.lives == 3 else [f"lives {self.lives}"]
        parts += [
            name.replace("_", "-")
            for name, field in type(self).model_fields.items()
            if field.annotation is bool and getattr(self, name)  # every on/off option, in field order
        ]
        if self.min_knock is not None:
            parts.append(f"min-knock {self.min_knock}")
        if self.move_time is not None:
            parts.append(f"move-time {format_duration(self.move_time)}")
        return parts
