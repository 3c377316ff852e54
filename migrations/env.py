"""Alembic environment: the same URL resolution and engine set-up as the application.

URL: `alembic -x db=URL ...`, else $SCAT_DB_URL, else the default SQLite file. When the
application runs the migrations itself it passes its open connection in
`config.attributes["connection"]` and owns the transaction. The target schema is the store's
own (scat_core/store/sql/tables.py), so `alembic check` and `alembic revision --autogenerate`
compare with it.
"""

from __future__ import annotations

import logging.config

from alembic import context
from sqlalchemy.engine import Connection

from scat_core.store.sql.database import MIGRATION_LOCK, WRITE_OPTION, advisory_lock, make_engine, resolve_url
from scat_core.store.sql.schema import comparison_options

config = context.config


def run_migrations_online() -> None:
    """Run the migrations on the caller's connection, or on one opened from the URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return

    if config.config_file_name is not None:
        logging.config.fileConfig(config.config_file_name, disable_existing_loggers=False)
    url = resolve_url(context.get_x_argument(as_dictionary=True).get("db"))
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            conn = conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin(), advisory_lock(conn, MIGRATION_LOCK):
                _run(conn)
    finally:
        engine.dispose()


def _run(conn: Connection) -> None:
    """Run the migrations (or Alembic's comparison with tables.py) on `conn`."""
    context.configure(connection=conn, **comparison_options(conn.dialect.name))
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("scat migrations run online only: use `alembic upgrade head`")
run_migrations_online()
