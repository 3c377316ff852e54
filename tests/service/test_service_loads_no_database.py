"""The service, the types its ports speak and the in-memory store load no database library.

Only the SQL adapter (scat_core.store.sql) imports SQLAlchemy, Alembic and psycopg: a module of
`scat_core.service`, of `scat_core.records` or of `scat_core.store.memory` imports neither
them nor that adapter, so that the `--server` client and a game in memory run without them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import scat_core

PURE = ("scat_core.service", "scat_core.records", "scat_core.store.memory")
FORBIDDEN = ("sqlalchemy", "alembic", "psycopg", "scat_core.store.sql", "scat_core._migrations", "migrations")

#: Imports the modules named by its arguments, one after the other, in one fresh interpreter, and
#: prints what each one loaded that the ones before it had not.
PROBE = """
import importlib, json, sys
added = {}
for name in sys.argv[1:]:
    before = set(sys.modules)
    importlib.import_module(name)
    added[name] = sorted(set(sys.modules) - before)
print(json.dumps(added))
"""


def pure_modules() -> list[str]:
    """Every module of PURE (a package's modules, or the module itself), by its dotted name."""
    root = Path(scat_core.__file__).resolve().parent.parent
    names = []
    for package in PURE:
        folder = root / package.replace(".", "/")
        for path in sorted(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]:
            parts = path.relative_to(root).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def loaded_by(modules: list[str]) -> dict[str, list[str]]:
    """Each of `modules`, imported in that order in a fresh interpreter, and what it loaded."""
    done = subprocess.run([sys.executable, "-c", PROBE, *modules], capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


def forbidden(modules: list[str]) -> list[str]:
    """The modules of `modules` that belong to FORBIDDEN packages."""
    return [name for name in modules if any(name == bad or name.startswith(f"{bad}.") for bad in FORBIDDEN)]


def test_every_module_of_the_service_the_records_and_the_memory_store_loads_no_database_library() -> None:
    modules = pure_modules()
    assert {"scat_core.service.games", "scat_core.service.ports", "scat_core.records.stored_log",
            "scat_core.store.memory"} <= set(modules)
    leaks = {module: found for module, loaded in loaded_by(modules).items() if (found := forbidden(loaded))}
    assert leaks == {}


def test_the_check_sees_the_sql_adapter_load_sqlalchemy() -> None:
    loaded = loaded_by(["scat_core.store.memory", "scat_core.store.sql.event_store"])
    assert forbidden(loaded["scat_core.store.memory"]) == []
    assert "sqlalchemy" in forbidden(loaded["scat_core.store.sql.event_store"])
