"""A `--server` command loads only what a client needs: nothing of the database side, no httpx."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

#: Module prefixes a command run through `--server` must never import: the database side
#: (SQLAlchemy, Alembic, the drivers, the SQL store, the migrations) and a general HTTP
#: client with its command line (httpx pulls in click and rich's syntax highlighting).
FORBIDDEN = ("sqlalchemy", "alembic", "psycopg", "sqlite3", "scat_core.store.sql", "scat_core._migrations",
             "migrations", "httpx", "httpcore", "click", "fastapi", "uvicorn", "starlette")
RUN = """
import json, sys
from scat_cli.app import main
sys.argv = ["scat", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as done:
    code = done.code
else:
    code = 0
loaded = sorted(name for name in sys.modules if name.split(".")[0] in {p.split(".")[0] for p in FORBIDDEN}
                and any(name == p or name.startswith(p + ".") for p in FORBIDDEN))
print("LOADED " + json.dumps({"code": code, "modules": loaded}))
"""


def run_fresh(args: list[str], tmp_path: Path, **env: str) -> dict[str, object]:
    """Run `scat ARGS` in a fresh interpreter; its exit code and the forbidden modules it loaded."""
    script = f"FORBIDDEN = {FORBIDDEN!r}\n{RUN}"
    done = subprocess.run([sys.executable, "-c", script, json.dumps(args)], capture_output=True, text=True,
                          env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path), **env}, timeout=120, check=False)
    line = next(line for line in done.stdout.splitlines() if line.startswith("LOADED "))
    return json.loads(line.removeprefix("LOADED "))  # type: ignore[no-any-return]


def test_show_and_a_move_through_a_server_load_nothing_of_the_database_side(server_url: str,
                                                                             tmp_path: Path) -> None:
    created = httpx.post(f"{server_url}/games", json={"players": [{"name": "you"}, {"name": "ann", "is_bot": True}]},
                         timeout=30).json()
    game, token = created["state"]["game_id"], created["tokens"]["you"]
    for args in (["show", game, "--as", "you"], ["draw", game, "--as", "you", "stock"], ["games"]):
        seen = run_fresh(["--server", server_url, *args], tmp_path, SCAT_TOKEN=token)
        assert seen == {"code": 0, "modules": []}, args


def test_the_check_itself_sees_the_database_side_of_a_local_command(tmp_path: Path) -> None:
    seen = run_fresh(["--db", f"sqlite:///{tmp_path}/local.db", "games"], tmp_path)
    assert seen["code"] == 0 and "sqlalchemy" in seen["modules"]  # type: ignore[operator]
