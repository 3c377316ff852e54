"""The store contract (#9 point 3): one suite, every adapter of `scat_core.service.ports.Store`.

The in-memory store, SQLite and PostgreSQL (with $SCAT_TEST_POSTGRES_URL) must behave alike
on everything the service relies on: append and load, conflicts, the hash chain, the games
row moved in the same unit of work, snapshots, secrets, tokens, signed heads, rollback,
bulk adds, statistics and waiting. A new backend passes this suite and is one module.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import BaseModel

from scat_core.domain import events as ev
from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.errors import NotFound
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.records.chain import audit_records
from scat_core.records.credentials import RequestNonce
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.games import GameSummary, ListedAfter
from scat_core.records.signing import ORIGIN, VALID
from scat_core.records.stored_log import GENESIS_HASH, canonical_json, chain_hash_raw
from scat_core.service.loading import snapshot_json, summarize
from scat_core.service.ports import Store, UnitOfWork
from scat_core.store.memory import MemoryStore
from scat_core.store.sql.database import make_engine
from scat_core.store.sql.event_store import EventStore
from tests.support.databases import migrated

SALT = "0" * 32


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest) -> Iterator[Store]:
    """Each adapter, empty (the databases migrated by the real Alembic scripts)."""
    if request.param == "memory":
        yield MemoryStore()
        return
    engine = make_engine(migrated(str(request.getfixturevalue(f"{request.param}_url"))))
    yield EventStore(engine)
    engine.dispose()


def created(game_id: str = "c0ffee0001", seed: int = 5, players: tuple[str, ...] = ("ann", "bob")
            ) -> tuple[list[ev.Event], GameState, SeededChance]:
    """The events of a new game of bots (created, dealt), its state after them and its chance."""
    chance = SeededChance(str(seed), SALT)
    command = CreateGame(game_id=game_id, players=tuple(ev.PlayerSeat(name=n, is_bot=True) for n in players),
                         seed_chosen=True)
    events, state = decide_and_evolve(GameState(), command, chance)
    return events, state, chance


def moves(state: GameState, chance: SeededChance, count: int) -> tuple[list[ev.Event], GameState]:
    """The events of the bots' next `count` moves from `state`, and the state after them."""
    events: list[ev.Event] = []
    for _ in range(count):
        command = next_bot_command(state)
        assert command is not None, "the game ended early"
        produced, state = decide_and_evolve(state, command, chance)
        events += produced
    return events, state


def start(store: Store, game_id: str = "c0ffee0001", seed: int = 5) -> tuple[GameState, SeededChance, str]:
    """A new game stored as the service stores one: its state, chance and head hash."""
    events, state, chance = created(game_id, seed)
    with store.transaction() as tx:
        stored = tx.append(game_id, 0, events, summarize(state), snapshot_json(state))
        tx.put_secret(game_id, chance.seed, chance.salt)
    return state, chance, stored[-1].hash


def play(store: Store, state: GameState, chance: SeededChance, head: str, count: int = 3) -> tuple[GameState, str]:
    """The bots' next moves appended as a command appends them (the lean append)."""
    events, after = moves(state, chance, count)
    with store.command() as tx:
        stored = tx.append(state.game_id, state.version, events, summarize(after), snapshot_json(after), head)
    return after, stored[-1].hash


def test_appended_events_load_back_in_order_chained_and_hashed(store: Store) -> None:
    state, chance, head = start(store)
    state, head = play(store, state, chance, head)
    with store.read() as tx:
        loaded = tx.load(state.game_id)
        records = tx.load_raw(state.game_id)
        assert tx.head(state.game_id) == (state.version, head)
    assert [s.seq for s in loaded] == list(range(1, state.version + 1))
    prev = GENESIS_HASH
    for stored in loaded:
        data = canonical_json(stored.data).decode("utf-8")
        assert stored.prev_hash == prev
        assert stored.hash == chain_hash_raw(prev, stored.game_id, stored.seq, stored.type, stored.schema_version,
                                             stored.recorded_at, data)
        prev = stored.hash
    assert isinstance(loaded[0].event, ev.GameCreated) and isinstance(loaded[1].event, ev.HandDealt)
    assert audit_records(records).ok


