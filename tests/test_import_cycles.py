"""No import circle among the modules of scat_core and scat_cli, as Python runs their imports at load.

Only the imports a module runs when it is loaded count: those at module level (in an `if` or
`try` too), not those under `if TYPE_CHECKING:` nor inside a function (which run on first use).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scat_core", "scat_cli")


def module_names(root: Path, packages: Sequence[str]) -> dict[str, Path]:
    """Each module of `packages` (found under `root`) by its dotted name, packages by their __init__."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    """Whether an `if` tests TYPE_CHECKING (or typing.TYPE_CHECKING)."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _load_time_imports(body: Sequence[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of `body` that run when the module is loaded."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _load_time_imports(node.body)
            yield from _load_time_imports(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody):
                yield from _load_time_imports(block)
        elif isinstance(node, ast.With | ast.ClassDef):
            yield from _load_time_imports(node.body)


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """module -> the modules of `modules` it imports when loaded."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _load_time_imports(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
                continue
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.add(submodule if submodule in modules else base)
        graph[name] = {target for target in targets if target in modules and target != name}
    return graph


def find_cycle(graph: Mapping[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (its modules in import order, the first repeated at the end), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path, on_path = [start], {start}
        stack = [iter(sorted(graph[start]))]
        while stack:
            following = next(stack[-1], None)
            if following is None:
                stack.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
            elif following in on_path:
                return [*path[path.index(following):], following]
            elif following not in done:
                path.append(following)
                on_path.add(following)
                stack.append(iter(sorted(graph[following])))
    return None


def test_no_module_of_scat_core_or_scat_cli_imports_itself_in_a_circle() -> None:
    modules = module_names(ROOT, PACKAGES)
    assert "scat_core.service.ports" in modules and "scat_cli.app" in modules
    cycle = find_cycle(import_graph(modules))
    assert cycle is None, " -> ".join(cycle or ())


def test_the_circle_check_finds_a_circle_at_load_time_only(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("if True:\n    from .c import thing\n")
    (package / "c.py").write_text("import pkg.a\n")
    modules = module_names(tmp_path, ["pkg"])
    assert find_cycle(import_graph(modules)) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.a\n\ndef later():\n    import pkg.a\n"
    )
    assert find_cycle(import_graph(modules)) is None
