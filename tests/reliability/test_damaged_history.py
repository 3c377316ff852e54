"""#14.5: a command refuses a damaged history instead of healing it, on SQLite and PostgreSQL.

Each attack is a direct database edit (the triggers dropped first where the log is edited):
a deleted tail, a lowered or removed games row, an event altered in place. Before this, the
next move appended after whatever was left and re-wrote the games row, so the damage was
forgotten and the game audited clean. Now every command checks, before it appends, that the
log chains and ends where the games row's head (seq, hash) says, and writes nothing if not.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import Engine, text

from scat_cli.errors import exit_code
from scat_cli.wiring import open_database
from scat_core.domain.events import PlayerSeat
from scat_core.records.errors import HistoryDamaged
from scat_core.service import loading
from scat_core.service.loading import SNAPSHOT_EVERY
from tests.support.databases import migrated
from tests.support.services import a_game_in_play, next_move
from tests.support.store import drop_event_triggers


def _delete_tail(engine: Engine, game_id: str) -> None:
    drop_event_triggers(engine)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM events WHERE game_id = :g AND seq = "
                          "(SELECT max(seq) FROM events WHERE game_id = :g)"), {"g": game_id})


def _lower_games_row(engine: Engine, game_id: str) -> None:
    with engine.begin() as conn:  # the row points at the event before the last, as if unplayed
        conn.execute(text("UPDATE games SET head_seq = head_seq - 1, head_hash = (SELECT prev_hash FROM events "
                          "WHERE game_id = :g AND seq = games.head_seq) WHERE game_id = :g"), {"g": game_id})


def _remove_games_row(engine: Engine, game_id: str) -> None:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM games WHERE game_id = :g"), {"g": game_id})


def _alter_the_last_event(engine: Engine, game_id: str) -> None:
    drop_event_triggers(engine)
    with engine.begin() as conn:  # the last move made by someone else
        conn.execute(text("UPDATE events SET data = replace(data, '\"player\":\"', '\"player\":\"x') "
                          "WHERE game_id = :g AND seq = (SELECT max(seq) FROM events WHERE game_id = :g)"),
                     {"g": game_id})


def _alter_the_deal_and_drop_the_snapshot(engine: Engine, game_id: str) -> None:
    drop_event_triggers(engine)
    with engine.begin() as conn:  # hand 1's deck reordered: other cards in every hand
        conn.execute(text("UPDATE events SET data = replace(data, '\"deck\":[\"', '\"deck\":[\"2C\",\"') "
                          "WHERE game_id = :g AND seq = 2"), {"g": game_id})
        conn.execute(text("DELETE FROM game_snapshots WHERE game_id = :g"), {"g": game_id})


def _drop_the_snapshot_then_delete_the_tail(engine: Engine, game_id: str) -> None:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM game_snapshots WHERE game_id = :g"), {"g": game_id})
    _delete_tail(engine, game_id)


def _delete_a_middle_event(engine: Engine, game_id: str) -> None:
    """A middle event deleted and the snapshot with it: the rest no longer chains."""
    drop_event_triggers(engine)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM events WHERE game_id = :g AND seq = 5"), {"g": game_id})
        conn.execute(text("DELETE FROM game_snapshots WHERE game_id = :g"), {"g": game_id})


ATTACKS: dict[str, tuple[Callable[[Engine, str], None], str]] = {
    "a deleted tail": (_delete_tail, "events were removed"),
    "a lowered games row": (_lower_games_row, "goes on to event"),
    "a removed games row": (_remove_games_row, "no entry"),
    "an altered last event": (_alter_the_last_event, "altered"),
    "an altered deal, its snapshot removed": (_alter_the_deal_and_drop_the_snapshot, "event 2 was altered"),
    "a deleted tail, its snapshot removed": (_drop_the_snapshot_then_delete_the_tail, "events were removed"),
    "a deleted middle event": (_delete_a_middle_event, "missing"),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_move_on_a_damaged_history_is_refused_and_writes_nothing(db_url: str, attack: str) -> None:
    damage, reason = ATTACKS[attack]
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service)
    damage(engine, game_id)
    with engine.connect() as conn:
        before = conn.execute(text("SELECT count(*) FROM events WHERE game_id = :g"), {"g": game_id}).scalar_one()
        row_before = conn.execute(text("SELECT * FROM games WHERE game_id = :g"), {"g": game_id}).all()

    with pytest.raises(HistoryDamaged, match=reason) as caught:
        next_move(service, game_id)
    assert exit_code(caught.value) == 1 and caught.value.game_id == game_id
    with pytest.raises(HistoryDamaged):  # and again: nothing was healed by the refusal
        service.playing.play_bots(game_id)

    with engine.connect() as conn:
        after = conn.execute(text("SELECT count(*) FROM events WHERE game_id = :g"), {"g": game_id}).scalar_one()
        row_after = conn.execute(text("SELECT * FROM games WHERE game_id = :g"), {"g": game_id}).all()
    assert (after, row_after) == (before, row_before)
    assert not service.audit(game_id).ok  # the damage is still there for the audit to report
    engine.dispose()


def test_an_undamaged_game_plays_on_after_the_checks(db_url: str) -> None:
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=4)
    next_move(service, game_id)
    assert service.audit(game_id).ok


def test_bots_owing_moves_are_not_resumed_on_a_damaged_history(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    created = service.playing.create_game([PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob",
                                                                                           is_bot=True)], seed=3)
    # Lowering the finished bot game's row: as if its last moves were never recorded in the list.
    _lower_games_row(engine, created.game_id)
    with pytest.raises(HistoryDamaged, match="goes on to event"):
        service.playing.play_bots(created.game_id)
    engine.dispose()


def test_an_event_altered_before_the_snapshot_is_not_played_on_and_the_audit_still_names_it(db_url: str) -> None:
    """A command checks only the events after the snapshot (constant time), so an old event
    altered in place goes unnoticed by it; but it plays on the snapshot, folded when the log
    verified, never on the altered event, and the audit, which never uses snapshots, fails."""
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=2 * SNAPSHOT_EVERY)  # a snapshot well after event 2
    true_state = service.playing.look(game_id)
    drop_event_triggers(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE events SET data = replace(data, '\"deck\":[\"', '\"deck\":[\"2C\",\"') "
                          "WHERE game_id = :g AND seq = 2"), {"g": game_id})
    assert service.playing.look(game_id) == true_state
    next_move(service, game_id)
    report = service.audit(game_id)
    assert not report.ok and report.first_bad_seq == 2
    engine.dispose()


def test_a_damaged_game_is_passed_over_by_wait_any_and_still_refused_by_show(db_url: str) -> None:
    """One game damaged outside scat does not keep `wait --any` from a player's other games."""
    service = open_database(migrated(db_url))
    seats = [PlayerSeat(name="ann"), PlayerSeat(name="bob")]
    damaged, healthy = (service.new_game(seats, dealer="ann").game_id for _ in range(2))  # bob to act in both
    drop_event_triggers(service.store.engine)
    with service.store.engine.begin() as conn:
        conn.execute(text("UPDATE events SET data = replace(data, '\"deck\":[\"', '\"deck\":[\"2C\",\"') "
                          "WHERE game_id = :g AND type = 'HandDealt'"), {"g": damaged})
    loading.forget_kept_states()  # as another process: the history is read again
    waited = service.wait_for_any_turn("bob", timeout=0)
    assert waited.shown is not None and waited.shown.game_id == healthy
    with pytest.raises(HistoryDamaged):
        service.show(damaged, "bob")
    service.store.engine.dispose()