def test_an_append_after_a_head_that_moved_is_a_conflict_and_writes_nothing(store: Store) -> None:
    state, chance, head = start(store)
    events, after = moves(state, chance, 1)
    for expected_seq in (state.version - 1, state.version + 1, 0):
        with pytest.raises(ConcurrencyConflict), store.transaction() as tx:
            tx.append(state.game_id, expected_seq, events, summarize(after))
    for expected_seq, expected_hash in [(state.version - 1, head), (state.version, "f" * 64)]:
        with pytest.raises(ConcurrencyConflict), store.command() as tx:
            tx.append(state.game_id, expected_seq, events, summarize(after), None, expected_hash)
    with store.read() as tx:
        assert tx.head(state.game_id) == (state.version, head)
        row = tx.get_game(state.game_id)
    assert row is not None and (row.head_seq, row.head_hash) == (state.version, head)


def test_of_two_writers_who_saw_the_same_head_exactly_one_appends(store: Store) -> None:
    state, chance, head = start(store)
    events, after = moves(state, chance, 1)
    barrier, results = threading.Barrier(2), []

    def writer() -> None:
        barrier.wait()
        try:
            with store.command() as tx:
                tx.append(state.game_id, state.version, events, summarize(after), None, head)
            results.append("appended")
        except ConcurrencyConflict:
            results.append("conflict")

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["appended", "conflict"]
    with store.read() as tx:
        assert len(tx.load(state.game_id)) == after.version


def test_a_unit_of_work_that_fails_writes_nothing_at_all(store: Store) -> None:
    events, state, chance = created()
    with pytest.raises(ZeroDivisionError), store.transaction() as tx:
        tx.append(state.game_id, 0, events, summarize(state), snapshot_json(state))
        tx.put_secret(state.game_id, chance.seed, chance.salt)
        tx.put_token_hash(state.game_id, "ann", "hash")
        assert tx.head(state.game_id) == (state.version, tx.load(state.game_id)[-1].hash)  # seen inside
        raise ZeroDivisionError
    with store.read() as tx:
        assert tx.head(state.game_id) is None and tx.get_game(state.game_id) is None
        assert tx.get_secret(state.game_id) is None and tx.get_token_hash(state.game_id, "ann") is None
        assert tx.read_signature(state.game_id) is None and tx.game_ids() == [] and tx.logged_game_ids() == []
        with pytest.raises(NotFound):
            tx.load(state.game_id)
        with pytest.raises(NotFound):
            tx.load_for_command(state.game_id)


def test_the_games_row_moves_with_the_log_in_the_same_unit_of_work(store: Store) -> None:
    state, chance, head = start(store)
    with store.read() as tx:
        row = tx.get_game(state.game_id)
    assert row is not None and row.created_at == row.last_activity
    assert (row.status, row.players, row.bots, row.head_seq, row.head_hash) == (
        "active", ("ann", "bob"), ("ann", "bob"), state.version, head)
    after, head = play(store, state, chance, head, 2)
    with store.read() as tx:
        moved = tx.get_game(state.game_id)
        last = tx.load(state.game_id)[-1]
    assert moved == replace(row, head_seq=after.version, head_hash=head, last_activity=last.recorded_at,
                            turn=after.name(after.turn), hand_number=after.hand_number)


def test_the_games_list_is_ordered_and_filtered_as_the_service_needs(store: Store) -> None:
    first, _, _ = start(store, "c0ffee0001")
    second, _, _ = start(store, "c0ffee0002")
    with store.transaction() as tx:
        finished = summarize(second)
        tx.append("c0ffee0003", 0, created("c0ffee0003")[0], replace(finished, status="finished", turn=None))
    with store.read() as tx:
        assert tx.game_ids() == ["c0ffee0001", "c0ffee0002", "c0ffee0003"]  # oldest first
        assert [r.game_id for r in tx.list_games()] == ["c0ffee0003", "c0ffee0002", "c0ffee0001"]  # newest first
        assert [r.game_id for r in tx.list_games(status="active")] == ["c0ffee0002", "c0ffee0001"]
        turn = first.name(first.turn)
        assert turn is not None
        waiting = tx.list_games(waiting_for=turn.upper())
        assert [r.game_id for r in waiting] == ["c0ffee0002", "c0ffee0001"]
        assert tx.list_games(waiting_for="nobody") == []
        assert sorted(tx.logged_game_ids()) == ["c0ffee0001", "c0ffee0002", "c0ffee0003"]
        firsts = tx.first_events(["c0ffee0002", "nosuchgame", "c0ffee0001", "c0ffee0002"])
    assert sorted((s.game_id, s.seq, s.type) for s in firsts) == [
        ("c0ffee0001", 1, "GameCreated"), ("c0ffee0002", 1, "GameCreated")]


