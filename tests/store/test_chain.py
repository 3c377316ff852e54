"""The stored-record format is the store's (#9 point 2): records are checked here, the domain audits events."""

from __future__ import annotations

import ast
from pathlib import Path

import scat_core.domain.audit as domain_audit
from scat_core.domain.audit import audit_events
from scat_core.records.chain import audit_records, verify_chain
from tests.support.domain import create, records_for


def test_the_domain_audit_takes_events_and_knows_no_record_format() -> None:
    tree = ast.parse(Path(domain_audit.__file__).read_text(encoding="utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not imported & {"hashing", "pydantic", "scat_core.records.stored_log"}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert not names & {"RECORD_FIELDS", "chain_hash", "GENESIS_HASH", "ValidationError"}


def test_records_are_checked_by_the_store_then_their_events_audited_by_the_domain() -> None:
    history = create(("A", "B"), dealer="B", hands={"A": "AS KS 4S", "B": "KH QH 2C"})
    game_id = history[0].game_id  # type: ignore[union-attr]
    records = records_for(history, game_id)
    assert audit_events(game_id, history).ok and audit_records(records).ok and verify_chain(records) == (None, None)
    altered = [*records[:1], {**records[1], "recorded_at": records[1]["recorded_at"].replace("Z", "0Z")}, *records[2:]]
    report = audit_records(altered)
    assert (report.ok, report.first_bad_seq) == (False, 2)
    assert report.problems == ["event 2 has a recorded_at that is not a UTC time like 2026-01-31T12:00:00.000000Z: "
                               f"{altered[1]['recorded_at']!r}"]
