"""The `--server` client loads only what a client needs: nothing of the database side, no HTTP server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.live_server import server_in_thread
from tests.support.schema import migrated

#: What a `--server` command must not load: the database side and the server's own libraries.
NOT_A_CLIENTS = (
    "sqlalchemy", "alembic", "psycopg", "sqlite3", "scat_core.store.sql", "migrations", "scat_core._migrations",
    "httpx", "httpcore", "fastapi", "uvicorn", "starlette",
)
#: What a player's `show` or move through a server has no use for either: the rules, the audit, the
#: maintenance commands (the server decides; #26 item 2).
NOT_A_PLAYERS = ("scat_core.domain.decide", "scat_core.domain.audit", "scat_cli.db_commands", "scat_cli.key_commands")

#: Runs `scat ARGS...` in this interpreter, then prints the modules it loaded as JSON on the last line.
DRIVER = """
import json, sys
sys.argv = ["scat", *sys.argv[1:]]
from scat_cli.app import main
try:
    main()
except SystemExit as stop:
    code = stop.code
else:
    code = 0
print(json.dumps({"exit": code, "modules": sorted(sys.modules)}))
"""


@pytest.fixture
def served(sqlite_url: str) -> Iterator[str]:
    """The base URL of a live `scat serve` over a migrated SQLite database."""
    with server_in_thread(migrated(sqlite_url)) as url:
        yield url


def _loaded(args: list[str], env: dict[str, str]) -> tuple[object, list[str], str]:
    """Run `scat ARGS` in a fresh interpreter: its exit code, what it had loaded when done, its stderr."""
    done = subprocess.run([sys.executable, "-c", DRIVER, *args], capture_output=True, text=True, env=env, check=False)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["exit"], report["modules"], done.stderr


def _not_a_clients(modules: list[str], forbidden: tuple[str, ...] = NOT_A_CLIENTS) -> list[str]:
    """The modules of `modules` that a client has no use for (those of `forbidden` and their submodules)."""
    return [name for name in modules if any(name == bad or name.startswith(f"{bad}.") for bad in forbidden)]


def test_show_and_a_move_through_a_server_load_nothing_of_the_database_or_the_server(
    served: str, tmp_path: Path
) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "SCAT_DB_URL": "", "SCAT_SERVER": ""}
    env.pop("SCAT_TOKEN", None)
    scat = Path(sys.executable).parent / "scat"
    game = subprocess.run([scat, "--server", served, "new", "-q", "--player", "ann", "--bot", "bob", "--dealer", "bob"],
                          env=env, capture_output=True, text=True, check=True).stdout.split()[0]
    for command in (["show", game, "--as", "ann"], ["draw", game, "stock", "--as", "ann"]):
        code, modules, errors = _loaded(["--server", served, *command], env)
        assert code == 0, errors
        assert "scat_cli.server.client" in modules  # it did go through the server
        assert _not_a_clients(modules) == [], command
        assert _not_a_clients(modules, NOT_A_PLAYERS) == [], command