def test_a_command_loads_the_snapshot_and_the_events_after_it(store: Store) -> None:
    state, chance, head = start(store)
    mid, mid_head = play(store, state, chance, head, 2)
    with store.command() as tx:  # a command that keeps no snapshot: the last one stays at `mid`
        events, after = moves(mid, chance, 2)
        tx.append(state.game_id, mid.version, events, summarize(after), None, mid_head)
    with store.read() as tx:
        load = tx.load_for_command(state.game_id)
        whole = tx.load_for_command(state.game_id, use_snapshot=False)
        tail = tx.load(state.game_id)[mid.version:]
    assert load.snapshot == snapshot_json(mid) and load.snapshot_seq == mid.version
    assert [s.seq for s in load.events] == [s.seq for s in tail] and load.head_hash == tail[-1].hash
    assert load.secret is not None and (load.secret.seed, load.secret.salt) == (chance.seed, chance.salt)
    assert (whole.snapshot, whole.snapshot_seq, len(whole.events)) == (None, 0, after.version)
    assert whole.head_hash == load.head_hash
    assert load.head_signed and whole.head_signed  # its head signature row is there (read in the same query)


def test_reading_parts_of_the_log(store: Store) -> None:
    state, chance, head = start(store)
    after, _ = play(store, state, chance, head, 4)
    with store.read() as tx:
        every = tx.load(state.game_id)
        assert [s.seq for s in tx.load(state.game_id, up_to=3)] == [1, 2, 3]
        assert [s.seq for s in tx.load_unchecked(state.game_id)] == [s.seq for s in every]
        assert [s.seq for s in tx.load_between(state.game_id, 1, 4)] == [2, 3, 4]
        newest = tx.load_between(state.game_id, 0, after.version, newest_first=True, limit=2)
        assert [s.seq for s in newest] == [after.version, after.version - 1]
        dealt = tx.load_between(state.game_id, 0, after.version, ("HandDealt", "GameCreated"))
        assert [s.seq for s in dealt] == [s.seq for s in every if s.type in ("HandDealt", "GameCreated")]
        assert tx.load_between(state.game_id, 0, after.version, ("NoSuchType",)) == []
        for missing in (lambda: tx.load("nosuchgame"), lambda: tx.load_for_command("nosuchgame")):
            with pytest.raises(NotFound):
                missing()
        assert tx.head("nosuchgame") is None and tx.get_game("nosuchgame") is None


def test_the_games_changed_after_a_position_are_those_with_an_event_after_it(store: Store) -> None:
    with store.read() as tx:
        assert tx.games_changed_after(0) == (0, [])  # an empty log
    state, chance, head = start(store)
    with store.read() as tx:
        first, changed = tx.games_changed_after(0)
        assert changed == [state.game_id] and first >= state.version
        assert tx.games_changed_after(first) == (first, [])  # nothing since
        assert tx.games_changed_after(2**31 - 1) == (first, [])  # the newest position alone
    other, other_chance, other_head = start(store, "c0ffee0002", seed=6)
    play(store, state, chance, head, 2)
    with store.read() as tx:
        newest, changed = tx.games_changed_after(first)
        assert changed == sorted([state.game_id, other.game_id]) and newest > first
    play(store, other, other_chance, other_head, 1)
    with store.read() as tx:
        assert tx.games_changed_after(newest)[1] == [other.game_id]


