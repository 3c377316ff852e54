"""How Alembic compares a database with the store's schema (tables.py), per database engine.

tables.py is the one description of the schema: migrations/env.py gives its `metadata` to
Alembic (so `alembic revision --autogenerate` starts from it) and the tests compare a database
migrated to head with it on SQLite and PostgreSQL. What differs between the two engines is
declared in tables.py through `info`: an object only one engine has (`info["dialects"]`) and
a server default each engine writes its own way (`info["server_default"]`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import Column
from sqlalchemy.schema import SchemaItem

from scat_core.store.sql.tables import metadata
from scat_core.store.sql.triggers import immutability_functions, immutability_triggers

#: On PostgreSQL the events, the snapshots (migration 0016) and the games read model with its seats
#: (0017) are hash-partitioned by game id into PARTITIONS partitions each: `events_p00` ...
#: `events_p15`, `game_snapshots_p00` ..., `games_p00` ..., `game_seats_p00` ...; a game's rows
#: are in the partition of the same number in each.
PARTITIONS = 16
PARTITIONED = ("events", "game_snapshots", "games", "game_seats")
_PARTITION = re.compile(rf"^({'|'.join(PARTITIONED)})_p\d\d$")


def partition_names(table: str) -> list[str]:
    """The PostgreSQL partitions of `table` (one of PARTITIONED)."""
    return [f"{table}_p{remainder:02d}" for remainder in range(PARTITIONS)]


#: The triggers each table carries, per engine: the immutability ones of the events table
#: (migration 0001, restored by triggers.py). The push of each new head of a game is no
#: trigger (0006's was dropped by 0007): a move's one statement sends it, other writes announce
#: it after their commit (notify.py).
#: The account log's (migration 0009) refuse UPDATE and DELETE the same way.
TRIGGERS: dict[str, dict[str, frozenset[str]]] = {
    dialect: {table: immutability_triggers(dialect, table) for table in ("events", "account_events")}
    for dialect in ("sqlite", "postgresql")
}
# A statement trigger is not cloned to partitions: each refuses TRUNCATE itself (row triggers
# are the parent's, cloned by PostgreSQL).
TRIGGERS["postgresql"].update({partition: frozenset({f"{partition}_no_truncate"})
                               for partition in partition_names("events")})
#: The functions those triggers run (PostgreSQL), in the schema's own namespace.
FUNCTIONS: dict[str, frozenset[str]] = {"sqlite": frozenset(), "postgresql": immutability_functions()}


def on_dialect(item: SchemaItem, dialect: str) -> bool:
    """Whether the schema object `item` of tables.py exists on the engine `dialect` (all, unless its info says)."""
    dialects = item.info.get("dialects")
    return dialects is None or dialect in dialects


def include_object_for(dialect: str) -> Callable[..., bool]:
    """Alembic's `include_object` hook for `dialect`: leave out the objects tables.py keeps for another engine."""

    def include_object(item: Any, name: str | None, type_: str, reflected: bool, compare_to: Any) -> bool:
        if reflected:  # found in the database: compared (with its tables.py twin, if any), but a partition
            return not (type_ == "table" and name is not None and _PARTITION.match(name))
        return on_dialect(item, dialect)

    return include_object


def _normalized(sql: str | None) -> str:
    """A server default's SQL without quotes, brackets, spaces or case (engines reword it)."""
    return re.sub(r"[\s()'\"]", "", sql or "").lower()


def compare_server_default(
    context: Any, inspected_column: Any, metadata_column: Column[Any], inspected_default: str | None,
    metadata_default: Any, rendered_metadata_default: str | None,
) -> bool | None:
    """Alembic's hook: a default declared per engine (`info["server_default"]`) against the database's."""
    declared = metadata_column.info.get("server_default")
    if declared is None:
        return None  # Alembic's own comparison
    expected = declared.get(context.dialect.name)
    return _normalized(inspected_default) != _normalized(expected)


def comparison_options(dialect: str) -> dict[str, Any]:
    """`context.configure` options comparing a `dialect` database with tables.py (env.py and the tests)."""
    return {
        "target_metadata": metadata,
        "compare_type": True,
        "compare_server_default": compare_server_default,
        "include_object": include_object_for(dialect),
    }
