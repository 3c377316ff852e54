"""On PostgreSQL a command's load and append name the game's own partitions (#42), computed by
scat_core/store/sql/partition_routing.py as PostgreSQL routes a game id: the computed partition is
PostgreSQL's for every kind of id, a command's statements name it, and a game found elsewhere
than computed is still played (through the parent tables, the routing then turned off)."""

from __future__ import annotations

import logging
import random
import re
import string
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import event, make_url, text

from scat_cli.wiring import open_database
from scat_core.store.sql import appending, log_reads, partition_routing
from scat_core.store.sql.partition_routing import ROUTING, hash_bytes_extended, partition_of
from scat_core.store.sql.schema import PARTITIONED, PARTITIONS
from tests.support.databases import migrated
from tests.support.services import a_game_in_play, next_move

pytestmark = pytest.mark.postgres


@pytest.fixture
def routing() -> Iterator[None]:
    """The routing as a process starts with it, restored after the test."""
    was = ROUTING.on
    ROUTING.on = True
    yield
    ROUTING.on = was


def _ids() -> list[str]:
    rng = random.Random(42)
    return ([uuid.UUID(int=rng.getrandbits(128)).hex[:length] for length in range(33) for _ in range(60)]
            + ["".join(rng.choices("é🙂üß中" + string.ascii_letters, k=rng.randint(1, 20))) for _ in range(200)]
            + ["".join(rng.choices(string.printable, k=rng.randint(1, 64))) for _ in range(300)])


def test_the_partition_computed_is_postgresql_s_for_every_kind_of_id(postgres_url: str) -> None:
    url = make_url(postgres_url).set(drivername="postgresql")
    with psycopg.connect(url.render_as_string(hide_password=False), autocommit=True) as conn:
        assert conn.execute("SELECT hashtextextended('abc', 0)").fetchone() == (
            hash_bytes_extended(b"abc", 0) - (1 << 64),)  # lookup3 itself, before the seed and the modulus
        conn.execute("CREATE TEMP TABLE routed (game_id VARCHAR(64)) PARTITION BY HASH (game_id)")
        for remainder in range(PARTITIONS):
            conn.execute(f"CREATE TEMP TABLE routed_p{remainder:02d} PARTITION OF routed "
                         f"FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {remainder})")
        ids = _ids()
        with conn.cursor() as cursor:
            cursor.executemany("INSERT INTO routed VALUES (%s)", [(game_id,) for game_id in ids])
        found = dict(conn.execute("SELECT game_id, tableoid::regclass::text FROM routed").fetchall())
    assert len(found) == len(set(ids))
    wrong = {game_id: partition for game_id, partition in found.items()
             if partition != f"routed_p{partition_of(game_id):02d}"}
    assert wrong == {}


def _statements(engine: Any) -> list[str]:
    seen: list[str] = []

    @event.listens_for(engine, "before_cursor_execute", retval=True)
    def record(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> tuple[str, Any]:
        seen.append(statement)
        return statement, params

    return seen


def test_a_command_names_the_game_s_partitions_where_postgresql_keeps_its_rows(
        postgres_url: str, routing: None) -> None:
    service = open_database(migrated(postgres_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=3)
    own = f"_p{partition_of(game_id):02d}"
    with engine.connect() as conn:
        for table in PARTITIONED:
            holder = conn.execute(text(f"SELECT DISTINCT tableoid::regclass::text FROM {table} WHERE game_id = :g"),
                                  {"g": game_id}).scalar_one()
            assert holder == table + own
    seen = _statements(engine)
    next_move(service, game_id)
    load = [s for s in seen if "FROM games" in s]
    append = [s for s in seen if s.startswith("WITH moved AS")]
    assert load and append
    for statement in load + append:
        named = set(re.findall(r"\b(?:events|game_snapshots|games)(?:_p\d\d)?\b", statement))
        assert named <= {table + own for table in PARTITIONED}, named
    assert service.audit(game_id).ok
    engine.dispose()


def test_a_game_found_elsewhere_than_computed_is_played_and_the_routing_turned_off(
        postgres_url: str, routing: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    service = open_database(migrated(postgres_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=3)
    before = len(service.reading.history(game_id))
    wrong = (partition_of(game_id) + 1) % PARTITIONS
    for module in (partition_routing, log_reads, appending):
        monkeypatch.setattr(module, "partition_of", lambda game: wrong)
    seen = _statements(engine)
    with caplog.at_level(logging.WARNING, logger="scat.store"):
        next_move(service, game_id)
    assert len(service.reading.history(game_id)) > before  # played, once
    assert ROUTING.on is False and f"game {game_id} is not in the partition computed for it" in caplog.text
    appended = [s for s in seen if s.startswith("WITH moved AS")]
    assert appended and all("_p" not in s.split(" SET ")[0] for s in appended)  # the parents
    assert service.audit(game_id).ok
    engine.dispose()