def test_secrets_are_kept_until_a_command_finishes_the_game_and_tokens_are_kept(store: Store) -> None:
    state, chance, head = start(store)
    with store.transaction() as tx:
        tx.put_token_hash(state.game_id, "ann", "hash-of-ann")
    with store.read() as tx:
        assert tx.get_token_hash(state.game_id, "ann") == "hash-of-ann"
        assert tx.get_token_hash(state.game_id, "bob") is None
        assert tx.secret_game_ids() == {state.game_id}
    after, head = play(store, state, chance, head, 1)
    with store.read() as tx:
        assert tx.get_secret(state.game_id) is not None  # still running: kept
    events, won = moves(after, chance, 1)
    with store.command() as tx:  # the games row says finished: the seed is revealed, so forgotten
        tx.append(state.game_id, after.version, events, replace(summarize(won), status="finished"), None, head)
    with store.read() as tx:
        assert tx.get_secret(state.game_id) is None and tx.secret_game_ids() == set()
        assert tx.get_token_hash(state.game_id, "ann") == "hash-of-ann"


def test_every_append_signs_the_new_head_and_an_origin_signature_is_kept(store: Store) -> None:
    state, chance, head = start(store)
    with store.read() as tx:
        first = tx.read_signature(state.game_id)
    assert first is not None and (first.seq, first.hash) == (state.version, head)
    assert store.keys.check(first.signature, state.game_id, first.seq, first.hash) == VALID
    after, head = play(store, state, chance, head, 2)
    with store.read() as tx:
        signed = tx.read_signature(state.game_id)
        assert tx.read_signature(state.game_id, ORIGIN) is None
    assert signed is not None and (signed.seq, signed.hash) == (after.version, head)
    assert store.keys.check(signed.signature, state.game_id, after.version, head) == VALID
    with store.transaction() as tx:
        tx.write_signature(state.game_id, ORIGIN, first.seq, first.hash, first.signature)
    with store.read() as tx:
        assert tx.read_signature(state.game_id, ORIGIN) == first


def test_whole_histories_are_added_verbatim_signed_and_never_twice(store: Store) -> None:
    source = MemoryStore(store.keys)
    state, chance, head = start(source)
    after, _ = play(source, state, chance, head, 3)
    with source.read() as tx:
        records = tx.load_raw(state.game_id)
    with store.transaction() as tx:
        assert tx.append_many([(records, summarize(after), snapshot_json(after))]) == len(records)
    with store.read() as tx:
        assert tx.load_raw(state.game_id) == records
        row = tx.get_game(state.game_id)
        signed = tx.read_signature(state.game_id)
        load = tx.load_for_command(state.game_id)
    assert row is not None and (row.created_at, row.last_activity) == (records[0]["recorded_at"],
                                                                       records[-1]["recorded_at"])
    assert (row.head_seq, row.head_hash, row.status) == (after.version, records[-1]["hash"], "active")
    assert signed is not None and store.keys.check(signed.signature, state.game_id, signed.seq, signed.hash) == VALID
    assert (load.snapshot_seq, load.events, load.secret) == (after.version, [], None)  # no seed came along
    with pytest.raises(ConcurrencyConflict), store.transaction() as tx:
        tx.append_many([(records, summarize(after), None)])


def test_the_statistics_are_those_the_sql_store_computes(store: Store, tmp_path: Path) -> None:
    engine = make_engine(migrated(f"sqlite:///{tmp_path / 'reference.db'}"))
    reference = EventStore(engine, store.keys)
    for target in (store, reference):
        for number, seed in enumerate((3, 4), start=1):
            state, chance, head = start(target, f"c0ffee000{number}", seed)
            play(target, state, chance, head, 12)
    assert store.read_stats() == reference.read_stats()  # nothing caught up yet: empty alike
    assert store.catch_up_stats() > 0 and reference.catch_up_stats() > 0
    assert store.catch_up_stats() == 0
    assert store.read_stats() == reference.read_stats()
    assert store.read_stats("ANN") == reference.read_stats("ANN") and store.read_stats("ANN").players
    assert store.read_stats("zed").players == ()
    store.catch_up_stats(rebuild=True)
    assert store.read_stats() == reference.read_stats()
    engine.dispose()


