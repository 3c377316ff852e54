"""The seats of each listed game (game_seats): filled by migration 0011 from the games rows made
before it, written with the row of every new game, created or imported, so a server's "your
games first" (cli.md) finds a player's games through an index."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.service import GameService
from scat_core.store.memory import MemoryStore
from scat_core.store.sql.database import alembic_config, ensure_schema
from tests.support.old_schema import add_games_row, engine_at

DATABASES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.mark.parametrize("database", DATABASES)
def test_the_upgrade_seats_the_players_of_every_game_and_a_downgrade_drops_them(
    database: str, request: pytest.FixtureRequest,
) -> None:
    from alembic import command

    engine = engine_at(str(request.getfixturevalue(f"{database}_url")), "0010")
    for game_id, players in [("a000000001", ["Zoë", "bob"]), ("a000000002", ["ann", "ZOË", "cy"])]:
        add_games_row(engine, game_id, players=json.dumps(players))
    ensure_schema(engine)
    with engine.connect() as conn:
        seats = conn.execute(text("SELECT game_id, seat, name_key FROM game_seats ORDER BY game_id, seat")).all()
    assert [tuple(row) for row in seats] == [("a000000001", 0, "zoë"), ("a000000001", 1, "bob"),
                                             ("a000000002", 0, "ann"), ("a000000002", 1, "zoë"),
                                             ("a000000002", 2, "cy")]
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0010")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM games")).scalar_one() == 2
        assert "game_seats" not in {name for (name,) in conn.execute(text(
            "SELECT name FROM sqlite_master WHERE type = 'table'" if database == "sqlite"
            else "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))}
    engine.dispose()


@pytest.mark.parametrize("database", DATABASES)
def test_an_imported_game_is_seated_like_a_created_one(database: str, request: pytest.FixtureRequest) -> None:
    source = GameService(MemoryStore())
    bots = [ev.PlayerSeat(name="Ann", is_bot=True), ev.PlayerSeat(name="bob", is_bot=True)]
    records = source.archive.export_records(source.playing.create_game(bots, seed=4).game_id)
    target = open_database(str(request.getfixturevalue(f"{database}_url")))
    assert target.import_records(records).ok
    imported = str(records[0]["game_id"])
    created = target.new_game([ev.PlayerSeat(name="cy"), ev.PlayerSeat(name="dan")]).game_id
    with target.store.engine.connect() as conn:
        seated = conn.execute(text("SELECT game_id, name_key FROM game_seats ORDER BY game_id, seat")).all()
    assert sorted(tuple(row) for row in seated) == sorted([(imported, "ann"), (imported, "bob"),
                                                           (created, "cy"), (created, "dan")])
    assert [row.game_id for row in target.game_list_for(first_for="ANN")] == [imported, created]
    target.store.engine.dispose()
