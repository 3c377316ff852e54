"""Databases as an older scat left them: migrated to a past revision, with games rows written raw."""

from __future__ import annotations

from sqlalchemy import Engine, text

from scat_core.store.sql.database import alembic_config, make_engine


def engine_at(url: str, revision: str) -> Engine:
    """An engine on `url`, its schema migrated up to `revision` only."""
    from alembic import command

    engine = make_engine(url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), revision)
    return engine


def add_games_row(engine: Engine, game_id: str, *, players: str = "[]", turn: str | None = None) -> None:
    """A running game's row in the games list, as the columns of revision 0007 hold it."""
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO games (game_id, status, players, bots, turn, hand_number, dealer, created_at, "
            "last_activity, winner, head_seq, head_hash, protected) VALUES (:game_id, 'active', :players, '[]', "
            ":turn, 1, NULL, '2026-12-01T00:00:00.000000Z', '2026-12-01T00:00:00.000000Z', NULL, 0, '', false)"
        ), {"game_id": game_id, "players": players, "turn": turn})