def test_the_statistics_folded_in_memory_are_those_a_catch_up_gives_and_write_nothing(store: Store) -> None:
    """What `scat stats` shows on a read-only database (docs/audit.md, "Projections")."""
    state, chance, head = start(store, "c0ffee0001", 3)
    state, head = play(store, state, chance, head, 12)
    first = store.read_stats_unsaved()
    assert first.players and store.read_stats().players == ()  # nothing written
    assert store.catch_up_stats() > 0 and store.read_stats() == first
    play(store, state, chance, head, 3)
    other, other_chance, other_head = start(store, "c0ffee0002", 4)
    play(store, other, other_chance, other_head, 12)
    behind, ann, rebuilt = (store.read_stats_unsaved(), store.read_stats_unsaved("ANN"),
                            store.read_stats_unsaved(rebuild=True))
    assert store.read_stats() == first  # still as last caught up
    assert store.catch_up_stats() > 0
    assert behind == rebuilt == store.read_stats() != first and ann == store.read_stats("ANN") and ann.players
    assert store.read_stats_unsaved("zed").players == ()


def test_waiting_for_the_head_wakes_on_an_append(store: Store) -> None:
    state, chance, head = start(store)

    def seq() -> int:
        with store.read() as tx:
            found = tx.head(state.game_id)
        return found[0] if found else 0

    assert store.wait_for_head(state.game_id, seq, state.version - 1, 0.0)
    assert not store.wait_for_head(state.game_id, seq, state.version, 0.05)
    mover = threading.Timer(0.1, lambda: play(store, state, chance, head, 1))
    mover.start()
    assert store.wait_for_head(state.game_id, seq, state.version, 10.0)
    mover.join()


def test_turns_and_ends_are_the_games_a_player_is_to_act_in_or_that_ended_since_oldest_first(store: Store) -> None:
    first, _, _ = start(store, "c0ffee0001")
    start(store, "c0ffee0002")
    turn = first.name(first.turn)
    other = next(name for name in ("ann", "bob") if name != turn)
    assert turn is not None
    events, state, _ = created("c0ffee0003")
    with store.transaction() as tx:
        tx.append("c0ffee0003", 0, events, replace(summarize(state), status="finished", turn=None),
                  recorded_at="2026-01-01T00:00:00.000000Z")
        row = tx.get_game("c0ffee0002")
        assert row is not None
        since = row.last_activity
    with store.read() as tx:
        to_act = tx.turns_and_ends(turn.upper(), since)
        assert [(r.game_id, r.turn) for r in to_act] == [("c0ffee0001", turn), ("c0ffee0002", turn)]
        assert tx.turns_and_ends(other, since) == []  # not his turn; the end was before `since`
        ended = tx.turns_and_ends(other, "2025-12-31T00:00:00.000000Z")
        assert [(r.game_id, r.status) for r in ended] == [("c0ffee0003", "finished")]
        assert tx.turns_and_ends("nobody", "2025-12-31T00:00:00.000000Z") == []


def test_waiting_until_a_look_finds_it_asks_again_after_an_append_to_any_game(store: Store) -> None:
    start(store)
    looks: list[int] = []

    def found() -> bool:
        with store.read() as tx:
            looks.append(len(tx.game_ids()))
        return looks[-1] > 1

    assert not store.wait_until(found, 0.0) and looks == [1]
    assert not store.wait_until(found, 0.05)
    adder = threading.Timer(0.1, lambda: start(store, "c0ffee0002"))
    adder.start()
    assert store.wait_until(found, 10.0) and looks[-1] == 2
    adder.join()


def test_a_command_writes_only_by_the_lean_append_and_a_read_not_at_all(store: Store) -> None:
    """PostgreSQL runs a command without a transaction around it: only the one-statement append may write."""
    state, chance, head = start(store)
    events, after = moves(state, chance, 1)
    if isinstance(store, EventStore) and store.engine.dialect.name == "sqlite":
        pytest.skip("SQLite runs commands and reads in a transaction: it refuses nothing here")
    with pytest.raises(RuntimeError), store.read() as tx:
        tx.append(state.game_id, state.version, events, summarize(after), None, head)
    with store.command() as tx:
        tx.append(state.game_id, state.version, events, summarize(after), None, head)
    with pytest.raises(RuntimeError), store.command() as tx:
        tx.put_token_hash(state.game_id, "ann", "hash")
    with store.read() as tx:
        assert tx.head(state.game_id) == (after.version, tx.load(state.game_id)[-1].hash)
        assert tx.get_token_hash(state.game_id, "ann") is None


