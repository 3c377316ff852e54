"""Tokens the CLI remembers: from `scat new`, or given once with --token, so `--as NAME` is enough.

One JSON file in the user's config directory, readable by its user only (0600), keyed by
where the game lives (the server URL, or the database URL), the game and the player.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from scat_cli.private_files import write_private_json
from scat_cli.settings import state


def _path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("scat")) / "tokens.json"


def where(ctx: typer.Context) -> str:
    """Where the games live: the server URL, or the database URL."""
    given = state(ctx)
    if given.server:
        return given.server
    from scat_core.store.sql.database import resolve_url

    return resolve_url(given.db_url)


def _key(ctx: typer.Context, game: str, player: str) -> str:
    return "\t".join((where(ctx), game, player.casefold()))


def _load(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def token_for(ctx: typer.Context, game: str, player: str | None, given: str | None) -> str | None:
    """The token to use: the one given, else the one remembered for this game and player."""
    if given or player is None:
        return given or None
    return _load(_path()).get(_key(ctx, game, player))


def tokens_of(ctx: typer.Context, player: str) -> dict[str, str]:
    """Every token remembered for `player` here (this server or database): game -> token."""
    here, wanted = where(ctx), player.casefold()
    tokens = {}
    for key, token in _load(_path()).items():
        parts = key.split("\t")
        if len(parts) == 3 and parts[0] == here and parts[2] == wanted:
            tokens[parts[1]] = token
    return tokens


def remember(ctx: typer.Context, game: str, tokens: dict[str, str]) -> None:
    """Keep `tokens` (player -> token) of `game`; the file is created readable by its user only."""
    if not tokens:
        return
    path = _path()
    known = _load(path)
    changed = {_key(ctx, game, player): token for player, token in tokens.items()}
    if all(known.get(key) == token for key, token in changed.items()):
        return
    known.update(changed)
    try:
        write_private_json(path, known)
    except OSError as error:  # the command itself succeeded: say so, and go on
        typer.echo(f"scat: note: could not remember the token in {path}: {error.strerror}", err=True)
