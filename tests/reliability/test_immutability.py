"""Tampering with the log directly in the database, on SQLite and on PostgreSQL.

Plain UPDATE, DELETE and TRUNCATE on `events` are refused by the triggers (see
tests/store/test_event_store.py). Here: the sideways routes to rewriting an event (REPLACE
and upserts) are refused too, and with the triggers dropped the audit still catches an
altered event and a cut-off tail (the read model remembers the head).
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from scat_cli.wiring import open_database
from scat_core.store.sql.schema import partition_names
from tests.support.databases import migrated
from tests.support.services import a_game_in_play
from tests.support.store import drop_event_triggers

COLUMNS = "game_id, seq, type, schema_version, data, recorded_at, prev_hash, hash"
FORGED = "game_id, seq, 'Forged', schema_version, data, recorded_at, prev_hash, hash"
SECOND = "FROM events WHERE seq = 2"
UPSERT = (f"INSERT INTO events ({COLUMNS}) SELECT {COLUMNS} {SECOND} "
          "ON CONFLICT (game_id, seq) DO UPDATE SET type = 'Forged'")
REWRITES = {
    "sqlite": [
        f"INSERT OR REPLACE INTO events ({COLUMNS}) SELECT {FORGED} {SECOND}",
        f"REPLACE INTO events ({COLUMNS}) SELECT {FORGED} {SECOND}",
        # the same position (the primary key) under a new seq
        f"INSERT OR REPLACE INTO events (position, {COLUMNS}) "
        f"SELECT position, game_id, 1000, 'Forged', schema_version, data, recorded_at, "
        f"prev_hash, hash {SECOND}",
        UPSERT,
    ],
    "postgresql": [
        UPSERT,
        # the primary key (the game, as the partitions are, and the position: migration 0016)
        f"INSERT INTO events (position, {COLUMNS}) SELECT position, {FORGED} {SECOND} "
        "ON CONFLICT (game_id, position) DO UPDATE SET type = 'Forged'",
        f"MERGE INTO events e USING (SELECT position {SECOND}) s ON e.position = s.position "
        "WHEN MATCHED THEN UPDATE SET type = 'Forged'",
        f"MERGE INTO events e USING (SELECT position {SECOND}) s ON e.position = s.position "
        "WHEN MATCHED THEN DELETE",
    ],
}


def test_replacing_or_upserting_an_event_is_refused_by_the_database(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service)
    before = service.archive.export_records(game_id, running=True)

    for statement in REWRITES[engine.dialect.name]:
        with pytest.raises(Exception, match="events are immutable"), engine.begin() as conn:
            conn.execute(text(statement))

    assert service.archive.export_records(game_id, running=True) == before
    assert service.audit(game_id).ok
    engine.dispose()


def test_a_partition_of_the_events_refuses_what_the_events_refuse(db_url: str) -> None:
    """On PostgreSQL the events are partitioned by game (migration 0016): reached directly, the
    game's own partition refuses UPDATE and DELETE (the parent's row triggers, cloned) and every
    partition refuses TRUNCATE (a trigger of its own)."""
    service = open_database(migrated(db_url))
    engine = service.store.engine
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite's events are one table")
    game_id = a_game_in_play(service)
    before = service.archive.export_records(game_id, running=True)
    with engine.connect() as conn:
        own = str(conn.execute(text("SELECT DISTINCT tableoid::regclass::text FROM events WHERE game_id = :g"),
                               {"g": game_id}).scalar_one())
    assert own in partition_names("events")
    attempts = [f"UPDATE {own} SET type = 'Forged' WHERE game_id = :g", f"DELETE FROM {own} WHERE game_id = :g",
                *(f"TRUNCATE {partition}" for partition in partition_names("events"))]
    for statement in attempts:
        with pytest.raises(Exception, match="events are immutable"), engine.begin() as conn:
            conn.execute(text(statement), {"g": game_id})
    assert service.archive.export_records(game_id, running=True) == before
    engine.dispose()


def test_a_tail_deleted_with_the_triggers_dropped_is_caught_by_the_audit(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service)
    head = len(service.reading.history(game_id))
    assert service.audit(game_id).ok

    drop_event_triggers(engine)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM events WHERE game_id = :g AND seq > :s"),
                     {"g": game_id, "s": head - 3})

    # What is left is a valid prefix: only the read model's head can tell.
    report = service.audit(game_id)
    assert not report.ok
    assert report.events == head - 3 and report.first_bad_seq == head - 2
    assert "removed" in report.problems[0]
    engine.dispose()


def test_an_event_altered_with_the_triggers_dropped_is_caught_by_the_audit(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service)

    drop_event_triggers(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE events SET data = replace(data, '\"stock\"', '\"discard\"') "
                          "WHERE game_id = :g AND type = 'CardDrawn' AND seq = "
                          "(SELECT min(seq) FROM events WHERE game_id = :g "
                          "AND type = 'CardDrawn' AND data LIKE '%\"stock\"%')"),
                     {"g": game_id})

    report = service.audit(game_id)
    assert not report.ok and "altered" in report.problems[0]
    engine.dispose()
