"""The triggers that make the logs immutable (the games' events, the accounts' events): which are
missing or altered, and restoring them.

Migrations 0001 (events; 0016 again, with the TRUNCATE trigger of each of its partitions on
PostgreSQL) and 0009 (account_events) create them; anyone who can write the
database can also drop them (or replace one by a trigger that does nothing). `scat db check`
finds that and `scat db upgrade` restores them, with the same definitions as those migrations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Connection


@dataclass(frozen=True)
class Guarded:
    """An append-only table: its name, the message its triggers refuse with, and what makes an
    inserted row the same event as a stored one (SQLite's INSERT OR REPLACE guard)."""

    table: str
    message: str
    same_event: str

    @property
    def function(self) -> str:
        """The PostgreSQL function its triggers run."""
        return f"scat_{self.table}_immutable"

    def sqlite(self) -> dict[str, str]:
        """Its SQLite triggers by name, as the migration creates them."""
        t, refuse = self.table, f"SELECT RAISE(ABORT, '{self.message}')"
        return {
            f"{t}_no_update": f"CREATE TRIGGER {t}_no_update BEFORE UPDATE ON {t} BEGIN {refuse}; END",
            f"{t}_no_delete": f"CREATE TRIGGER {t}_no_delete BEFORE DELETE ON {t} BEGIN {refuse}; END",
            f"{t}_no_replace": (  # INSERT OR REPLACE deletes the row it replaces without a DELETE trigger
                f"CREATE TRIGGER {t}_no_replace BEFORE INSERT ON {t} "
                f"WHEN EXISTS (SELECT 1 FROM {t} WHERE {self.same_event}) "
                f"OR EXISTS (SELECT 1 FROM {t} WHERE position = NEW.position) "
                f"BEGIN SELECT RAISE(ABORT, '{self.message}: that event exists already'); END"),
        }

    def pg_function(self) -> str:
        """The PostgreSQL function its triggers run, as the migration creates it."""
        return (f"CREATE OR REPLACE FUNCTION {self.function}() RETURNS trigger LANGUAGE plpgsql AS $$ "
                f"BEGIN RAISE EXCEPTION '{self.message}' USING ERRCODE = 'restrict_violation'; END $$")

    def pg(self) -> dict[str, tuple[str, tuple[str, ...]]]:
        """Its PostgreSQL triggers by name: the definition, and what pg_get_triggerdef must say of it."""
        t, run = self.table, f"EXECUTE FUNCTION {self.function}()"
        return {
            f"{t}_no_update_delete": (f"CREATE TRIGGER {t}_no_update_delete BEFORE UPDATE OR DELETE ON {t} "
                                      f"FOR EACH ROW {run}", ("BEFORE", "UPDATE", "DELETE", "FOR EACH ROW")),
            **self.pg_truncate(t),
        }

    def pg_truncate(self, table: str) -> dict[str, tuple[str, tuple[str, ...]]]:
        """The PostgreSQL trigger refusing TRUNCATE on `table` (the guarded table or one of its
        partitions: a statement trigger is not cloned to partitions, unlike a row trigger)."""
        return {f"{table}_no_truncate": (
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} FOR EACH STATEMENT "
            f"EXECUTE FUNCTION {self.function}()", ("BEFORE", "TRUNCATE", "FOR EACH STATEMENT"))}


#: The append-only tables: the games' events (0001) and the accounts' (0009).
GUARDED = (
    Guarded("events", "events are immutable", "game_id = NEW.game_id AND seq = NEW.seq"),
    Guarded("account_events", "account events are immutable", "seq = NEW.seq"),
)
_BY_TABLE = {guarded.table: guarded for guarded in GUARDED}


def immutability_triggers(dialect: str, table: str = "events") -> frozenset[str]:
    """The names of `table`'s immutability triggers on `dialect` ("sqlite" or "postgresql")."""
    guarded = _BY_TABLE[table]
    return frozenset(guarded.sqlite() if dialect == "sqlite" else guarded.pg())


def immutability_functions() -> frozenset[str]:
    """The PostgreSQL functions the immutability triggers run."""
    return frozenset(guarded.function for guarded in GUARDED)


def _words(sql: str) -> str:
    return " ".join(re.sub(r"\s+", " ", sql).strip().lower().split())


