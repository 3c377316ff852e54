"""The command's load query on PostgreSQL plans a long game as it plans a short one (#13).

A command costs the same on the 20th event as on the 2,000th only if the database reads the
same few rows the same way: after ANALYZE, a game holding most of the log must not make the
planner expect (and sort, and re-plan at every command for) a large share of its events.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Engine

from scat_core.domain.snapshot import SNAPSHOT_TAG
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.log_reads import COMMAND_LOAD
from tests.support.store import SUMMARY, a_turn, game_created


def _plan(engine: Engine, game_id: str, from_seq: int | None) -> dict[str, Any]:
    params = {"game_id": game_id, "state_version": SNAPSHOT_TAG[0], "rules_version": SNAPSHOT_TAG[1],
              "from_seq": from_seq}
    with engine.connect() as conn:
        plan = conn.exec_driver_sql("EXPLAIN (FORMAT JSON) " + COMMAND_LOAD, params).scalar_one()
    if isinstance(plan, str):
        plan = json.loads(plan)
    return dict(plan[0]["Plan"])


def _index_conditions(node: dict[str, Any]) -> list[str]:
    """The index conditions of every scan of the events' (game_id, seq) index in a plan."""
    found = [str(node["Index Cond"])] if node.get("Index Name") == "uq_events_game_seq" else []
    for child in node.get("Plans", ()):
        found += _index_conditions(child)
    return found


def test_the_load_of_a_long_game_is_planned_like_a_short_one(store: EventStore, engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("the plan of PostgreSQL's load query")
    with store.transaction() as tx:
        tx.append("long", 0, [game_created("long"), *a_turn() * 1000], SUMMARY, '{"state": 1}')
        for index in range(5):
            tx.append(f"short{index}", 0, [game_created(f"short{index}"), *a_turn() * 5], SUMMARY, '{"state": 1}')
    for analyzed in (False, True):
        if analyzed:
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.exec_driver_sql("ANALYZE")
        for from_seq in (None, 5):  # from the snapshot's event, or from the head a process kept
            long, short = _plan(engine, "long", from_seq), _plan(engine, "short0", from_seq)
            # before: after ANALYZE the long game expected ~2/3 of the log (sorted, re-planned every time)
            assert long["Plan Rows"] == short["Plan Rows"], (long["Plan Rows"], short["Plan Rows"])
            # before: with few rows known, the first event wanted was a join filter over every event of the game
            conditions = _index_conditions(long)
            assert len(conditions) == 1 and "seq >=" in conditions[0], conditions
