"""A game's messages are read newest first through their own index (`ix_events_messages`, migration
0020), on SQLite and PostgreSQL: `show`'s last lines and a player's rate of them cost one probe,
not a walk back through every event of a long game nobody talks in, and the read the store runs
is the one planned so (its type a literal: a generic plan of PostgreSQL may use the index too).
The messages read are those of the log, newest first, at most as many as asked."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Engine, event, text

from scat_core.domain.events import MessageSaid
from scat_core.store.sql.event_store import EventStore
from tests.support.store import SUMMARY, a_turn, game_created


def _long_quiet_game(store: EventStore) -> None:
    """Game "long": 400 moves, a message at its start and at its middle."""
    with store.transaction() as tx:
        tx.append("long", 0, [game_created("long"), MessageSaid(player="ann", text="hi"), *a_turn() * 100,
                              MessageSaid(player="bob", text="half way"), *a_turn() * 100], SUMMARY, None)


def _messages_read(store: EventStore, engine: Engine) -> tuple[list[str], str, dict[str, Any]]:
    """The texts of the last messages of "long" as the store reads them, and the statement it ran."""
    ran: list[tuple[str, Any]] = []

    def seen(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        ran.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", seen)
    try:
        with store.read() as tx:
            said = tx.load_between("long", 0, 402, ("MessageSaid",), newest_first=True, limit=5)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    statement, parameters = next((s, p) for s, p in ran if "MessageSaid" in s)
    return [stored.event.text for stored in said], statement, parameters  # type: ignore[union-attr]


def _indexes_used(engine: Engine, statement: str, parameters: Any) -> list[str]:
    """The definitions of the indexes the database plans `statement` with (a generic plan on PostgreSQL)."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            plan = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters).all()
            names = [word for row in plan for word in str(row[-1]).split() if word.startswith("ix_") or
                     word.startswith("sqlite_autoindex")]
            return [str(conn.execute(text("SELECT coalesce(sql, name) FROM sqlite_master WHERE name = :n"),
                                     {"n": name}).scalar_one()) for name in names]
        conn.exec_driver_sql("SET plan_cache_mode = force_generic_plan")
        found = conn.exec_driver_sql("EXPLAIN (FORMAT JSON) " + statement, parameters).scalar_one()
        plan = json.loads(found) if isinstance(found, str) else found

        def names(node: dict[str, Any]) -> list[str]:
            return ([node["Index Name"]] if "Index Name" in node else []) + [
                name for child in node.get("Plans", ()) for name in names(child)]

        defined = text("SELECT indexdef FROM pg_indexes WHERE indexname = :n AND schemaname = current_schema()")
        return [str(conn.execute(defined, {"n": name}).scalar_one()) for name in names(plan[0]["Plan"])]


def test_a_games_last_messages_are_read_through_the_index_of_messages(store: EventStore, engine: Engine) -> None:
    _long_quiet_game(store)
    for index in range(20):  # other games, as any database has
        with store.transaction() as tx:
            tx.append(f"other{index}", 0, [game_created(f"other{index}"), *a_turn() * 3], SUMMARY, None)
    said, statement, parameters = _messages_read(store, engine)
    assert said == ["half way", "hi"]
    used = _indexes_used(engine, statement, parameters)
    assert used and all("MessageSaid" in definition for definition in used), used  # the partial index alone


def test_a_read_of_messages_gives_the_logs_up_to_the_event_asked_newest_first(
    store: EventStore, engine: Engine,
) -> None:
    _long_quiet_game(store)  # events 1 to 403
    with store.transaction() as tx:
        tx.append("long", 403, [MessageSaid(player="ann", text=f"line {n}") for n in range(7)], SUMMARY, None)
    said, _, _ = _messages_read(store, engine)  # up to event 402: none of the lines after it
    assert said == ["half way", "hi"]
    with store.read() as tx:
        newest = tx.load_between("long", 0, 410, ("MessageSaid",), newest_first=True, limit=5)
        mixed = tx.load_between("long", 1, 405, ("MessageSaid", "CardDrawn"))
    assert [stored.event.text for stored in newest] == [f"line {n}" for n in range(6, 1, -1)]  # type: ignore[union-attr]
    assert [stored.seq for stored in mixed] == [2, *range(3, 203, 2), 203, *range(204, 404, 2), 404, 405]
