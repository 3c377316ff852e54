"""Move time (R28): durations as typed, recorded times, and when a turn runs out."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

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
