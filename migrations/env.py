"""Alembic environment: the same URL resolution and engine set-up as the application.

URL: `alembic -x db=URL ...`, else $SCAT_DB_URL, else the default SQLite file. When the
application runs the migrations itself it passes its open connection in
`config.attributes["connection"]` and owns the transaction.
"""

from __future__ import annotations

import logging.config

from alembic import context
from sqlalchemy import text

from scat_core.store.database import _PG_MIGRATION_LOCK, WRITE_OPTION, make_engine, resolve_url

config = context.config


def run_migrations_online() -> None:
    """Run the migrations on the caller's connection, or on one opened from the URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=None)
        with context.begin_transaction():
            context.run_migrations()
        return

    if config.config_file_name is not None:
        logging.config.fileConfig(config.config_file_name, disable_existing_loggers=False)
    url = resolve_url(context.get_x_argument(as_dictionary=True).get("db"))
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            conn = conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    conn.execute(
                        text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK}
                    )
                context.configure(connection=conn, target_metadata=None)
                with context.begin_transaction():
                    context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("scat migrations run online only: use `alembic upgrade head`")
run_migrations_online()
