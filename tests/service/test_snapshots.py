"""Snapshots beside the read model (#13), on SQLite and PostgreSQL: written every few events,
used by commands, never trusted beyond what the events prove, rebuilt when out of date."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, text

from scat_cli.wiring import open_database
from scat_core.domain import snapshot
from scat_core.domain.evolve import fold
from scat_core.service import loading
from scat_core.service.loading import SNAPSHOT_EVERY
from tests.support.databases import migrated
from tests.support.services import a_game_in_play, import_running, next_move


def _snapshot_row(engine: Engine, game_id: str) -> tuple[int, str, int, str, str]:
    with engine.connect() as conn:
        row = conn.execute(text("SELECT seq, hash, state_version, rules_version, state FROM game_snapshots "
                                "WHERE game_id = :g"), {"g": game_id}).one()
    return int(row[0]), str(row[1]), int(row[2]), str(row[3]), str(row[4])


def _set_snapshot(engine: Engine, game_id: str, **values: object) -> None:
    assignments = ", ".join(f"{key} = :{key}" for key in values)
    with engine.begin() as conn:
        conn.execute(text(f"UPDATE game_snapshots SET {assignments} WHERE game_id = :g"), {"g": game_id, **values})


def test_a_snapshot_is_kept_every_few_events_and_equals_the_fold_up_to_its_event(db_url: str) -> None:
    """Not every append writes one: the snapshot trails the head by fewer than SNAPSHOT_EVERY
    events (plus the last append's own), and a command of another process folds those few."""
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=0)
    seqs = set()
    for _ in range(30):
        next_move(service, game_id)
        history = service.reading.history(game_id)
        seq, head_hash, version, rules, state = _snapshot_row(service.store.engine, game_id)
        assert (seq, head_hash) == (history[seq - 1].seq, history[seq - 1].hash)
        assert (version, rules) == snapshot.SNAPSHOT_TAG
        assert snapshot.decode(state) == fold(s.event for s in history[:seq])
        assert history[-1].seq - seq < SNAPSHOT_EVERY + 8  # 8: more than one append adds (a move, the bots')
        seqs.add(seq)
    assert len(seqs) > 1 and history[-1].seq > 2 * SNAPSHOT_EVERY  # rewritten as the game went on, not at each move
    assert len(seqs) < 30
    loading.forget_kept_states()  # as another process: the snapshot, then the events after it
    assert service.playing.look(game_id) == fold(s.event for s in service.reading.history(game_id))
    service.store.engine.dispose()


def test_a_snapshot_of_other_rules_or_unreadable_is_not_used_and_is_rebuilt(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=6)
    truth = service.playing.look(game_id)
    forged = snapshot.encode(truth.evolved({"kitty": 99}))
    for change in ({"rules_version": "an older scat", "state": forged}, {"state_version": 0, "state": forged},
                   {"state": "{not json"}, {"state": snapshot.encode(truth.evolved({"version": 3}))}):
        _set_snapshot(engine, game_id, **change)
        loading.forget_kept_states()  # as another process, which has not kept the state it wrote (service/loading.py)
        assert service.playing.look(game_id) == truth  # folded from the events instead
        next_move(service, game_id)
        truth = fold(s.event for s in service.reading.history(game_id))
        assert _snapshot_row(engine, game_id)[2:] == (*snapshot.SNAPSHOT_TAG, snapshot.encode(truth))
    assert service.audit(game_id).ok
    engine.dispose()


def test_a_snapshot_behind_the_head_is_caught_up_from_the_events_after_it(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=3)
    old = _snapshot_row(engine, game_id)
    for _ in range(3):
        next_move(service, game_id)
    _set_snapshot(engine, game_id, seq=old[0], hash=old[1], state=old[4])
    truth = fold(s.event for s in service.reading.history(game_id))
    assert service.playing.look(game_id) == truth
    next_move(service, game_id)
    assert service.audit(game_id).ok
    engine.dispose()


def test_an_import_keeps_a_snapshot_of_the_imported_game(db_url: str, tmp_path: Path) -> None:
    service, game_id = import_running(db_url, tmp_path, protect=False)
    history = service.reading.history(game_id)
    seq, head_hash, *tag, state = _snapshot_row(service.store.engine, game_id)
    assert (seq, head_hash, tuple(tag)) == (history[-1].seq, history[-1].hash, snapshot.SNAPSHOT_TAG)
    assert snapshot.decode(state) == fold(s.event for s in history) == service.playing.look(game_id)
    service.store.engine.dispose()
