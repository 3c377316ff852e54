"""Schema drift: how a migrated database differs from the store's tables.py, on SQLite and PostgreSQL.

Alembic's `compare_metadata` sees tables, columns, types, defaults, indexes and unique
constraints; CHECK constraints, triggers and functions it does not see, so they are compared
here by name (and, on SQLite, which keeps them as written, by text); nor the WHERE of a partial
index (tables.py's `info["where"]`), compared here with the index's definition in the database.
"""

from __future__ import annotations

import re
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import CheckConstraint, MetaData, inspect, text
from sqlalchemy.engine import Connection

from scat_core.store.sql.schema import FUNCTIONS, TRIGGERS, comparison_options, on_dialect
from scat_core.store.sql.tables import metadata


def autogenerate_drift(conn: Connection, target: MetaData = metadata) -> list[Any]:
    """What `alembic revision --autogenerate` would write to bring the database to `target`."""
    options = {**comparison_options(conn.dialect.name), "target_metadata": target}
    return list(compare_metadata(MigrationContext.configure(conn, opts=options), target))


def _words(sql: str) -> str:
    return " ".join(re.sub(r"\s+", " ", sql).split()).lower()


def check_constraint_drift(conn: Connection, target: MetaData = metadata) -> list[str]:
    """The CHECK constraints declared in `target` and missing from the database, or the other way round."""
    dialect, found_by_table = conn.dialect.name, inspect(conn)
    problems = []
    for table in target.sorted_tables:
        declared = {
            str(c.name): str(c.sqltext) for c in table.constraints
            if isinstance(c, CheckConstraint) and on_dialect(c, dialect)
        }
        found = {str(c["name"]): str(c["sqltext"]) for c in found_by_table.get_check_constraints(table.name)}
        missing, extra = sorted(declared.keys() - found.keys()), sorted(found.keys() - declared.keys())
        problems += [f"{table.name}.{name}: declared, not in the database" for name in missing]
        problems += [f"{table.name}.{name}: in the database, not declared" for name in extra]
        if dialect == "sqlite":  # kept as written: the condition itself must match
            problems += [
                f"{table.name}.{name}: the database checks {found[name]!r}, tables.py {declared[name]!r}"
                for name in sorted(declared.keys() & found.keys()) if _words(declared[name]) != _words(found[name])
            ]
    return problems


def _predicate(sql: str) -> str:
    """The WHERE of an index's definition, without brackets, casts, quotes' case or spaces ("" if none)."""
    where = re.split(r"\bwhere\b", _words(sql), maxsplit=1)
    return re.sub(r"[\s()]|::[a-z ]+", "", where[1]) if len(where) == 2 else ""


def partial_index_drift(conn: Connection, target: MetaData = metadata) -> list[str]:
    """The indexes whose WHERE in the database is not the one tables.py declares (`info["where"]`, or none)."""
    problems = []
    for table in target.sorted_tables:
        for index in table.indexes:
            if not on_dialect(index, conn.dialect.name):
                continue
            query = ("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = :name" if conn.dialect.name ==
                     "sqlite" else "SELECT indexdef FROM pg_indexes WHERE indexname = :name AND schemaname = "
                     "current_schema()")
            found = conn.execute(text(query), {"name": index.name}).scalar()
            if found is None:
                continue  # missing: Alembic's comparison names it
            declared = _predicate(f"where {index.info['where']}") if "where" in index.info else ""
            if _predicate(str(found)) != declared:
                problems.append(f"index {index.name}: the database's WHERE is {_predicate(str(found))!r}, "
                                f"tables.py's {declared!r}")
    return problems


def trigger_drift(conn: Connection) -> list[str]:
    """The triggers (and PostgreSQL trigger functions) of the store's schema missing or extra in the database."""
    dialect = conn.dialect.name
    if dialect == "sqlite":
        rows = conn.execute(text("SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'"))
        functions: set[str] = set()
    else:
        rows = conn.execute(text(
            "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND n.nspname = current_schema() "
            "AND t.tgparentid = 0"  # a partition's clone of its parent's row trigger is the parent's
        ))
        functions = {str(name) for (name,) in conn.execute(text(
            "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = current_schema()"
        ))}
    found = {(str(table), str(name)) for table, name in rows}
    declared = {(table, name) for table, names in TRIGGERS[dialect].items() for name in names}
    problems = [f"trigger {t}.{n}: declared, not in the database" for t, n in sorted(declared - found)]
    problems += [f"trigger {t}.{n}: in the database, not declared" for t, n in sorted(found - declared)]
    problems += [f"function {n}(): declared, not in the database" for n in sorted(FUNCTIONS[dialect] - functions)]
    problems += [f"function {n}(): in the database, not declared" for n in sorted(functions - FUNCTIONS[dialect])]
    return problems


def schema_drift(conn: Connection, target: MetaData = metadata) -> list[str]:
    """Every difference between the database and the store's schema (empty: none)."""
    found = [repr(diff) for diff in autogenerate_drift(conn, target)]
    return found + check_constraint_drift(conn, target) + trigger_drift(conn) + partial_index_drift(conn, target)

