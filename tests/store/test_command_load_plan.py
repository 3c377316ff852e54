"""The command's load query on PostgreSQL plans a long game as it plans a short one (#13), and
reads one partition of the events (#42).

A command costs the same on the 20th event as on the 2,000th only if the database reads the
same few rows the same way: after ANALYZE, a game holding most of the log must not make the
planner expect (and sort, and re-plan at every command for) a large share of its events. And
it costs the same with 200,000 games as with 1,000 only if it reads the game's own partition
(migration 0016), never the others.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Engine

from scat_core.domain.snapshot import SNAPSHOT_TAG
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.log_reads import COMMAND_LOAD
from scat_core.store.sql.schema import partition_names
from tests.support.store import SUMMARY, a_turn, game_created


def _plan(engine: Engine, game_id: str, from_seq: int | None) -> dict[str, Any]:
    params = {"game_id": game_id, "state_version": SNAPSHOT_TAG[0], "rules_version": SNAPSHOT_TAG[1],
              "from_seq": from_seq}
    with engine.connect() as conn:
        plan = conn.exec_driver_sql("EXPLAIN (ANALYZE, FORMAT JSON) " + COMMAND_LOAD, params).scalar_one()
    if isinstance(plan, str):
        plan = json.loads(plan)
    return dict(plan[0]["Plan"])


def _events_scans(node: dict[str, Any]) -> list[tuple[str, str]]:
    """(the relation, its index condition or "") of every scan of the events (its partitions) that ran: an
    index scan, or a bitmap heap scan (the condition its index scan met)."""
    found = []
    if str(node.get("Relation Name", "")).startswith("events") and node.get("Actual Loops", 0) > 0:
        found.append((str(node["Relation Name"]), str(node.get("Index Cond", node.get("Recheck Cond", "")))))
    for child in node.get("Plans", ()):
        found += _events_scans(child)
    return found


def test_the_load_of_a_long_game_is_planned_like_a_short_one(store: EventStore, engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("the plan of PostgreSQL's load query")
    with store.transaction() as tx:
        tx.append("long", 0, [game_created("long"), *a_turn() * 1000], SUMMARY, '{"state": 1}')
        for index in range(100):  # a few games in every partition of the events, as any database has
            tx.append(f"short{index}", 0, [game_created(f"short{index}"), *a_turn() * 5], SUMMARY, '{"state": 1}')
    with store.read() as tx:
        heads = {game: tx.head(game)[0] for game in ("long", "short0")}  # type: ignore[index]
    for analyzed in (False, True):
        if analyzed:
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.exec_driver_sql("ANALYZE")
        for kept in (False, True):  # from the snapshot's event, or from the head a process kept (the same here)
            long, short = (_plan(engine, game, heads[game] if kept else None) for game in ("long", "short0"))
            # before: after ANALYZE the long game expected ~2/3 of the log (sorted, re-planned every time)
            assert long["Plan Rows"] == short["Plan Rows"], (long["Plan Rows"], short["Plan Rows"])
            # before: with few rows known, the first event wanted was a join filter over every event of the game;
            # and every partition of the events was read (the join on an expression of the game id)
            scans = _events_scans(long)
            assert len(scans) == 1 and "seq >=" in scans[0][1], scans
            assert scans[0][0] in partition_names("events"), scans
