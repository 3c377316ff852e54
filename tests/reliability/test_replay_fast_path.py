"""The store's replay fast path (`StoredEvent.from_row`) changes nothing observable.

Loaded events keep their data as JSON text until it is read and validate their domain event
straight from that text when it is at the current schema version; anything else goes
through `from_record` as before. Runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

from scat_cli.wiring import open_database
from scat_core.domain.events import Knocked, PlayerSeat, from_record
from scat_core.records.stored_log import GENESIS_HASH, chain_hash
from scat_core.store.sql.event_store import EventStore
from tests.support.databases import migrated


def test_loaded_events_equal_the_appended_ones_field_by_field_and_as_domain_events(
    db_url: str,
) -> None:
    service = open_database(migrated(db_url))
    bots = [PlayerSeat(name=n, is_bot=True) for n in ("ann", "bob", "cy")]
    appended = service.playing.create_game(bots, seed=5).events
    loaded = service.reading.history(appended[0].game_id)

    assert loaded == appended
    assert [s.event for s in loaded] == [s.event for s in appended]
    assert [s.event for s in loaded] == [from_record(s.type, s.schema_version, s.data)
                                         for s in appended]
    assert [s.record() for s in loaded] == [s.record() for s in appended]
    assert all(chain_hash(s.prev_hash, s.envelope()) == s.hash for s in loaded)
    service.store.engine.dispose()


def test_a_loaded_event_survives_copy_and_pickle_before_and_after_its_data_is_read(
    store: EventStore,
) -> None:
    with store.transaction() as tx:
        tx.append("g", 0, [Knocked(player="ann")])
    with store.read() as tx:
        (untouched,) = tx.load("g")
        (touched,) = tx.load("g")
    assert touched.data == {"player": "ann"}

    for stored in (untouched, touched):
        for clone in (copy.copy(stored), copy.deepcopy(stored),
                      pickle.loads(pickle.dumps(stored))):
            assert clone == stored and clone.data == {"player": "ann"}
            assert clone.event == Knocked(player="ann")
    assert not hasattr(untouched, "no_such_attribute")


def test_the_type_of_an_event_comes_from_its_row_even_if_its_data_says_otherwise(
    store: EventStore,
) -> None:
    # As in from_record, `type` and `schema_version` in stored data never win over the row.
    envelope: dict[str, Any] = {"game_id": "odd", "seq": 1, "type": "Knocked", "schema_version": 1,
                "recorded_at": "2026-01-01T00:00:00.000000Z",
                "data": {"player": "ann", "type": "Forged", "schema_version": 9}}
    record: dict[str, Any] = {**envelope, "prev_hash": GENESIS_HASH,
              "hash": chain_hash(GENESIS_HASH, envelope)}
    with store.transaction() as tx:
        tx.append_raw([record])
    with store.read() as tx:
        (stored,) = tx.load("odd")
    assert stored.event == from_record("Knocked", 1, dict(record["data"]))
    assert stored.data == record["data"]
