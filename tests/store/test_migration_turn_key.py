"""Migration 0008 on a database with games: each row's turn_key is its player to act's name
casefolded (as `--as` matches names), so `games --waiting-for` finds the games made before it."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from scat_core.store.sql.database import alembic_config, ensure_schema
from tests.support.old_schema import add_games_row, engine_at


@pytest.mark.parametrize("database", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_the_upgrade_fills_turn_key_from_turn_and_a_downgrade_drops_it(
    database: str, request: pytest.FixtureRequest,
) -> None:
    from alembic import command

    engine = engine_at(str(request.getfixturevalue(f"{database}_url")), "0007")
    for game_id, turn in [("a000000001", "Straße"), ("a000000002", "BOB"), ("a000000003", None)]:
        add_games_row(engine, game_id, turn=turn)
    ensure_schema(engine)
    with engine.connect() as conn:
        keys = dict(conn.execute(text("SELECT game_id, turn_key FROM games ORDER BY game_id")).all())
        deadlines = {row[0] for row in conn.execute(text("SELECT move_deadline FROM games"))}
    assert keys == {"a000000001": "strasse", "a000000002": "bob", "a000000003": None}
    assert deadlines == {None}  # told with each game's next event
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0007")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM games")).scalar_one() == 3
    engine.dispose()
