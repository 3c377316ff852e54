"""Contract tests of the event store; every test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import threading

import pytest
from sqlalchemy import Engine, text

from scat_core.domain.errors import NotFound
from scat_core.domain.events import CardDrawn, GameCreated
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.games import GameSummary
from scat_core.records.stored_log import GENESIS_HASH, canonical_json, chain_hash
from scat_core.store.sql.event_store import EventStore
from tests.support.store import SUMMARY, a_knock, a_turn, game_created, new_game


def test_appended_events_load_back_in_seq_order_as_domain_events(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.append("g1", 1, a_turn())
    with store.read() as tx:
        loaded = tx.load("g1")
    assert [e.seq for e in loaded] == [1, 2, 3]
    assert [e.type for e in loaded] == ["GameCreated", "CardDrawn", "CardDiscarded"]
    assert isinstance(loaded[0].event, GameCreated)
    assert loaded[1].event == CardDrawn(player="bob", source="stock", card="AS")


def test_the_hash_chain_starts_at_genesis_and_links_every_event(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.append("g1", 1, a_turn())
        tx.append("g1", 3, [a_knock()])
    with store.read() as tx:
        loaded = tx.load("g1")
    prev = GENESIS_HASH
    for stored in loaded:
        assert stored.prev_hash == prev
        assert stored.hash == chain_hash(prev, stored.envelope())
        prev = stored.hash
    with store.read() as tx:
        assert tx.head("g1") == (4, prev)


def test_events_are_stored_as_canonical_json(store: EventStore, engine: Engine) -> None:
    new_game(store)
    with engine.connect() as conn:
        raw = conn.execute(text("SELECT data FROM events WHERE seq = 1")).scalar_one()
    assert raw.encode("utf-8") == canonical_json(json.loads(raw))


def test_a_stale_expected_seq_raises_a_conflict_and_writes_nothing(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.append("g1", 1, a_turn())
    with pytest.raises(ConcurrencyConflict), store.transaction() as tx:
        tx.append("g1", 1, [a_knock()], SUMMARY)
    with store.read() as tx:
        assert [e.seq for e in tx.load("g1")] == [1, 2, 3]
        row = tx.get_game("g1")
    assert row is not None and row.head_seq == 3


def test_creating_a_game_that_already_exists_is_a_conflict(store: EventStore) -> None:
    new_game(store)
    with pytest.raises(ConcurrencyConflict), store.transaction() as tx:
        tx.append("g1", 0, [game_created()], SUMMARY)


def test_loading_an_unknown_game_raises_not_found(store: EventStore) -> None:
    with pytest.raises(NotFound), store.read() as tx:
        tx.load("nope")
    with store.read() as tx:
        assert tx.head("nope") is None
        assert tx.get_game("nope") is None


def test_load_up_to_stops_at_that_seq(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.append("g1", 1, a_turn())
    with store.read() as tx:
        assert [e.seq for e in tx.load("g1", up_to=2)] == [1, 2]
        assert [e.seq for e in tx.load("g1", up_to=99)] == [1, 2, 3]


def test_the_read_model_follows_every_append(store: EventStore) -> None:
    new_game(store)
    with store.read() as tx:
        first = tx.get_game("g1")
    assert first is not None
    assert (first.status, first.players, first.bots, first.turn) == (
        "active", ("ann", "bob"), ("bob",), "bob")
    with store.transaction() as tx:
        appended = tx.append("g1", 1, a_turn(), GameSummary(
            status="finished", players=("ann", "bob"), winner="ann", hand_number=2))
        row = tx.get_game("g1")
    assert row is not None
    assert (row.status, row.winner, row.turn, row.hand_number) == ("finished", "ann", None, 2)
    assert (row.head_seq, row.head_hash) == (3, appended[-1].hash)
    assert row.last_activity == appended[-1].recorded_at
    assert row.created_at == first.created_at


def test_a_rolled_back_transaction_leaves_neither_events_nor_read_model(
    store: EventStore,
) -> None:
    class Boom(Exception):
        pass

    with pytest.raises(Boom), store.transaction() as tx:
        tx.append("g1", 0, [game_created()], SUMMARY)
        tx.put_secret("g1", "seed", "salt")
        raise Boom
    with store.read() as tx:
        assert tx.head("g1") is None
        assert tx.get_game("g1") is None
        assert tx.get_secret("g1") is None


def test_games_are_listed_newest_activity_first_and_filtered(store: EventStore) -> None:
    for game_id in ("g1", "g2", "g3"):
        new_game(store, game_id)
    with store.transaction() as tx:
        tx.append("g1", 1, [a_knock()], GameSummary(status="active", players=("ann", "bob"),
                                                    turn="ann"))
        tx.append("g2", 1, [a_knock()], GameSummary(status="finished", players=("ann", "bob"),
                                                    winner="ann"))
    with store.read() as tx:
        assert [g.game_id for g in tx.list_games()] == ["g2", "g1", "g3"]
        assert [g.game_id for g in tx.list_games(status="finished")] == ["g2"]
        assert [g.game_id for g in tx.list_games(waiting_for="ann")] == ["g1"]
        assert [g.game_id for g in tx.list_games(status="active")] == ["g1", "g3"]
        assert tx.game_ids() == ["g1", "g2", "g3"]


def test_update_and_delete_on_events_are_refused_by_the_database(
    store: EventStore, engine: Engine
) -> None:
    new_game(store)
    statements = ["UPDATE events SET type = 'Forged'", "DELETE FROM events"]
    if engine.dialect.name == "postgresql":
        statements.append("TRUNCATE events")
    for statement in statements:
        with pytest.raises(Exception, match="events are immutable"), engine.begin() as conn:
            conn.execute(text(statement))
    with store.read() as tx:
        loaded = tx.load("g1")
    assert [(e.seq, e.type) for e in loaded] == [(1, "GameCreated")]


def test_an_old_schema_version_is_upcast_on_read_and_kept_as_stored(store: EventStore) -> None:
    current = game_created().model_dump(mode="json", exclude={"type", "schema_version"})
    v1 = {k: v for k, v in current.items() if k not in ("shuffle", "protected", "first_deck_stacked", "rules_version")}
    envelope = {"game_id": "old", "seq": 1, "type": "GameCreated", "schema_version": 1,
                "recorded_at": "2020-01-01T00:00:00.000000Z", "data": v1}
    record = {**envelope, "prev_hash": GENESIS_HASH, "hash": chain_hash(GENESIS_HASH, envelope)}
    with store.transaction() as tx:
        tx.append_raw([record])
    with store.read() as tx:
        (stored,) = tx.load("old")
    assert (stored.schema_version, stored.data) == (1, v1)
    assert stored.hash == chain_hash(GENESIS_HASH, stored.envelope())
    event = stored.event
    assert isinstance(event, GameCreated)
    assert event.schema_version == 6 and event.protected is False and event.shuffle
    assert event.rules_version == 1  # a game recorded before rules versions was played under version 1


def test_append_raw_keeps_recorded_at_and_hashes_verbatim(store: EventStore) -> None:
    new_game(store)
    with store.read() as tx:
        records = tx.load_raw("g1")
    moved = [{**r, "game_id": "copy"} for r in records]
    with store.transaction() as tx:
        tx.append_raw(moved, SUMMARY)
    with store.read() as tx:
        assert tx.load_raw("copy") == moved
        row = tx.get_game("copy")
    assert row is not None and row.head_hash == records[-1]["hash"]


def test_secrets_are_kept_and_forgotten(store: EventStore) -> None:
    with store.transaction() as tx:
        tx.put_secret("g1", "12345", "abcd")
    with store.transaction() as tx:
        secret = tx.get_secret("g1")
        assert secret is not None and (secret.seed, secret.salt) == ("12345", "abcd")
        tx.delete_secret("g1")
    with store.read() as tx:
        assert tx.get_secret("g1") is None


def test_token_hashes_are_stored_per_player(store: EventStore) -> None:
    with store.transaction() as tx:
        tx.put_token_hash("g1", "ann", "scrypt$hash-of-ann")
    with store.read() as tx:
        assert tx.get_token_hash("g1", "ann") == "scrypt$hash-of-ann"
        assert tx.get_token_hash("g1", "bob") is None


def test_racing_writers_with_the_same_expected_seq_exactly_one_wins(store: EventStore) -> None:
    new_game(store)
    writers = 6
    barrier = threading.Barrier(writers)
    outcomes: list[str] = []
    lock = threading.Lock()

    def write(name: str) -> None:
        barrier.wait()
        try:
            with store.transaction() as tx:
                tx.append("g1", 1, [a_knock(name)], SUMMARY)
            result = "won"
        except ConcurrencyConflict:
            result = "conflict"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=write, args=(f"p{i}",)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["conflict"] * (writers - 1) + ["won"]
    with store.read() as tx:
        assert [e.seq for e in tx.load("g1")] == [1, 2]


def test_waiting_for_matches_the_name_to_play_whatever_its_case(store: EventStore) -> None:
    zoe = GameSummary(status="active", players=("Zoë", "bob"), turn="Zoë", bots=("bob",))
    with store.transaction() as tx:
        tx.append("g1", 0, [game_created("g1")], zoe)
        tx.append("g2", 0, [game_created("g2")], SUMMARY)  # bob to play
    with store.read() as tx:
        for name in ("Zoë", "zoë", "ZOË"):
            assert [row.game_id for row in tx.list_games(waiting_for=name)] == ["g1"]
        assert [row.game_id for row in tx.list_games(status="active", waiting_for="BOB")] == ["g2"]
        assert tx.list_games(waiting_for="ann") == []
