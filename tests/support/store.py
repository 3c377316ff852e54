"""Store helpers shared by tests: what someone with full access to the database could do."""

from __future__ import annotations

from sqlalchemy import Engine, text


def drop_event_triggers(engine: Engine) -> None:
    """What someone with full access to the database could do first."""
    if engine.dialect.name == "sqlite":
        listing = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'"
        drop = 'DROP TRIGGER "{}"'
    else:
        listing = ("SELECT tgname FROM pg_trigger WHERE tgrelid = 'events'::regclass "
                   "AND NOT tgisinternal")
        drop = 'DROP TRIGGER "{}" ON events'
    with engine.begin() as conn:
        names: list[str] = [str(row[0]) for row in conn.execute(text(listing))]
        for name in names:
            conn.execute(text(drop.format(name)))
    assert names, "the events table had no triggers to drop"
