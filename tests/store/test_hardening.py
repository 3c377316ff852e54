"""A dropped or defused trigger (of the games' events or the accounts') is found and restored,
a downgrade never drops games unasked, a password holding an `@` is masked whole."""

from __future__ import annotations

import argparse
import base64
from collections.abc import Callable

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import Engine, text
from typer.testing import CliRunner

from scat_cli.app import app
from scat_cli.wiring import open_database
from scat_core.domain.events import PlayerSeat
from scat_core.service.accounts import AccountService
from scat_core.service.games import GameService
from scat_core.store.sql.account_log import SqlAccountLog
from scat_core.store.sql.database import alembic_config, masked_url, safe_url
from scat_core.store.sql.event_store import EventStore
from scat_core.store.sql.triggers import GUARDED, Guarded, restore_triggers, trigger_problems

BOTS = [PlayerSeat(name="ann", is_bot=True), PlayerSeat(name="bob", is_bot=True)]


def drop_a_trigger(engine: Engine, guarded: Guarded) -> str:
    """Drop one of the table's immutability triggers; the name `db check` must report."""
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            name = f"{guarded.table}_no_delete"
            conn.execute(text(f"DROP TRIGGER {name}"))
            return name
        name = f"{guarded.table}_no_truncate"
        conn.execute(text(f"DROP TRIGGER {name} ON {guarded.table}"))
        return name


def defuse_a_trigger(engine: Engine, guarded: Guarded) -> str:
    """Replace the table's guard by one of the same name that lets every change through; the name
    `db check` must report."""
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            name = f"{guarded.table}_no_update"
            conn.execute(text(f"DROP TRIGGER {name}"))
            conn.execute(text(f"CREATE TRIGGER {name} BEFORE UPDATE ON {guarded.table} BEGIN SELECT 1; END"))
            return name
        conn.execute(text(f"CREATE OR REPLACE FUNCTION {guarded.function}() RETURNS trigger "
                          "LANGUAGE plpgsql AS $$ BEGIN RETURN COALESCE(NEW, OLD); END $$"))
        return f"{guarded.function}()"


def test_a_fresh_schema_has_every_trigger(engine: Engine) -> None:
    with engine.connect() as conn:
        assert trigger_problems(conn) == {}


@pytest.mark.parametrize("guarded", GUARDED, ids=lambda guarded: guarded.table)
@pytest.mark.parametrize("damage", [drop_a_trigger, defuse_a_trigger])
def test_db_check_finds_and_db_upgrade_restores_a_missing_or_defused_trigger(
    engine: Engine, db_url: str, damage: Callable[[Engine, Guarded], str], guarded: Guarded
) -> None:
    """`db upgrade` said "newest" while DELETE on events went through."""
    name = damage(engine, guarded)
    runner = CliRunner()
    check = runner.invoke(app, ["--db", db_url, "db", "check"])
    assert check.exit_code == 1 and name in check.stdout, check.output
    upgrade = runner.invoke(app, ["--db", db_url, "db", "upgrade"])
    assert upgrade.exit_code == 0 and f"restored {name}" in upgrade.stdout, upgrade.output
    with engine.connect() as conn:
        assert trigger_problems(conn) == {}
    assert runner.invoke(app, ["--db", db_url, "db", "check"]).exit_code == 0
    GameService(EventStore(engine)).playing.create_game(BOTS)
    with pytest.raises(Exception, match="immutable"), engine.begin() as conn:
        conn.execute(text("DELETE FROM events"))
    with pytest.raises(Exception, match="immutable"), engine.begin() as conn:
        conn.execute(text("UPDATE events SET seq = seq"))
    key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    AccountService(SqlAccountLog(engine)).register("ann", base64.b64encode(key).decode("ascii"))
    with pytest.raises(Exception, match="account events are immutable"), engine.begin() as conn:
        conn.execute(text("DELETE FROM account_events"))
    with pytest.raises(Exception, match="account events are immutable"), engine.begin() as conn:
        conn.execute(text("UPDATE account_events SET seq = seq"))


def test_restoring_when_nothing_is_missing_changes_nothing(engine: Engine) -> None:
    with engine.begin() as conn:
        assert restore_triggers(conn) == []


def test_alembic_downgrade_base_refuses_to_drop_a_schema_holding_games(engine: Engine) -> None:
    """`alembic downgrade base` dropped every game without a word."""
    from alembic import command

    game = open_database(engine.url.render_as_string(hide_password=False)).playing.create_game(BOTS).game_id
    with engine.begin() as conn, pytest.raises(Exception, match="holds 1 game"):
        command.downgrade(alembic_config(conn), "base")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM events WHERE game_id = :g"), {"g": game}).scalar() > 0
    with engine.begin() as conn:
        config = alembic_config(conn)
        config.cmd_opts = argparse.Namespace(x=["drop-games=yes"])
        command.downgrade(config, "base")
    with engine.connect() as conn:
        assert "events" not in __import__("sqlalchemy").inspect(conn).get_table_names()


@pytest.mark.parametrize(("url", "expected"), [
    ("postgresql+psycopg://u:p@ss@host/db", "postgresql+psycopg://u:***@host/db"),
    ("postgresql+psycopg://u:p@ss:x@host:5432/db", "postgresql+psycopg://u:***@host:5432/db"),
    ("postgresql://u:a/b@c@host/db", "postgresql://u:***@host/db"),
    ("postgresql+psycopg://u:s3cret@host/db", "postgresql+psycopg://u:***@host/db"),
])
def test_a_password_holding_an_at_sign_is_masked_whole(url: str, expected: str) -> None:
    """`u:p@ss@host` was shown as `u:***@ss@host`."""
    masked = masked_url(url)
    assert masked == expected
    for secret in ("p@ss", "ss@", "ss:x", "a/b", "c@", "s3cret"):
        assert secret not in masked, masked
    try:
        engine = __import__("sqlalchemy").create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    except ValueError:  # a port SQLAlchemy cannot parse: only masked_url applies
        return
    for secret in ("p@ss", "ss@", "ss:x", "a/b", "c@", "s3cret"):
        assert secret not in safe_url(engine)
