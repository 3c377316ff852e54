"""What is kept outside the log: a running game's seed (and salt), and players' token hashes."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.engine import Connection

from scat_core.records.stored_log import GameSecret
from scat_core.store.sql import tables as t
from scat_core.store.sql.driver_sql import fetch_all, named


def put_secret(conn: Connection, game_id: str, seed: str, salt: str) -> None:
    """Keep the seed of a running game (and its commitment salt) outside the log."""
    conn.execute(t.game_secrets.insert().values(game_id=game_id, seed=seed, salt=salt))


def get_secret(conn: Connection, game_id: str) -> GameSecret | None:
    """The kept seed and salt of a game, or None (never stored, or already revealed)."""
    row = conn.execute(
        select(t.game_secrets.c.seed, t.game_secrets.c.salt).where(t.game_secrets.c.game_id == game_id)
    ).first()
    return None if row is None else GameSecret(seed=row[0], salt=row[1])


def secret_game_ids(conn: Connection, among: Sequence[str] | None = None) -> set[str]:
    """The ids of the games whose seed is kept here (the running games made here), only `among` these if given."""
    query = select(t.game_secrets.c.game_id)
    if among is not None:
        query = query.where(t.game_secrets.c.game_id.in_(list(among)))
    return {str(row[0]) for row in conn.execute(query)}


def delete_secret(conn: Connection, game_id: str) -> None:
    """Forget a game's kept seed (once the log reveals it)."""
    conn.execute(t.game_secrets.delete().where(t.game_secrets.c.game_id == game_id))


def put_token_hash(conn: Connection, game_id: str, player: str, token_hash: str) -> None:
    """Store the hash of a player's token for a protected game."""
    conn.execute(t.player_tokens.insert().values(game_id=game_id, player=player, token_hash=token_hash))


#: A move's token check (every move of a protected game): on the driver's own cursor (driver_sql.py).
_TOKEN_HASH = "SELECT token_hash FROM player_tokens WHERE game_id = %(game_id)s AND player = %(player)s"


def get_token_hash(conn: Connection, game_id: str, player: str) -> str | None:
    """The stored token hash of a player, or None."""
    rows = fetch_all(conn, named(conn, _TOKEN_HASH), {"game_id": game_id, "player": player})
    return str(rows[0][0]) if rows else None
