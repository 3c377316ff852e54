"""The tests' own layout: shared helpers live in tests/support, no test module imports another,
and tests reach the package through its public names only.

A helper two test modules need moves to tests/support (plain functions and constants);
fixtures stay in the conftest.py files, which pytest finds by itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SUPPORT = TESTS / "support"
#: Benchmarks are scripts run from their own folder (not collected by pytest): they may import a sibling.
SCRIPTS = TESTS / "benchmarks"


def forbidden_imports(path: Path, source: str) -> list[str]:
    """The imports of `source` (the file at `path` under tests/) that reach a test module outside tests/support."""
    package = ".".join(path.relative_to(TESTS.parent).parent.parts)
    siblings = {p.stem for p in path.parent.glob("*.py")} | {p.name for p in path.parent.iterdir() if p.is_dir()}
    where = path.relative_to(TESTS.parent)
    problems = []
    for node in ast.walk(ast.parse(source)):
        level = 0
        if isinstance(node, ast.ImportFrom):
            level = node.level
            modules = [node.module or ""]
            if level:  # relative: resolved against this file's package
                base = package.rsplit(".", level - 1)[0]
                modules = [f"{base}.{node.module}"] if node.module else [f"{base}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            if module == "tests" or module.startswith("tests."):
                if not (module == "tests.support" or module.startswith("tests.support.")):
                    problems.append(f"{where}:{node.lineno} imports {module}")
            elif not level and module.split(".")[0] in siblings and path.parent != SCRIPTS:
                problems.append(f"{where}:{node.lineno} imports its sibling {module.split('.')[0]}")
    return problems


def test_no_test_module_imports_another_only_tests_support() -> None:
    problems = []
    for path in sorted(TESTS.rglob("*.py")):
        problems += forbidden_imports(path, path.read_text(encoding="utf-8"))
    assert problems == [], "move the shared helper to tests/support:\n" + "\n".join(problems)


def test_the_layout_check_catches_each_kind_of_cross_import() -> None:
    here = TESTS / "cli" / "test_example.py"
    cases = {
        "from tests.cli.test_play import new_game": "imports tests.cli.test_play",
        "import tests.cli.conftest": "imports tests.cli.conftest",
        "from .conftest import Scat": "imports tests.cli.conftest",
        "from . import test_play": "imports tests.cli.test_play",
        "from ..domain import helpers": "imports tests.domain",
        "import test_play": "imports its sibling test_play",
    }
    for source, problem in cases.items():
        assert forbidden_imports(here, source) == [f"tests/cli/test_example.py:1 {problem}"], source
    allowed = "import json\nfrom scat_core.domain import events\nfrom tests.support.cli import Scat\n"
    assert forbidden_imports(here, allowed) == []


def test_the_support_package_holds_helpers_not_fixtures() -> None:
    fixtures = [
        f"{path.relative_to(TESTS.parent)}:{node.lineno} {node.name}"
        for path in sorted(SUPPORT.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef)
        and any("fixture" in ast.unparse(decorator) for decorator in node.decorator_list)
    ]
    assert fixtures == [], "fixtures belong in a conftest.py"


#: The one module of scat_cli a service test may import: the wiring point, which chooses the adapter
#: a service runs on (a database, memory) and is no front end.
WIRING = "scat_cli.wiring"


def cli_imports(source: str) -> list[int]:
    """The lines of `source` that import the CLI (scat_cli, but for its wiring point), at any depth."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                 else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
        if any((name == "scat_cli" or name.startswith("scat_cli.")) and name != WIRING for name in names):
            lines.append(node.lineno)
    return lines


def test_the_service_and_domain_tests_import_no_cli_code() -> None:
    problems = [f"{path.relative_to(TESTS.parent)}:{line}"
                for tier in ("domain", "service") for path in sorted((TESTS / tier).rglob("*.py"))
                for line in cli_imports(path.read_text(encoding="utf-8"))]
    assert problems == [], "a service or domain test reaches the CLI; move it to tests/cli or tests/server:\n" + \
        "\n".join(problems)


