"""On PostgreSQL a game's events, snapshot, games row and seats are hash-partitioned by game id
(migrations 0016 and 0017, #42): the upgrade moves every row of a database in play into the
partitions, keeping each event's position and the sequence after them, a rematch made before
stays the one rematch of its game, and a downgrade puts them back in plain tables; `scat db
check` knows the TRUNCATE trigger of each partition and `db upgrade` restores it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import Engine, text

from scat_cli.wiring import open_database
from scat_core.domain.commands import Resign
from scat_core.store.sql.database import alembic_config
from scat_core.store.sql.schema import PARTITIONED, partition_names
from scat_core.store.sql.triggers import partitions_of, restore_triggers, trigger_problems
from tests.support.databases import migrated
from tests.support.services import HUMAN_AND_BOT, a_game_in_play, next_move

pytestmark = pytest.mark.postgres


def _positions(engine: Engine) -> list[tuple[str, int, int]]:
    with engine.connect() as conn:
        rows: list[Any] = list(conn.execute(text("SELECT game_id, seq, position FROM events ORDER BY position")))
    return [(str(game), int(seq), int(position)) for game, seq, position in rows]


def _partitions(engine: Engine) -> dict[str, list[str]]:
    with engine.connect() as conn:
        return {table: partitions_of(conn, table) for table in PARTITIONED}


def _partition_numbers(engine: Engine, game_id: str) -> set[str]:
    """The numbers of the partitions holding the rows of `game_id`, in every partitioned table."""
    with engine.connect() as conn:
        return {str(conn.execute(text(f"SELECT DISTINCT tableoid::regclass::text FROM {table} WHERE game_id = :g"),
                                 {"g": game_id}).scalar_one())[-2:] for table in PARTITIONED}


def test_the_upgrade_partitions_a_database_in_play_and_a_downgrade_undoes_it(postgres_url: str) -> None:
    from alembic import command

    service = open_database(migrated(postgres_url))
    engine = service.store.engine
    games = [a_game_in_play(service, moves=moves) for moves in (2, 5, 9)]
    over = service.playing.create_game(HUMAN_AND_BOT, seed=5, dealer="ann").game_id
    service.move(over, Resign("you"))  # R27: ann, the bot, wins
    rematch = service.rematch(over, "you").game_id
    assert _partitions(engine) == {table: partition_names(table) for table in PARTITIONED}
    assert all(len(_partition_numbers(engine, game_id)) == 1 for game_id in games)  # each game in one number
    records = {game_id: service.archive.export_records(game_id, running=True) for game_id in games}
    positions = _positions(engine)
    listed = [replace(row, result=None, creation=None) for row in service.reading.list_games()]
    told = service.game_list()

    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0015")
    assert _partitions(engine) == {table: [] for table in PARTITIONED}
    assert _positions(engine) == positions
    with engine.begin() as conn:
        assert trigger_problems(conn) == {}
        command.upgrade(alembic_config(conn), "head")
        assert trigger_problems(conn) == {}

    assert _partitions(engine) == {table: partition_names(table) for table in PARTITIONED}
    assert _positions(engine) == positions
    # the same rows; a kept result (0018) and creation (0019) went with the downgrade and are read
    # from the log again
    assert [replace(row, result=None, creation=None) for row in service.reading.list_games()] == listed
    assert service.game_list() == told
    assert service.reading.game_result(over) is not None
    assert service.rematch(over, "you").game_id == rematch  # still the one rematch of that game
    for game_id in games:
        assert service.archive.export_records(game_id, running=True) == records[game_id]
        assert service.audit(game_id).ok
    next_move(service, games[0])  # the game plays on, its new events after every position before
    newest = _positions(engine)[-1]
    assert newest[0] == games[0] and newest[2] > positions[-1][2]
    engine.dispose()


#: A way around a partition's triggers -> (the name `db check` reports it under, what it would let through).
TAMPERING = {
    "DROP TRIGGER {p}_no_truncate ON {p}": ("{p}_no_truncate", "TRUNCATE {p}"),
    "ALTER TABLE {p} DISABLE TRIGGER events_no_update_delete": ("{p}.events_no_update_delete",
                                                                 "DELETE FROM {p} WHERE game_id = :g"),
}


@pytest.mark.parametrize("tampering", list(TAMPERING))
def test_a_partition_s_trigger_dropped_or_disabled_is_named_by_db_check_and_restored(
        postgres_url: str, tampering: str) -> None:
    service = open_database(migrated(postgres_url))
    engine = service.store.engine
    game_id = a_game_in_play(service)
    with engine.connect() as conn:
        own = str(conn.execute(text("SELECT DISTINCT tableoid::regclass::text FROM events WHERE game_id = :g"),
                               {"g": game_id}).scalar_one())
    reported, attack = (part.format(p=own) for part in TAMPERING[tampering])
    with engine.begin() as conn:
        conn.execute(text(tampering.format(p=own)))
        assert trigger_problems(conn) == {reported: "missing or disabled"}
        restore_triggers(conn)
        assert trigger_problems(conn) == {}
    with pytest.raises(Exception, match="events are immutable"), engine.begin() as conn:
        conn.execute(text(attack), {"g": game_id})
    assert service.audit(game_id).ok
    engine.dispose()
