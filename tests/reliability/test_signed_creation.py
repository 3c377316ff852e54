"""A game made by a signing scat says so in its first event (GameCreated.signed), so a head
signature deleted in the database is damage, not an older "unsigned" game (#23 item 4), on
SQLite and PostgreSQL: the audit fails naming it, every command refuses, export and import
refuse, and a cut tail is not healed by deleting its signature too. Games made before it
still audit as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from scat_cli.wiring import open_database
from scat_core.domain.bots import heuristic_move
from scat_core.domain.errors import RuleViolation
from scat_core.domain.evolve import fold
from scat_core.records.chain import audit_records
from scat_core.records.errors import HistoryDamaged
from scat_core.service import GameService, loading
from tests.support.databases import migrated
from tests.support.domain import made_before_signed_games
from tests.support.services import a_game_in_play, as_a_scat_before_signed_games
from tests.support.store import drop_event_triggers

REMOVED = "its head signature was removed"


def _delete_signature(engine: Engine, game_id: str) -> None:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM head_signatures WHERE game_id = :g AND kind = 'head'"), {"g": game_id})


def _finished_game(service: GameService) -> str:
    """A game of bots played to its end."""
    from scat_core.domain.events import PlayerSeat

    return service.playing.create_game([PlayerSeat(name=n, is_bot=True) for n in ("ann", "bob")], seed=7).game_id


def test_a_new_games_first_event_says_its_heads_are_signed_and_that_cannot_be_edited_out(db_url: str) -> None:
    service = open_database(migrated(db_url))
    game_id = _finished_game(service)
    records = service.archive.export_records(game_id)
    assert records[0]["data"]["signed"] is True
    edited = [{**records[0], "data": {k: v for k, v in records[0]["data"].items() if k != "signed"}}, *records[1:]]
    report = audit_records(edited)  # the field is in event 1's hash, which every later hash chains to
    assert not report.ok and report.first_bad_seq == 1 and "altered" in report.problems[0]
    service.store.engine.dispose()


def test_a_deleted_head_signature_of_a_game_made_signed_fails_its_audit_and_every_command(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=4)
    head = service.reading.history(game_id)[-1]
    _delete_signature(engine, game_id)
    loading.forget_kept_states()

    report = service.audit(game_id)
    assert not report.ok and report.signature == "missing"
    assert report.problems == ["the head signature was removed, but event 1 says every head of this game is "
                               "signed: its history was cut or rewritten outside scat"]
    with pytest.raises(HistoryDamaged, match=REMOVED):
        service.playing.look(game_id, "ann")
    state = fold(stored.event for stored in service.reading.history(game_id))
    command = heuristic_move(state, state.turn or "")
    assert command is not None
    with pytest.raises(HistoryDamaged, match=REMOVED):
        service.playing.act(game_id, command)
    with pytest.raises(HistoryDamaged, match=REMOVED):
        service.archive.export_records(game_id, running=True)
    assert service.reading.history(game_id)[-1] == head  # nothing written
    engine.dispose()


def test_a_cut_tail_whose_signature_was_deleted_too_is_not_healed(db_url: str) -> None:
    """The red team's cut: the last move's events deleted, the games row lowered, the snapshot and the
    head signature deleted. The audit said OK ("head NOT signed") and the next move went on from there."""
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service, moves=6)
    records = service.archive.export_records(game_id, running=True)
    kept = [r for r in records if r["seq"] <= records[-1]["seq"] - 2]
    while kept[-1]["type"] != "CardDiscarded":
        kept.pop()
    drop_event_triggers(engine)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM events WHERE game_id = :g AND seq > :s"), {"g": game_id, "s": kept[-1]["seq"]})
        conn.execute(text("UPDATE games SET head_seq = :s, head_hash = :h WHERE game_id = :g"),
                     {"s": kept[-1]["seq"], "h": kept[-1]["hash"], "g": game_id})
        conn.execute(text("DELETE FROM game_snapshots WHERE game_id = :g"), {"g": game_id})
    _delete_signature(engine, game_id)
    loading.forget_kept_states()

    report = service.audit(game_id)
    assert not report.ok and report.signature == "missing"
    state = fold(stored.event for stored in service.reading.history(game_id))
    command = heuristic_move(state, state.turn or "")
    assert command is not None
    with pytest.raises(HistoryDamaged, match=REMOVED):
        service.playing.act(game_id, command)
    assert [stored.seq for stored in service.reading.history(game_id)] == [r["seq"] for r in kept]
    engine.dispose()


def test_an_export_of_a_game_made_signed_without_its_head_signature_is_refused_at_import(
        db_url: str, tmp_path: Path) -> None:
    service = open_database(migrated(db_url))
    game_id = _finished_game(service)
    records = service.archive.export_records(game_id)
    elsewhere = open_database(migrated(f"sqlite:///{tmp_path / 'elsewhere.db'}"))
    unsigned = [*records[:-1], {k: v for k, v in records[-1].items() if k != "head_signature"}]
    with pytest.raises(RuleViolation, match="carries no head_signature"):
        elsewhere.import_records(unsigned)
    assert elsewhere.game_list() == []
    older = elsewhere.import_records(made_before_signed_games(records))  # an older scat's unsigned export
    assert older.ok and older.signature == "unsigned"
    service.store.engine.dispose()
    elsewhere.store.engine.dispose()


def test_a_game_made_before_signed_games_still_audits_ok_without_its_signature(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    as_a_scat_before_signed_games(monkeypatch)
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=3)
    assert "signed" not in service.archive.export_records(game_id, running=True)[0]["data"]
    _delete_signature(service.store.engine, game_id)
    report = service.audit(game_id)
    assert report.ok and report.signature == "unsigned"
    service.store.engine.dispose()