def test_a_requests_nonce_is_remembered_once_with_its_unit_of_work_and_in_a_command(store: Store) -> None:
    """A signed move's nonce is spent by its command (service/playing.py): in its transaction, or on
    PostgreSQL by a statement of its own before the append; a unit of work that fails forgets it."""
    nonce, other = RequestNonce("key", "nonce", 2_000, 1_000), RequestNonce("key2", "nonce", 2_000, 1_000)
    with pytest.raises(ZeroDivisionError), store.transaction() as tx:
        assert tx.use_nonce(nonce)
        raise ZeroDivisionError
    with store.command() as tx:
        assert tx.use_nonce(nonce) and not tx.use_nonce(nonce)  # the same request again: a replay
        assert tx.use_nonce(other)  # nonces are per key
    with store.transaction() as tx:
        assert not tx.use_nonce(nonce) and not tx.use_nonce(other)


def test_a_read_refuses_every_write_on_every_store(store: Store) -> None:
    """`read()` writes nothing on SQLite too (a read transaction did not refuse writes), as on the others."""
    state, chance, head = start(store)
    events, after = moves(state, chance, 1)
    with store.read() as tx:
        signed = tx.read_signature(state.game_id)
    assert signed is not None
    writes: list[Callable[[UnitOfWork], object]] = [
        lambda tx: tx.append(state.game_id, state.version, events, summarize(after), None, head),
        lambda tx: tx.append_many([(tx.load_raw(state.game_id), summarize(state), None)]),
        lambda tx: tx.put_secret("c0ffee0009", "seed", "salt"),
        lambda tx: tx.put_token_hash(state.game_id, "ann", "hash"),
        lambda tx: tx.write_signature(state.game_id, ORIGIN, signed.seq, signed.hash, signed.signature),
        lambda tx: tx.use_nonce(RequestNonce("key", "nonce", 2_000, 1_000)),
    ]
    for write in writes:
        with pytest.raises(RuntimeError), store.read() as tx:
            write(tx)
    with store.read() as tx:
        assert tx.head(state.game_id) == (state.version, head) and tx.get_token_hash(state.game_id, "ann") is None
        assert tx.get_secret("c0ffee0009") is None and tx.read_signature(state.game_id, ORIGIN) is None


def test_appending_nothing_writes_nothing(store: Store) -> None:
    state, _, head = start(store)
    empty: list[BaseModel] = []
    with store.command() as tx:
        assert tx.append(state.game_id, state.version, empty, summarize(state), None, head) == []
    with store.read() as tx:
        assert tx.head(state.game_id) == (state.version, head)


# ---- the games read model for correspondence play: a page of the newest games and how many there
# are, the games waiting for a name (any case), the turns out of move time (R28), each found
# without reading the whole table or any event log.


def at(minute: int) -> str:
    """A recorded time, `minute` minutes into a day."""
    return f"2026-12-02T{minute // 60:02d}:{minute % 60:02d}:00.000000Z"


def add(store: Store, number: int, turn: str, *, status: str = "active", deadline: str | None = None,
        minute: int | None = None) -> str:
    """A game stored at minute `number` (or `minute`) whose read-model row says `turn` is to act; its id."""
    game_id = f"{number:010x}"
    command = CreateGame(game_id=game_id, players=(ev.PlayerSeat(name="x", is_bot=True),
                                                   ev.PlayerSeat(name="y", is_bot=True)))
    events, _ = decide_and_evolve(GameState(), command, SeededChance(str(number), "0" * 32))
    summary = GameSummary(status=status, players=(turn, "bob"), turn=turn, move_deadline=deadline)
    with store.transaction() as tx:
        tx.append(game_id, 0, events, summary, None, None, at(number if minute is None else minute))
    return game_id


def test_a_page_is_the_newest_activity_first_and_the_count_is_of_every_game(store: Store) -> None:
    ids = [add(store, number, "ann") for number in range(1, 8)]
    with store.read() as tx:
        page = tx.list_games(limit=3)
        assert [row.game_id for row in page] == ids[::-1][:3]
        assert tx.count_listed() == 7
        assert len(tx.list_games()) == 7


