"""The domain is a pure core: no database, CLI or migration library gets imported by it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import scat_core.domain

DOMAIN = Path(scat_core.domain.__file__).parent
FORBIDDEN = ("sqlalchemy", "typer", "alembic", "psycopg", "click", "scat_core.store", "scat_cli")

PROBE = """
import importlib, json, pkgutil, sys
import scat_core.domain as domain
names = [f"scat_core.domain.{m.name}" for m in pkgutil.iter_modules(domain.__path__)]
for name in names:
    importlib.import_module(name)
print(json.dumps({"modules": names, "loaded": sorted(sys.modules)}))
"""


def test_importing_every_domain_module_loads_no_database_cli_or_migration_library() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                          cwd=DOMAIN.parent.parent)
    report = json.loads(done.stdout)
    assert "scat_core.domain.decide" in report["modules"] and len(report["modules"]) >= 12
    leaked = [name for name in report["loaded"] if name.split(".")[0] in FORBIDDEN or name.startswith(FORBIDDEN)]
    assert leaked == []


def test_no_domain_module_names_a_forbidden_library_in_an_import_statement() -> None:
    found = []
    for path in sorted(DOMAIN.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__"
            ):
                names = [arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
            found += [f"{path.name}: {name}" for name in names if name.startswith(FORBIDDEN)]
    assert found == []
