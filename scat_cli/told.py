"""What `scat wait --any --new` has told each player, kept so that a loop of waits tells each thing once.

One JSON file beside the tokens (`told.json` in the user's config directory), keyed by where
the games live (the server URL, or the database URL) and the player.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from scat_cli.private_files import write_private_json

if TYPE_CHECKING:
    from scat_core.service.values import Told


def _path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("scat")) / "told.json"


def _key(ctx: typer.Context, player: str) -> str:
    from scat_cli.remembered import where

    return f"{where(ctx)}\t{player.casefold()}"


def _load(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def told_before(ctx: typer.Context, player: str) -> Told | None:
    """What earlier waits told `player` here, or None (nothing yet, or the file is unreadable)."""
    from pydantic import ValidationError

    from scat_core.service.values import Told

    kept = _load(_path()).get(_key(ctx, player))
    try:
        return None if kept is None else Told.model_validate(kept)
    except ValidationError:
        return None


def keep_told(ctx: typer.Context, player: str, told: Told) -> None:
    """Keep `told` for `player` here (the file readable by its user only); a failure is a note."""
    path = _path()
    known = _load(path)
    known[_key(ctx, player)] = told.model_dump()
    try:
        write_private_json(path, known)
    except OSError as error:
        typer.echo(f"scat: note: could not remember what was told in {path}: {error.strerror}", err=True)