def test_the_rows_of_many_games_are_read_at_once_and_unknown_ids_are_left_out(store: Store) -> None:
    ids = [add(store, number, "ann") for number in range(1, 4)]
    with store.read() as tx:
        found = tx.get_games([ids[2], "nosuchgame", ids[0]])
        assert sorted(found) == sorted([ids[0], ids[2]]) and found[ids[2]] == tx.get_game(ids[2])
        assert tx.get_games([]) == {}


def test_pages_after_a_cursor_cover_the_list_once_each_in_order_and_the_count_can_stop_early(store: Store) -> None:
    ids = [add(store, number, "ann") for number in range(1, 8)] + [add(store, 8, "cy", minute=7)]  # two at minute 7
    with store.read() as tx:
        whole = [row.game_id for row in tx.list_games()]
        paged: list[str] = []
        after: ListedAfter | None = None
        while True:
            page = tx.list_games(limit=3, after=after)
            paged += [row.game_id for row in page]
            if len(page) < 3:
                break
            after = ListedAfter(page[-1].last_activity, page[-1].game_id)
        assert paged == whole and sorted(paged) == sorted(ids)
        assert tx.count_listed(at_most=5) == 5 and tx.count_listed(at_most=100) == 8


def test_with_a_player_first_a_cursor_goes_on_through_his_games_then_the_others(store: Store) -> None:
    for number in range(1, 9):
        add(store, number, "ann" if number % 3 == 0 else "bob")  # ann sits in 3 and 6 (with bob in every game)
    with store.read() as tx:
        whole = [row.game_id for row in tx.list_games(first_for="ANN")]
        paged: list[str] = []
        after: ListedAfter | None = None
        while True:
            page = tx.list_games(limit=2, first_for="ANN", after=after)
            paged += [row.game_id for row in page]
            if len(page) < 2:
                break
            last = page[-1]
            after = ListedAfter(last.last_activity, last.game_id, seated="ann" in last.players)
        assert paged == whole and len(set(paged)) == 8
        assert whole[:2] == [f"{6:010x}", f"{3:010x}"]


def test_waiting_for_matches_the_player_to_act_casefolded_and_pages_too(store: Store) -> None:
    mine = [add(store, 1, "Straße"), add(store, 3, "straße")]
    add(store, 2, "bob")
    add(store, 4, "Straße", status="finished")
    with store.read() as tx:
        assert [row.game_id for row in tx.list_games("active", "STRASSE")] == mine[::-1]  # ß casefolds to ss
        assert [row.game_id for row in tx.list_games("active", "strasse", limit=1)] == [mine[1]]
        assert tx.count_listed("active", "STRASSE") == 2
        assert tx.count_listed(waiting_for="bob") == 1


def test_r28_the_turns_out_of_time_are_the_running_games_whose_deadline_passed_longest_first(store: Store) -> None:
    later = add(store, 1, "ann", deadline=at(30))
    sooner = add(store, 2, "bob", deadline=at(20))
    add(store, 3, "cy", deadline=at(50))  # not yet
    add(store, 4, "dan")  # no move time
    add(store, 5, "eve", status="finished", deadline=at(10))
    with store.read() as tx:
        assert tx.expired_games(at(40)) == [sooner, later]
        assert tx.expired_games(at(40), limit=1) == [sooner]
        assert tx.expired_games(at(30)) == [sooner, later]  # out of time at the deadline itself
        assert tx.expired_games(at(5)) == []


def test_games_added_whole_are_found_waiting_for_their_player_to_act(store: Store) -> None:
    game_id = add(store, 1, "Straße")
    with store.read() as tx:
        records = tx.load_raw(game_id)
    moved = [{**record, "game_id": "b000000001"} for record in records]
    with store.transaction() as tx:
        tx.append_many([(moved, GameSummary(status="active", players=("Straße", "bob"), turn="Straße"), None)])
    with store.read() as tx:
        assert {row.game_id for row in tx.list_games(waiting_for="STRASSE")} == {game_id, "b000000001"}
