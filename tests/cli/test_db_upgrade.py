"""`scat --help` and `scat db upgrade` through the real installed executable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import inspect

from scat_core.store.sql.database import HEAD_REVISION, make_engine

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `scat` executable."""
    return subprocess.run(
        [str(BIN / "scat"), *args], capture_output=True, text=True, timeout=120,
        env={**os.environ, **(env or {})}, check=False,
    )


def tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_help_lists_the_db_command_with_an_example() -> None:
    result = run("--help")
    assert result.returncode == 0
    assert "db" in result.stdout and "Example: scat" in result.stdout
    db_help = run("db", "--help")
    assert "upgrade" in db_help.stdout and "Example: scat db upgrade" in db_help.stdout


def test_python_dash_m_scat_cli_is_the_same_program() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "scat_cli", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and "Usage: scat" in result.stdout.replace("python -m ", "")


def test_help_does_not_import_sqlalchemy() -> None:
    code = (
        "import sys; sys.argv = ['scat', '--help']\n"
        "from scat_cli.app import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "assert 'sqlalchemy' not in sys.modules, 'sqlalchemy imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr


def test_db_upgrade_creates_the_schema_and_running_it_again_is_harmless(db_url: str) -> None:
    first = run("--db", db_url, "db", "upgrade")
    assert first.returncode == 0, first.stderr
    assert f"revision {HEAD_REVISION}" in first.stdout
    assert {"events", "games", "game_secrets", "player_tokens"} <= tables(db_url)
    again = run("--db", db_url, "db", "upgrade", "--json")
    assert again.returncode == 0, again.stderr
    assert f'"revision": "{HEAD_REVISION}"' in again.stdout


def test_db_upgrade_uses_scat_db_url_then_the_default_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'env.db'}"
    assert run("db", "upgrade", env={"SCAT_DB_URL": url}).returncode == 0
    assert "events" in tables(url)
    default = run("db", "upgrade")  # conftest points the user data dir into tmp_path
    assert default.returncode == 0, default.stderr
    assert (tmp_path / "xdg-data" / "scat" / "scat.db").exists()


def test_alembic_from_the_repo_root_uses_the_same_scripts_and_url_resolution(
    sqlite_url: str,
) -> None:
    result = subprocess.run(
        [str(BIN / "alembic"), "-x", f"db={sqlite_url}", "upgrade", "head"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "events" in tables(sqlite_url)
    assert run("--db", sqlite_url, "db", "upgrade").returncode == 0


def test_a_bad_database_url_exits_2_with_one_line_and_no_traceback() -> None:
    result = run("--db", "nope://x", "db", "upgrade")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot use database URL" in lines[0]
