"""A process does not fold again the state it wrote or read (service/loading.py, #13): the
state it kept is used only at that very head (game, seq and hash) of the log it reads, and a
command plays on exactly the state the events fold to, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from sqlalchemy import text

from scat_cli.wiring import open_database
from scat_core.domain import events as ev
from scat_core.domain import snapshot
from scat_core.domain.bots import heuristic_move
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.evolve import fold
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.records.errors import HistoryDamaged
from scat_core.service import GameService, loading
from scat_core.service.loading import snapshot_json, summarize
from tests.support.databases import migrated
from tests.support.services import a_game_in_play, next_move
from tests.support.store import drop_event_triggers


def _decodes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The snapshots decoded from now on, as a list that grows."""
    decoded: list[str] = []
    real = snapshot.decode

    def decode(state: str) -> object:
        decoded.append(state)
        return real(state)

    monkeypatch.setattr(snapshot, "decode", decode)
    return decoded


def _truth(service: GameService, game_id: str) -> object:
    return fold(stored.event for stored in service.reading.history(game_id))


def test_the_commands_of_one_process_decode_no_snapshot_and_play_on_the_full_fold(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=2)
    decoded = _decodes(monkeypatch)
    for _ in range(6):
        next_move(service, game_id)
    assert service.playing.look(game_id) == _truth(service, game_id)
    assert decoded == []  # each command played on the state the one before it wrote
    loading.forget_kept_states()  # as a new process: it decodes the snapshot once, then plays on what it wrote
    for _ in range(3):
        next_move(service, game_id)
    assert len(decoded) == 1 and service.playing.look(game_id) == _truth(service, game_id)
    assert service.audit(game_id).ok
    service.store.engine.dispose()


def _appended_past_the_service(service: GameService, game_id: str, with_snapshot: bool) -> GameState:
    """Another writer's move (an append past the service, as another process makes it), with a
    snapshot or without; the state after it."""
    state, head = service.playing.look(game_id), service.reading.history(game_id)[-1].hash
    with service.store.read() as tx:
        secret = tx.get_secret(game_id)
    assert secret is not None and state.turn is not None
    command = heuristic_move(state, state.turn)
    assert command is not None
    events, after = decide_and_evolve(state, command, SeededChance(secret.seed, secret.salt))
    with service.store.command() as tx:
        tx.append(game_id, state.version, events, summarize(after), snapshot_json(after) if with_snapshot else None,
                  head)
    return after


def test_a_snapshot_of_a_head_this_process_did_not_write_is_decoded(db_url: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Another writer moved the game (an append past the service, as another process makes it):
    the state kept here is of the head before, so the new snapshot is decoded and played on."""
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=3)
    after = _appended_past_the_service(service, game_id, with_snapshot=True)
    decoded = _decodes(monkeypatch)
    assert service.playing.look(game_id) == after == _truth(service, game_id)
    assert decoded == [snapshot_json(after)]
    next_move(service, game_id)  # on the state that look decoded: not decoded again
    assert len(decoded) == 1 and service.playing.look(game_id) == _truth(service, game_id)
    service.store.engine.dispose()


def test_a_snapshot_replaced_outside_scat_at_the_head_kept_is_not_read(db_url: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The state kept is the fold of the events that end at that head's hash: a snapshot row
    changed since (same head, another state) is not what this process plays on."""
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=4)
    truth = _truth(service, game_id)
    forged = snapshot.encode(service.playing.look(game_id).evolved({"kitty": 99}))
    with service.store.engine.begin() as conn:
        conn.execute(text("UPDATE game_snapshots SET state = :s WHERE game_id = :g"), {"s": forged, "g": game_id})
    decoded = _decodes(monkeypatch)
    assert service.playing.look(game_id) == truth and decoded == []
    service.store.engine.dispose()


def test_a_command_at_a_head_this_process_kept_folds_no_event_even_far_from_the_snapshot(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots are written every few events only (loading.SNAPSHOT_EVERY): the state kept at the
    head saves the fold of the events since; another process (the cache forgotten) folds them."""
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=2)
    folded: list[int] = []
    real = loading.fold

    def fold_counting(events: Iterable[ev.Event], state: GameState | None = None) -> GameState:
        events = list(events)
        folded.append(len(events))
        return real(events, state) if state is not None else real(events)

    monkeypatch.setattr(loading, "fold", fold_counting)
    for _ in range(2 * loading.SNAPSHOT_EVERY):
        next_move(service, game_id)
    assert folded == []
    loading.forget_kept_states()
    assert service.playing.look(game_id) == _truth(service, game_id)
    assert len(folded) == 1 and folded[0] < loading.SNAPSHOT_EVERY + 8


def test_the_events_another_writer_appended_without_a_snapshot_are_folded_onto_the_state_kept(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The snapshot is the one this process saw: the command reads the log from it, and folds only
    the event appended past the service onto the state kept (no snapshot decoded)."""
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=3)
    after = _appended_past_the_service(service, game_id, with_snapshot=False)
    decoded = _decodes(monkeypatch)
    assert service.playing.look(game_id) == after == _truth(service, game_id)
    next_move(service, game_id)
    assert decoded == [] and service.playing.look(game_id) == _truth(service, game_id)
    service.store.engine.dispose()


def test_an_event_altered_between_the_snapshot_and_the_head_kept_is_refused_by_that_process(db_url: str) -> None:
    """The command of a process that kept the state re-checks every event from the snapshot it
    saw, as a load from the snapshot does: it does not play on past the damage."""
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=4)
    with service.store.read() as tx:
        head = tx.head(game_id)
        snapshot_seq = tx.load_for_command(game_id).snapshot_seq
    assert head is not None and snapshot_seq < head[0] - 1
    drop_event_triggers(service.store.engine)
    with service.store.engine.begin() as conn:
        conn.execute(text("UPDATE events SET data = replace(data, '\"player\":\"', '\"player\":\"x') "
                          "WHERE game_id = :g AND seq = :s"), {"g": game_id, "s": head[0] - 1})
    with pytest.raises(HistoryDamaged, match="altered|chain"):
        next_move(service, game_id)
    service.store.engine.dispose()
