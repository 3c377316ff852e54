"""The lean append and the bulk path (#13), on SQLite and PostgreSQL: fewer statements, the same
log, and all or nothing (on PostgreSQL `command()` has no transaction around the one statement)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, text

from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.events import PlayerSeat
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.snapshot import SNAPSHOT_TAG
from scat_core.domain.state import GameState
from scat_core.records.chain import audit_records
from scat_core.records.errors import ConcurrencyConflict
from scat_core.records.games import GameSummary
from scat_core.records.stored_log import GENESIS_HASH, canonical_json, chain_hash
from scat_core.service.loading import snapshot_json, summarize
from scat_core.store.sql.appending import PSYCOPG_CACHED_PARAMS, VALUES_ROWS, pg_command
from scat_core.store.sql.event_store import EventStore
from tests.support.domain import records_for
from tests.support.store import SUMMARY, a_knock, a_turn, new_game

FINISHED = GameSummary(status="finished", players=("ann", "bob"), winner="ann", bots=("bob",))


def _counts(engine: Engine, game_id: str) -> tuple[int, int, int]:
    with engine.connect() as conn:
        return tuple(  # type: ignore[return-value]
            int(conn.execute(text(f"SELECT count(*) FROM {table} WHERE game_id = :g"), {"g": game_id}).scalar_one())
            for table in ("events", "game_snapshots", "game_secrets")
        )


def _head(store: EventStore, game_id: str) -> tuple[int, str]:
    with store.read() as tx:
        head = tx.head(game_id)
    assert head is not None
    return head


def test_the_lean_append_chains_moves_the_games_row_and_keeps_the_snapshot(store: EventStore) -> None:
    new_game(store)
    with store.command() as tx:
        stored = tx.append("g1", 1, a_turn(), SUMMARY, '{"state": 1}', _head(store, "g1")[1])
    with store.read() as tx:
        loaded = tx.load("g1")
        row = tx.get_game("g1")
    previous = GENESIS_HASH
    for event in loaded:
        assert event.prev_hash == previous and event.hash == chain_hash(previous, event.envelope())
        previous = event.hash
    assert [s.hash for s in stored] == [e.hash for e in loaded[1:]]
    assert row is not None and (row.head_seq, row.head_hash, row.turn) == (3, previous, "bob")
    with store.engine.connect() as conn:
        snapshot = conn.execute(text("SELECT seq, hash, state_version, rules_version, state FROM game_snapshots"
                                     )).one()
    assert tuple(snapshot) == (3, previous, *SNAPSHOT_TAG, '{"state": 1}')


@pytest.mark.parametrize("stale", ["seq", "hash"])
def test_a_lean_append_from_a_head_that_moved_writes_nothing_at_all(store: EventStore, stale: str) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.put_secret("g1", "seed", "salt")
    seq, head_hash = _head(store, "g1")
    with store.command() as tx:
        tx.append("g1", seq, a_turn(), SUMMARY, '{"a": 1}', head_hash)
    before = _counts(store.engine, "g1")
    # A writer that saw the game before that append: a stale seq, or the right seq but another hash.
    expected = (1, head_hash) if stale == "seq" else (3, "f" * 64)
    with pytest.raises(ConcurrencyConflict), store.command() as tx:
        tx.append("g1", expected[0], [a_knock()], FINISHED, '{"b": 2}', expected[1])
    assert _counts(store.engine, "g1") == before  # no event, same snapshot, the seed still kept
    with store.read() as tx:
        row = tx.get_game("g1")
    assert row is not None and (row.head_seq, row.status) == (3, "active")


@pytest.mark.parametrize("count", [1, VALUES_ROWS, VALUES_ROWS + 1, 40])
def test_a_lean_append_of_any_length_stores_exactly_its_events(store: EventStore, count: int) -> None:
    """On PostgreSQL an append of a few events names each value, a longer one passes one array
    per column: either way the rows are the events, chained, and the games row and snapshot move."""
    new_game(store)
    with store.transaction() as tx:
        tx.put_secret("g1", "seed", "salt")
    seq, head_hash = _head(store, "g1")
    events = [a_knock("ann" if index % 2 else "bob") for index in range(count)]
    with store.command() as tx:
        stored = tx.append("g1", seq, events, SUMMARY, '{"a": 1}', head_hash)
    with store.read() as tx:
        loaded = tx.load("g1")
        load = tx.load_for_command("g1")
        whole = tx.load_for_command("g1", use_snapshot=False)  # the whole chain verified up to the games row's head
    assert loaded[1:] == stored and [(s.seq, s.type) for s in stored] == [(2 + i, "Knocked") for i in range(count)]
    assert whole.events == loaded and [s.data["player"] for s in stored] == [e.player for e in events]
    assert (load.snapshot, load.snapshot_seq, load.head_hash) == ('{"a": 1}', count + 1, stored[-1].hash)


def test_the_lean_append_that_ends_a_game_forgets_its_seed_in_the_same_write(store: EventStore) -> None:
    new_game(store)
    with store.transaction() as tx:
        tx.put_secret("g1", "seed", "salt")
    with store.command() as tx:
        tx.append("g1", 1, [a_knock()], FINISHED, None, _head(store, "g1")[1])
    assert _counts(store.engine, "g1") == (2, 0, 0)


def test_without_a_transaction_on_postgresql_only_a_lean_append_writes(store: EventStore, engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("on SQLite a command is a transaction")
    new_game(store)
    with pytest.raises(RuntimeError, match="lean append"), store.command() as tx:
        tx.append("g1", 1, a_turn(), SUMMARY)  # without expected_hash: not one statement
    head = _head(store, "g1")[1]
    with pytest.raises(RuntimeError, match="lean append"), store.read() as tx:  # reads write nothing
        tx.append("g1", 1, a_turn(), SUMMARY, None, head)
    with pytest.raises(RuntimeError, match="lean append"), store.read() as tx:
        tx.put_secret("g1", "seed", "salt")
    assert _counts(store.engine, "g1") == (1, 0, 0)


def test_a_command_and_the_bots_reply_are_two_statements_on_postgresql(store: EventStore, engine: Engine) -> None:
    """The load reads the head signature with the rest; the append writes everything (the move, the
    bots' reply, their signature and their notice) in one statement."""
    from sqlalchemy import event

    from scat_core.domain.bots import heuristic_move
    from scat_core.service import GameService

    service = GameService(store)
    game = service.playing.create_game((PlayerSeat(name="ann"), PlayerSeat(name="bob", is_bot=True)), seed=3)
    statements: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    state = game.state
    for _ in range(6):
        assert state.turn is not None and state.players[state.turn].name == "ann"
        command = heuristic_move(state, state.turn)
        assert command is not None
        statements.clear()
        outcome = service.playing.act(game.game_id, command)
        if engine.dialect.name == "postgresql":  # (the notice is in the write: tests/store/test_notify.py)
            assert len(statements) == 2, statements
        assert not any(s.lstrip().startswith("SELECT head_signatures") for s in statements)  # read in the load
        state = outcome.state
        if state.status == "finished":
            break
    assert service.audit(game.game_id).ok
    with store.read() as tx:
        stored = tx.read_signature(game.game_id)
        head = tx.head(game.game_id)
    assert stored is not None and head == (stored.seq, stored.hash)
    assert store.keys.check(stored.signature, game.game_id, *head) == "valid"


def test_a_commands_statement_is_converted_once_by_psycopg(store: EventStore, engine: Engine) -> None:
    """psycopg caches the conversion of a statement's `%(name)s` (to `$n`) only when it is given at
    most MAX_CACHED_STATEMENT_PARAMS parameters: every command's statement keeps within it, so the
    second command of a shape converts nothing (PSYCOPG_CACHED_PARAMS in appending.py)."""
    psycopg_queries = pytest.importorskip("psycopg._queries")
    assert PSYCOPG_CACHED_PARAMS <= psycopg_queries.MAX_CACHED_STATEMENT_PARAMS
    assert all(len(pg_command(count)[1]) <= PSYCOPG_CACHED_PARAMS for count in range(1, VALUES_ROWS + 2))
    if engine.dialect.name != "postgresql":
        return
    new_game(store)
    with store.transaction() as tx:
        tx.put_secret("g1", "seed", "salt")
    converted = []
    for _ in range(3):
        seq, head_hash = _head(store, "g1")
        with store.command() as tx:
            tx.append("g1", seq, [a_knock(), a_knock("bob")], SUMMARY, None, head_hash)
        converted.append(psycopg_queries._query2pg.cache_info().misses)
    assert converted[1] == converted[2]  # the third command's statement was the second's: no conversion


def test_a_lean_append_over_a_head_signature_changed_since_the_load_writes_nothing(store: EventStore) -> None:
    """The signature the load read is the one the append signs over: changed meanwhile, nothing is written."""
    new_game(store)
    with store.transaction() as tx:
        tx.put_secret("g1", "seed", "salt")
    seq, head_hash = _head(store, "g1")
    before = _counts(store.engine, "g1")
    with store.read() as tx:
        load = tx.load_for_command("g1")
    with store.engine.begin() as other:  # the signature replaced meanwhile (outside scat)
        other.execute(text("UPDATE head_signatures SET signature = :s WHERE game_id = 'g1' AND kind = 'head'"),
                      {"s": store.keys.sign_head("g1", seq, head_hash).signature[::-1]})
    with pytest.raises(ConcurrencyConflict), store.command() as tx:
        tx.append("g1", seq, a_turn(), SUMMARY, '{"a": 1}', load.head_hash)
    assert _counts(store.engine, "g1") == before
    with store.read() as tx:
        row = tx.get_game("g1")
    assert row is not None and row.head_seq == seq


def _bot_game(game_id: str, seed: int) -> tuple[list[dict[str, Any]], GameState]:
    chance, state, events = SeededChance(str(seed), "salt"), GameState(), []
    command: Any = CreateGame(game_id=game_id, players=(PlayerSeat(name="ann", is_bot=True),
                                                       PlayerSeat(name="bob", is_bot=True)))
    while command is not None:
        produced, state = decide_and_evolve(state, command, chance)
        events += produced
        command = next_bot_command(state)
    return records_for(events, game_id), state


def test_the_bulk_path_adds_whole_games_verbatim_with_their_rows_and_snapshots(store: EventStore) -> None:
    games = [_bot_game(f"bulk{n}", n) for n in range(3)]
    batch = [(records, summarize(state), snapshot_json(state)) for records, state in games]
    batch[1] = ([{**r, "data": canonical_json(r["data"]).decode()} for r in batch[1][0]], *batch[1][1:])  # as text
    with store.transaction() as tx:
        assert tx.append_many(batch) == sum(len(records) for records, _ in games)
    with store.read() as tx:
        for records, state in games:
            game_id = records[0]["game_id"]
            assert tx.load_raw(game_id) == records and audit_records(records).ok
            row = tx.get_game(game_id)
            assert row is not None and (row.head_seq, row.head_hash, row.winner) == (
                records[-1]["seq"], records[-1]["hash"], state.winner)
            loaded = tx.load_for_command(game_id)
            assert loaded.snapshot == snapshot_json(state) and loaded.events == []
    with pytest.raises(ConcurrencyConflict), store.transaction() as tx:  # one of them exists: nothing added
        tx.append_many([(_bot_game("bulk9", 9)[0], batch[0][1], None), batch[0]])
    with store.read() as tx:
        assert tx.count_games() == 3 and tx.head("bulk9") is None