def trigger_problems(conn: Connection) -> dict[str, str]:
    """Each immutability trigger (or, on PostgreSQL, function) that is missing or not as scat
    defines it: name -> what is wrong."""
    problems: dict[str, str] = {}
    for guarded in GUARDED:
        problems.update(_sqlite_problems(conn, guarded) if conn.dialect.name == "sqlite"
                        else _pg_problems(conn, guarded))
    return problems


def _sqlite_problems(conn: Connection, guarded: Guarded) -> dict[str, str]:
    found = {str(name): str(sql or "") for name, sql in conn.execute(
        text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = :table"),
        {"table": guarded.table})}
    return {name: ("missing" if name not in found else "altered")
            for name, sql in guarded.sqlite().items() if _words(found.get(name, "")) != _words(sql)}


def partitions_of(conn: Connection, table: str) -> list[str]:
    """The partitions of `table` on PostgreSQL (migration 0016 partitions the events), by name; [] if none."""
    return [str(row[0]) for row in conn.execute(text(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = to_regclass(:table) ORDER BY c.relname"), {"table": table})]


def _pg_expected(conn: Connection, guarded: Guarded) -> dict[str, tuple[str, str, str, tuple[str, ...]]]:
    """Every PostgreSQL trigger `guarded` needs: its name in a report -> (its table, its trigger
    name, the definition that restores it, what pg_get_triggerdef must say of it). On each
    partition: the clone of the parent's row trigger (restored by making the parent's anew) and
    a TRUNCATE trigger of its own."""
    wanted = {name: (guarded.table, name, sql, means) for name, (sql, means) in guarded.pg().items()}
    row_triggers = {name: (sql, means) for name, (sql, means) in guarded.pg().items() if "FOR EACH ROW" in means}
    for partition in partitions_of(conn, guarded.table):
        for name, (sql, means) in row_triggers.items():
            wanted[f"{partition}.{name}"] = (partition, name, sql, means)
        for name, (sql, means) in guarded.pg_truncate(partition).items():
            wanted[name] = (partition, name, sql, means)
    return wanted


def _pg_problems(conn: Connection, guarded: Guarded) -> dict[str, str]:
    problems: dict[str, str] = {}
    body = conn.execute(text("SELECT prosrc FROM pg_proc WHERE oid = to_regprocedure(:function)"),
                        {"function": f"{guarded.function}()"}).scalar()
    if body is None or f"raise exception '{guarded.message}'" not in _words(str(body)):
        problems[f"{guarded.function}()"] = "missing" if body is None else "altered"
    wanted = _pg_expected(conn, guarded)
    found = {(str(table), str(name)): str(definition) for table, name, definition in conn.execute(text(
        "SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE c.oid = ANY(CAST(:tables AS regclass[])) AND NOT t.tgisinternal AND t.tgenabled <> 'D'"),
        {"tables": sorted({table for table, _, _, _ in wanted.values()})})}
    for name, (table, trigger, _, means) in wanted.items():
        definition = found.get((table, trigger))
        if definition is None:
            problems[name] = "missing or disabled"
        elif not all(word in definition for word in means) or f"{guarded.function}()" not in definition:
            problems[name] = "altered"
    return problems


def restore_triggers(conn: Connection) -> list[str]:
    """Recreate every immutability trigger (and function) that is missing or altered; the names restored."""
    problems = trigger_problems(conn)
    for guarded in GUARDED if problems else ():
        if conn.dialect.name == "sqlite":
            for name, sql in guarded.sqlite().items():
                if name in problems:
                    conn.execute(text(f"DROP TRIGGER IF EXISTS {name}"))
                    conn.execute(text(sql))
            continue
        wanted = _pg_expected(conn, guarded)
        if f"{guarded.function}()" in problems or any(name in problems for name in wanted):
            conn.execute(text(guarded.pg_function()))
        remade: set[tuple[str, str]] = set()
        for name, (table, trigger, sql, _) in wanted.items():
            if name not in problems:
                continue
            if table != guarded.table and trigger in guarded.pg():  # a partition's clone: the parent's made anew
                table = guarded.table
            if (table, trigger) not in remade:
                conn.execute(text(f"DROP TRIGGER IF EXISTS {trigger} ON {table}"))
                conn.execute(text(sql))
                remade.add((table, trigger))
    return sorted(problems)
