"""The body the `--server` client sends to `POST /games/{id}/moves` for a command: built from the
command's class (its verb) and fields, so a new move needs nothing here (move_wire.py reads it)."""

# Imports inside functions: start-up time; `scat serve --help` and the CLI load no FastAPI.
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scat_core.domain.commands import ClaimTime, PlayerCommand, TableCommand


def move_body(command: PlayerCommand | ClaimTime | TableCommand) -> dict[str, Any]:
    """The body of `POST /games/{id}/moves` that sends `command` (without its signature): its
    `move` (the class's verb) and its fields; a claim names its claimer `player` (none: scat's
    own claim) and leaves its times to the server (move_wire.py reads it)."""
    from dataclasses import fields

    from scat_core.domain.commands import ClaimTime

    if isinstance(command, ClaimTime):
        return {"move": command.verb, "player": command.claimer}
    return {"move": command.verb, **{part.name: getattr(command, part.name) for part in fields(command)}}
