"""Opening databases: URL resolution, engine set-up, migrations (SQLite and PostgreSQL)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect, text

from scat_core.domain.errors import BadInput
from scat_core.records.errors import DatabaseNotGiven
from scat_core.store.sql import database
from scat_core.store.sql.database import (
    HEAD_REVISION,
    alembic_config,
    current_revision,
    ensure_schema,
    make_engine,
    resolve_url,
    upgrade,
)


def test_the_head_revision_constant_matches_the_alembic_scripts() -> None:
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == HEAD_REVISION


def test_the_url_comes_from_the_argument_then_the_environment_then_the_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SCAT_DB_URL", "sqlite:///from-env.db")
    assert resolve_url("sqlite:///arg.db") == "sqlite:///arg.db"
    assert resolve_url(None) == "sqlite:///from-env.db"
    monkeypatch.delenv("SCAT_DB_URL")
    default = resolve_url(None)
    assert default == f"sqlite:///{tmp_path / 'xdg-data' / 'scat' / 'scat.db'}"
    assert (tmp_path / "xdg-data" / "scat").is_dir()


@pytest.mark.parametrize("url", ["nonsense", "nope://host/db", "sqlite+nodriver:///x.db"])
def test_an_unusable_url_is_bad_input(url: str) -> None:
    with pytest.raises(BadInput, match="cannot use database URL"):
        make_engine(url)


def test_an_unreachable_database_is_bad_input_with_a_clear_message(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'missing-dir' / 'scat.db'}")
    with pytest.raises(BadInput, match="cannot open database"):
        ensure_schema(engine)


def test_sqlite_connections_use_wal_a_busy_timeout_and_foreign_keys(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10_000  # #14 item 8: bounded, documented
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    engine.dispose()


def test_the_first_use_migrates_to_head_and_later_uses_do_nothing(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(db_url)
    ensure_schema(engine)
    with engine.connect() as conn:
        assert current_revision(conn) == HEAD_REVISION
    assert {"events", "games", "game_secrets", "player_tokens"} <= set(
        inspect(engine).get_table_names()
    )

    def no_alembic(_engine: Engine) -> str:
        raise AssertionError("Alembic must not run when the schema is current")

    monkeypatch.setattr(database, "upgrade", no_alembic)
    ensure_schema(engine)
    engine.dispose()


def test_upgrading_twice_is_harmless(engine: Engine) -> None:
    assert upgrade(engine) == HEAD_REVISION
    assert upgrade(engine) == HEAD_REVISION
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1


def test_loading_one_game_is_an_indexed_lookup_on_sqlite(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    ensure_schema(engine)
    with engine.connect() as conn:
        plan = " ".join(
            str(row[-1])
            for row in conn.exec_driver_sql(
                "EXPLAIN QUERY PLAN SELECT * FROM events WHERE game_id = 'g' AND seq <= 5 "
                "ORDER BY seq"
            )
        )
    assert "USING INDEX" in plan and "TEMP B-TREE" not in plan
    engine.dispose()


def test_the_known_revisions_are_exactly_the_alembic_scripts() -> None:
    scripts = ScriptDirectory.from_config(alembic_config())
    assert [script.revision for script in scripts.walk_revisions()][::-1] == list(database.KNOWN_REVISIONS)
    assert database.KNOWN_REVISIONS[-1] == HEAD_REVISION


def test_a_database_from_a_newer_scat_is_refused_with_a_clear_message(db_url: str) -> None:
    engine = make_engine(db_url)
    ensure_schema(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0099'"))
    newer = f"has schema revision 0099, newer than this scat knows ({HEAD_REVISION}): upgrade scat"
    with pytest.raises(BadInput, match=re.escape(newer)):
        ensure_schema(engine)
    with pytest.raises(BadInput, match=re.escape(newer)):
        upgrade(engine)
    with engine.connect() as conn:
        assert current_revision(conn) == "0099"  # left as it was
    engine.dispose()


@pytest.mark.parametrize("url", ["nope://bob:s3cret@host/db", "postgresql+nodriver://bob:s3cret@host/db"])
def test_an_unusable_url_is_told_without_its_password(url: str) -> None:
    with pytest.raises(BadInput, match="cannot use database URL") as refused:
        make_engine(url)
    assert "s3cret" not in str(refused.value) and "bob:***@host" in str(refused.value)


def test_a_url_that_does_not_even_parse_still_has_its_password_masked() -> None:
    assert database.masked_url("weird stuff://bob:s3cret@host/db") == "weird stuff://bob:***@host/db"
    assert database.masked_url("postgresql://bob:s3cret@host/db") == "postgresql://bob:***@host/db"


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///", "sqlite:///:memory:", "sqlite+pysqlite://"])
def test_an_in_memory_sqlite_database_is_refused_games_would_vanish(url: str) -> None:
    with pytest.raises(BadInput, match="in-memory database: its games would vanish.*give a file path"):
        resolve_url(url)


def test_an_empty_url_is_refused_not_taken_for_the_default() -> None:
    with pytest.raises(DatabaseNotGiven, match="the database URL is empty") as error:
        resolve_url("")
    assert "--db" not in str(error.value)  # the front end names its own setting (scat_cli.errors.SETTINGS)


def test_the_packaged_migrations_are_the_clones_one_copy() -> None:
    # The installed package finds its Alembic scripts as scat_core._migrations (a wheel
    # carries them; .ci/wheel_smoke proves it); editable, that is the clone's migrations/.
    clone = Path(__file__).resolve().parents[2]
    assert database.migrations_dir().resolve() == (clone / "migrations").resolve()
    config = alembic_config()
    assert config.config_file_name is None  # no alembic.ini needed when installed
    assert Path(config.get_main_option("script_location") or "").resolve() == (clone / "migrations").resolve()


def test_an_installation_without_its_migrations_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database, "MIGRATIONS_PACKAGE", "scat_core._no_such_migrations")
    with pytest.raises(BadInput, match="lacks its Alembic migrations"):
        database.migrations_dir()
