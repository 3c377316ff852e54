"""Rewriting a whole history in the database, hashes recomputed: only the head signature can tell.

Someone with full access to the database drops the triggers and replaces a game's log by
another history that obeys every rule (R1..R26), with a consistent hash chain and read
model. The audit's rule checks pass; the head's signature, made with a key kept outside the
database, does not verify: the audit fails, and no move is ever signed over such a history.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, text

from scat_cli.wiring import open_database
from scat_core.domain.bots import next_bot_command
from scat_core.domain.commands import CreateGame
from scat_core.domain.decide import decide_and_evolve
from scat_core.domain.errors import RuleViolation
from scat_core.domain.events import PlayerSeat, to_record
from scat_core.domain.options import GameOptions
from scat_core.domain.shuffle import SeededChance
from scat_core.domain.state import GameState
from scat_core.records.errors import HistoryDamaged
from scat_core.records.signing import KeyRing
from scat_core.records.stored_log import GENESIS_HASH, canonical_json, chain_hash, utc_now
from scat_core.service import GameService
from scat_core.store.sql.event_store import EventStore
from tests.support.databases import migrated
from tests.support.services import a_game_in_play, as_a_scat_before_signed_games
from tests.support.store import drop_event_triggers

BOTS = ("ann", "bob", "cy")


def forged_records(game_id: str, seed: str) -> list[dict[str, Any]]:
    """A complete, legal game of three bots under `game_id`, chained as the store would."""
    chance = SeededChance(seed, "0f" * 16)
    create = CreateGame(game_id=game_id, players=tuple(PlayerSeat(name=n, is_bot=True) for n in BOTS),
                        options=GameOptions(lives=1))
    events, state = decide_and_evolve(GameState(), create, chance)
    while (command := next_bot_command(state)) is not None:
        more, state = decide_and_evolve(state, command, chance)
        events += more
    records, previous, now = [], GENESIS_HASH, utc_now()
    for seq, event in enumerate(events, start=1):
        event_type, version, data = to_record(event)
        envelope = {"game_id": game_id, "seq": seq, "type": event_type, "schema_version": version,
                    "recorded_at": now, "data": data}
        digest = chain_hash(previous, envelope)
        records.append({**envelope, "prev_hash": previous, "hash": digest})
        previous = digest
    return records


def replace_history(engine: Engine, game_id: str, records: list[dict[str, Any]]) -> None:
    """Delete a game's log and insert `records` instead, read model included (triggers dropped)."""
    drop_event_triggers(engine)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM game_snapshots WHERE game_id = :g"), {"g": game_id})
        conn.execute(text("DELETE FROM events WHERE game_id = :g"), {"g": game_id})
        for r in records:
            conn.execute(
                text("INSERT INTO events (game_id, seq, type, schema_version, data, recorded_at, prev_hash, hash) "
                     "VALUES (:game_id, :seq, :type, :schema_version, :data, :recorded_at, :prev_hash, :hash)"),
                {**r, "data": canonical_json(r["data"]).decode("utf-8")},
            )
        conn.execute(text("UPDATE games SET head_seq = :s, head_hash = :h, status = 'finished', turn = NULL, "
                          "players = :p, bots = :p WHERE game_id = :g"),
                     {"s": records[-1]["seq"], "h": records[-1]["hash"], "p": '["ann", "bob", "cy"]', "g": game_id})


def test_a_whole_history_rewritten_with_recomputed_hashes_fails_the_audit_on_its_signature(db_url: str) -> None:
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service)
    assert service.audit(game_id).signature == "valid"

    replace_history(service.store.engine, game_id, forged_records(game_id, "271828"))

    report = service.audit(game_id)
    assert not report.ok and report.signature == "invalid"
    assert "the history was rewritten" in report.problems[0]
    # Every other check passes: the forged history obeys the rules and its chain holds.
    assert report.seed_verified and report.first_bad_seq is None and len(report.problems) == 1
    service.store.engine.dispose()


