"""What a `scat` command loads: run in a fresh interpreter, its modules listed when it is done."""

from __future__ import annotations

import json
import subprocess
import sys

#: What a `--server` command must not load: the database side and the server's own libraries.
NOT_A_CLIENTS = (
    "sqlalchemy", "alembic", "psycopg", "sqlite3", "scat_core.store.sql", "migrations", "scat_core._migrations",
    "httpx", "httpcore", "fastapi", "uvicorn", "starlette",
)

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


def loaded(args: list[str], env: dict[str, str]) -> tuple[object, list[str], str]:
    """Run `scat ARGS` in a fresh interpreter: its exit code, what it had loaded when done, its stderr."""
    done = subprocess.run([sys.executable, "-c", DRIVER, *args], capture_output=True, text=True, env=env, check=False)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["exit"], report["modules"], done.stderr


def not_a_clients(modules: list[str], forbidden: tuple[str, ...] = NOT_A_CLIENTS) -> list[str]:
    """The modules of `modules` that a client has no use for (those of `forbidden` and their submodules)."""
    return [name for name in modules if any(name == bad or name.startswith(f"{bad}.") for bad in forbidden)]
