"""Times as a person reads them: the user's local time with its offset (`TZ`, else `timezone` in
config.toml, else the system's zone). JSON keeps the recorded UTC times (ISO 8601); only human
output is turned here."""

from __future__ import annotations

import os
from datetime import UTC, datetime, tzinfo
from functools import cache

from scat_cli.config_file import config_path, read_config, zone_problem


def zone() -> tzinfo | None:
    """The zone times are shown in: `TZ` (an IANA name), else config.toml's `timezone`, else None (the
    system's local zone). A zone that cannot be used falls back to the next (a `TZ` that is not an
    IANA name is left to the system, as other programs leave it). Worked out once per setting."""
    path = config_path()
    try:
        changed = path.stat().st_mtime_ns
    except OSError:
        changed = 0
    return _zone(os.environ.get("TZ", "").lstrip(":"), str(path), changed)


@cache
def _zone(environment: str, path: str, changed: int) -> tzinfo | None:
    from zoneinfo import ZoneInfo

    for name in (environment, _configured(path) if changed else ""):
        if name and zone_problem(name) is None:
            return ZoneInfo(name.strip())
    return None


def _configured(path: str) -> str:
    from pathlib import Path

    from scat_core.domain.errors import BadInput

    try:
        return read_config(Path(path)).get("timezone", "")
    except BadInput:  # the command itself says what is wrong with the file
        return ""


def local(moment: datetime) -> datetime:
    """`moment` (aware) in the zone times are shown in."""
    return moment.astimezone(zone())


def local_text(recorded: str, seconds: bool = True) -> str:
    """A recorded UTC time (`2026-12-05T07:46:19.123456Z`) as local time with its offset,
    `2026-12-05 08:46:19 +01:00`; the text itself when it is no such time."""
    try:
        moment = datetime.strptime(recorded.rstrip("Z")[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return recorded
    shown = local(moment)
    offset = shown.strftime("%z")
    return f"{shown:%Y-%m-%d %H:%M{':%S' if seconds else ''}} {offset[:3]}:{offset[3:]}"