def test_the_cli_import_check_sees_from_and_plain_imports() -> None:
    assert cli_imports("from scat_cli.app import app\nimport scat_cli.errors\nimport scat_core\n") == [1, 2]
    assert cli_imports("def f():\n    from scat_cli import transcript\n") == [2]
    assert cli_imports("from scat_clinic import x\nfrom .scat_cli import y\n") == []
    assert cli_imports("from scat_cli.wiring import open_database\nfrom scat_cli import wiring\n") == [2]


#: The packages whose private names (`_name`, and `_module`) no test imports.
PACKAGES = ("scat_core", "scat_cli")
#: Named private on purpose: the migrations' installed package (data, never imported as code by a
#: test) and the name a test gives a package that is not installed.
NOT_CODE = ("scat_core._migrations", "scat_core._no_such_migrations")


def private_imports(source: str) -> list[str]:
    """The private names of scat_core or scat_cli that `source` reaches, as "line module.name": imported,
    read as an attribute of a name it imported from them, or patched (by name, or by a dotted string)."""
    def private(dotted: str) -> bool:
        if dotted in NOT_CODE:
            return False
        return any(part.startswith("_") and not part.startswith("__") for part in dotted.split("."))

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in PACKAGES:
            found += [f"{node.lineno} {node.module}.{alias.name}" for alias in node.names
                      if private(f"{node.module}.{alias.name}")]
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno} {alias.name}" for alias in node.names
                      if alias.name.split(".")[0] in PACKAGES and private(alias.name)]
    bound = {alias.asname or alias.name for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in PACKAGES
             for alias in node.names}
    bound |= {alias.asname for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Import)
              for alias in node.names if alias.asname and alias.name.split(".")[0] in PACKAGES}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                and private(node.attr):
            found.append(f"{node.lineno} {node.value.id}.{node.attr}")
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[0], ast.Name) \
                and node.args[0].id in bound and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and private(node.args[1].value):
            found.append(f"{node.lineno} {node.args[0].id}.{node.args[1].value}")  # setattr(module, "_name", ...)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and " " not in node.value \
                and node.value.split(".")[0] in PACKAGES and private(node.value):
            found.append(f"{node.lineno} {node.value}")  # monkeypatch.setattr("scat_core.module._name", ...)
    return sorted(found, key=lambda line: int(line.split()[0]))


def test_no_test_reaches_a_private_name_of_the_package() -> None:
    problems = [f"{path.relative_to(TESTS.parent)}:{found}"
                for path in sorted(TESTS.rglob("*.py"))
                for found in private_imports(path.read_text(encoding="utf-8"))]
    assert problems == [], "test through the public names (or make the unit public):\n" + "\n".join(problems)


def test_the_private_name_check_catches_an_import_an_attribute_and_a_patch_at_any_depth() -> None:
    source = ("from scat_cli.export_command import _skipped_summary\n"
              "def f():\n    from scat_core.store.sql.projections import (\n"
              "        projector,\n        _projector,\n    )\n"
              "import scat_core._migrations.env\n")
    assert private_imports(source) == ["1 scat_cli.export_command._skipped_summary",
                                       "3 scat_core.store.sql.projections._projector",
                                       "7 scat_core._migrations.env"]
    reached = ("from scat_core.domain import evolve\nimport scat_core.records.credentials as c\n"
               "evolve._HANDLERS\nmonkeypatch.setattr(c, '_scrypt', None)\n"
               "monkeypatch.setattr('scat_core.store.sql.notify._ANNOUNCE_ONE', '')\n")
    assert private_imports(reached) == ["3 evolve._HANDLERS", "4 c._scrypt",
                                        "5 scat_core.store.sql.notify._ANNOUNCE_ONE"]
    public = ("from scat_core import __version__\nfrom scat_cli.export_command import skipped_summary\n"
              "from scat_core.domain import evolve\nevolve.HANDLERS\nevolve.__doc__\nself._x\n"
              "from tests.support.cli import _private_helper\nfrom ._x import y\nimport _thread\n")
    assert private_imports(public) == []
