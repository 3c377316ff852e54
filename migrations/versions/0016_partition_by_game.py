"""On PostgreSQL, the events and the snapshots are hash-partitioned by game id (#42 part 3).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06

Each game's events and snapshot live in one of PARTITIONS partitions (`events_p00` ...,
`game_snapshots_p00` ...), chosen by the hash of its id: a command, a `show` or an audit of a
game reads one partition's index and heap, whose size is the database's divided by
PARTITIONS, and vacuum, index depth and a cold read follow the partition, not the whole log.
Every unique key includes the game id, as partitioning requires: the events' primary key is
(game_id, position) (the position still comes from the one sequence, so each is distinct,
but no key enforces it; `ix_events_position` finds the newest), `uq_events_game_seq` is
unchanged. The triggers that refuse UPDATE and DELETE are the
parent's, cloned to each partition by PostgreSQL; TRUNCATE is refused on the parent and on each
partition (a statement trigger is not cloned). The rows are copied in the migration (a
database of 12 million events takes a few minutes: plan the upgrade as a short downtime). The
games read model stays one table: its lists order every game by activity, and one rematch a
game is a unique index over all games (docs/scale.md). SQLite is unchanged.

The downgrade copies the rows back into plain tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PARTITIONS = 16
_EVENT_COLUMNS = "position, game_id, seq, type, schema_version, data, recorded_at, prev_hash, hash, tx_id"
_SNAPSHOT_COLUMNS = "game_id, seq, hash, state_version, rules_version, state, mac"
_EVENTS = """
    CREATE TABLE events (
        position BIGINT NOT NULL DEFAULT nextval('events_position_seq'),
        game_id VARCHAR(64) NOT NULL,
        seq INTEGER NOT NULL,
        type VARCHAR(64) NOT NULL,
        schema_version INTEGER NOT NULL,
        data TEXT NOT NULL,
        recorded_at VARCHAR(40) NOT NULL,
        prev_hash VARCHAR(64) NOT NULL,
        hash VARCHAR(64) NOT NULL,
        tx_id BIGINT NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
        CONSTRAINT events_pkey PRIMARY KEY {key},
        CONSTRAINT uq_events_game_seq UNIQUE (game_id, seq),
        CONSTRAINT ck_events_seq_positive CHECK (seq >= 1)
    ) {partitioned}
"""
_SNAPSHOTS = """
    CREATE TABLE game_snapshots (
        game_id VARCHAR(64) NOT NULL,
        seq INTEGER NOT NULL,
        hash VARCHAR(64) NOT NULL,
        state_version INTEGER NOT NULL,
        rules_version VARCHAR(64) NOT NULL,
        state TEXT NOT NULL,
        mac VARCHAR(64),
        CONSTRAINT game_snapshots_pkey PRIMARY KEY (game_id)
    ) {partitioned}
"""
_REFUSE = "EXECUTE FUNCTION scat_events_immutable()"


def partition_names(table: str) -> list[str]:
    """The partitions of `table`, as this migration names them."""
    return [f"{table}_p{remainder:02d}" for remainder in range(PARTITIONS)]


def _set_aside(table: str) -> str:
    """Rename `table` (and its constraints and indexes, whose names the new table takes) out of the way."""
    old = f"{table}_before_0016"
    op.execute(f"ALTER TABLE {table} RENAME TO {old}")
    for (name,) in op.get_bind().exec_driver_sql(
            "SELECT conname FROM pg_constraint WHERE conrelid = to_regclass(%(t)s)", {"t": old}).all():
        op.execute(f'ALTER TABLE {old} RENAME CONSTRAINT "{name}" TO "{name}_before_0016"')
    for (name,) in op.get_bind().exec_driver_sql(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = %(t)s",
            {"t": old}).all():
        if not str(name).endswith("_before_0016"):  # a constraint's index was renamed with it
            op.execute(f'ALTER INDEX "{name}" RENAME TO "{name}_before_0016"')
    return old


def _events_triggers(partitions: list[str]) -> None:
    """The immutability triggers (scat_core/store/sql/triggers.py): the parent's, and TRUNCATE on each partition."""
    op.execute(f"CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events FOR EACH ROW {_REFUSE}")
    op.execute(f"CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT {_REFUSE}")
    for partition in partitions:
        op.execute(f"CREATE TRIGGER {partition}_no_truncate BEFORE TRUNCATE ON {partition} "
                   f"FOR EACH STATEMENT {_REFUSE}")


def _rebuild(partitioned: bool) -> None:
    """Make events and game_snapshots anew, partitioned or not, with every row of the old ones."""
    op.execute("ALTER SEQUENCE events_position_seq OWNED BY NONE")  # kept when the old table goes
    old_events, old_snapshots = _set_aside("events"), _set_aside("game_snapshots")
    clause = "PARTITION BY HASH (game_id)" if partitioned else ""
    op.execute(_EVENTS.format(key="(game_id, position)" if partitioned else "(position)", partitioned=clause))
    op.execute(_SNAPSHOTS.format(partitioned=clause))
    for table in ("events", "game_snapshots") if partitioned else ():
        for remainder, partition in enumerate(partition_names(table)):
            op.execute(f"CREATE TABLE {partition} PARTITION OF {table} "
                       f"FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {remainder})")
    op.execute("CREATE INDEX ix_events_tx_position ON events (tx_id, position)")
    if partitioned:  # the log's newest position (projections.py) is then one probe a partition
        op.execute("CREATE INDEX ix_events_position ON events (position)")
    op.execute(f"INSERT INTO events ({_EVENT_COLUMNS}) SELECT {_EVENT_COLUMNS} FROM {old_events}")
    op.execute(f"INSERT INTO game_snapshots ({_SNAPSHOT_COLUMNS}) SELECT {_SNAPSHOT_COLUMNS} FROM {old_snapshots}")
    op.execute(f"DROP TABLE {old_events}")  # its triggers go with it
    op.execute(f"DROP TABLE {old_snapshots}")
    op.execute("ALTER SEQUENCE events_position_seq OWNED BY events.position")
    _events_triggers(partition_names("events") if partitioned else [])
    if op.get_bind().exec_driver_sql("SELECT EXISTS (SELECT 1 FROM events)").scalar():
        # Statistics for the rows copied. Empty tables are left unanalyzed: statistics of
        # "no rows" would have PostgreSQL plan scans of the whole partition until autovacuum
        # analyzes it again, and a plan cached meanwhile keeps that choice.
        op.execute("ANALYZE events")
        op.execute("ANALYZE game_snapshots")


def upgrade() -> None:
    """Partition events and game_snapshots by the hash of the game id (PostgreSQL)."""
    if op.get_bind().dialect.name == "postgresql":
        _rebuild(partitioned=True)


def downgrade() -> None:
    """Plain events and game_snapshots tables again, with every row (PostgreSQL)."""
    if op.get_bind().dialect.name == "postgresql":
        _rebuild(partitioned=False)