def test_a_history_cut_at_a_move_boundary_fails_its_audit_and_no_move_is_signed_over_it(db_url: str) -> None:
    service = open_database(migrated(db_url))
    engine = service.store.engine
    game_id = a_game_in_play(service)
    records = service.archive.export_records(game_id, running=True)
    kept = [r for r in records if r["seq"] <= records[-1]["seq"] - 2]  # the last move's events gone
    while kept[-1]["type"] != "CardDiscarded":
        kept.pop()
    drop_event_triggers(engine)
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM events WHERE game_id = :g AND seq > :s"), {"g": game_id, "s": kept[-1]["seq"]})
        conn.execute(text("UPDATE games SET head_seq = :s, head_hash = :h WHERE game_id = :g"),
                     {"s": kept[-1]["seq"], "h": kept[-1]["hash"], "g": game_id})
        conn.execute(text("DELETE FROM game_snapshots WHERE game_id = :g"), {"g": game_id})  # a cache: folded again

    report = service.audit(game_id)
    assert not report.ok and report.signature == "invalid"
    assert f"the log ends at event {kept[-1]['seq']}" in report.problems[0]

    state = service.playing.look(game_id)
    from scat_core.domain.bots import heuristic_move

    command = heuristic_move(state, state.turn or "")
    assert command is not None
    with pytest.raises(HistoryDamaged, match="the head signature is of event"):
        service.playing.act(game_id, command)
    assert [r["seq"] for r in service.archive.export_records(game_id, running=True)] == [r["seq"] for r in kept]
    assert service.audit(game_id).signature == "invalid"
    engine.dispose()


def test_a_removed_signature_of_a_game_made_before_signed_games_reads_unsigned_stays_unsigned_and_fails_strict(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose first event does not say it is signed (made before GameCreated.signed); one
    that says so fails instead (test_signed_creation.py)."""
    as_a_scat_before_signed_games(monkeypatch)
    service = open_database(migrated(db_url))
    game_id = a_game_in_play(service, moves=3)
    with service.store.engine.begin() as conn:
        conn.execute(text("DELETE FROM head_signatures WHERE game_id = :g"), {"g": game_id})

    report = service.audit(game_id)
    assert report.ok and report.signature == "unsigned"
    strict = service.audit(game_id, strict=True)
    assert not strict.ok and strict.problems == ["the head is not signed (strict audit)"]

    from scat_core.domain.bots import heuristic_move

    state = service.playing.look(game_id)
    command = heuristic_move(state, state.turn or "")
    assert command is not None
    service.playing.act(game_id, command)  # an unsigned game may be played on, and is never signed afresh
    assert service.audit(game_id).signature == "unsigned"
    service.store.engine.dispose()


def test_a_database_moved_to_another_key_audits_unknown_key_and_refuses_moves_until_trusted(
    db_url: str, tmp_path: Path
) -> None:
    here = open_database(migrated(db_url))
    game_id = a_game_in_play(here, moves=3)
    there_keys = KeyRing(tmp_path / "elsewhere" / "key.pem")
    there = GameService(EventStore(here.store.engine, there_keys))

    report = there.audit(game_id)
    assert report.ok and report.signature == "unknown key" and report.signature_key_id == here.store.keys.key_id
    assert not there.audit(game_id, strict=True).ok

    from scat_core.domain.bots import heuristic_move

    state = there.playing.look(game_id)
    command = heuristic_move(state, state.turn or "")
    assert command is not None
    with pytest.raises(RuleViolation, match="does not trust"):
        there.playing.act(game_id, command)

    assert there_keys.trust(here.store.keys.public_key)
    assert there.audit(game_id).signature == "valid" and there.audit(game_id).signature_signer == "trusted"
    there.playing.act(game_id, command)
    after = there.audit(game_id)
    assert after.ok and (after.signature, after.signature_signer) == ("valid", "this installation")
    assert here.audit(game_id).signature == "unknown key"  # the first machine does not trust the second
    here.store.engine.dispose()


def test_a_game_stored_before_signing_existed_audits_clean_as_unsigned_after_the_upgrade(db_url: str) -> None:
    from alembic import command

    from scat_core.store.sql.database import alembic_config, ensure_schema, make_engine

    engine = make_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0001")
    records = forged_records("0123456789", "31")  # as a scat without signing stored it
    with engine.begin() as conn:
        for r in records:
            conn.execute(
                text("INSERT INTO events (game_id, seq, type, schema_version, data, recorded_at, prev_hash, hash) "
                     "VALUES (:game_id, :seq, :type, :schema_version, :data, :recorded_at, :prev_hash, :hash)"),
                {**r, "data": canonical_json(r["data"]).decode("utf-8")},
            )
        conn.execute(text("INSERT INTO games (game_id, status, players, bots, turn, hand_number, dealer, created_at, "
                          "last_activity, winner, head_seq, head_hash, protected) VALUES (:g, 'finished', :p, :p, "
                          "NULL, 1, NULL, :t, :t, NULL, :s, :h, false)"),
                     {"g": "0123456789", "p": '["ann", "bob", "cy"]', "t": records[0]["recorded_at"],
                      "s": records[-1]["seq"], "h": records[-1]["hash"]})
    ensure_schema(engine)  # the first command of the new scat upgrades the schema

    report = GameService(EventStore(engine)).audit("0123456789")
    assert report.ok and report.seed_verified and report.signature == "unsigned" and report.problems == []
    engine.dispose()
