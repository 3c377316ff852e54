"""The triggers that make the events table immutable: which are missing or altered, and restoring them.

Migration 0001 creates them; anyone who can write the database can also drop them (or replace
one by a trigger that does nothing). `scat db check` finds that and `scat db upgrade` restores
them, with the same definitions as 0001.
"""

from __future__ import annotations

import re

from sqlalchemy import text
from sqlalchemy.engine import Connection

_SQLITE: dict[str, str] = {
    "events_no_update": """
    CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'events are immutable'); END
    """,
    "events_no_delete": """
    CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are immutable'); END
    """,
    "events_no_replace": """
    CREATE TRIGGER events_no_replace BEFORE INSERT ON events
    WHEN EXISTS (SELECT 1 FROM events WHERE game_id = NEW.game_id AND seq = NEW.seq)
      OR EXISTS (SELECT 1 FROM events WHERE position = NEW.position)
    BEGIN SELECT RAISE(ABORT, 'events are immutable: that event exists already'); END
    """,
}

_PG_FUNCTION = """
    CREATE OR REPLACE FUNCTION scat_events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'events are immutable' USING ERRCODE = 'restrict_violation';
    END
    $$
"""
_PG: dict[str, str] = {
    "events_no_update_delete": """
    CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION scat_events_immutable()
    """,
    "events_no_truncate": """
    CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION scat_events_immutable()
    """,
}
#: What each PostgreSQL trigger's definition (pg_get_triggerdef) must say.
_PG_MEANS = {
    "events_no_update_delete": ("BEFORE", "UPDATE", "DELETE", "FOR EACH ROW"),
    "events_no_truncate": ("BEFORE", "TRUNCATE", "FOR EACH STATEMENT"),
}


#: The function the PostgreSQL immutability triggers run.
IMMUTABILITY_FUNCTION = "scat_events_immutable"


def immutability_triggers(dialect: str) -> frozenset[str]:
    """The names of the events table's immutability triggers on `dialect` ("sqlite" or "postgresql")."""
    return frozenset(_SQLITE if dialect == "sqlite" else _PG)


def _words(sql: str) -> str:
    return " ".join(re.sub(r"\s+", " ", sql).strip().lower().split())


def trigger_problems(conn: Connection) -> dict[str, str]:
    """Each immutability trigger that is missing or not as scat defines it: name -> what is wrong."""
    if conn.dialect.name == "sqlite":
        found = {str(name): str(sql or "") for name, sql in conn.execute(
            text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'"))}
        return {name: ("missing" if name not in found else "altered")
                for name, sql in _SQLITE.items() if _words(found.get(name, "")) != _words(sql)}
    problems: dict[str, str] = {}
    body = conn.execute(text(
        "SELECT prosrc FROM pg_proc WHERE oid = to_regprocedure('scat_events_immutable()')")).scalar()
    if body is None or "raise exception 'events are immutable'" not in _words(str(body)):
        problems["scat_events_immutable()"] = "missing" if body is None else "altered"
    found = {str(name): str(definition) for name, definition in conn.execute(text(
        "SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger "
        "WHERE tgrelid = to_regclass('events') AND NOT tgisinternal AND tgenabled <> 'D'"))}
    for name, means in _PG_MEANS.items():
        definition = found.get(name)
        if definition is None:
            problems[name] = "missing or disabled"
        elif not all(word in definition for word in means) or "scat_events_immutable()" not in definition:
            problems[name] = "altered"
    return problems


def restore_triggers(conn: Connection) -> list[str]:
    """Recreate every immutability trigger that is missing or altered; the names restored."""
    problems = trigger_problems(conn)
    if not problems:
        return []
    if conn.dialect.name == "sqlite":
        for name in problems:
            conn.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
            conn.execute(text(_SQLITE[name]))
        return sorted(problems)
    conn.execute(text(_PG_FUNCTION))
    for name in _PG:
        if name in problems:
            conn.execute(text(f"DROP TRIGGER IF EXISTS {name} ON events"))
            conn.execute(text(_PG[name]))
    return sorted(problems)
