"""The import graph of scat_core and scat_cli keeps to its layers and has no circle (issue #41).

Every import counts: at module level, inside a function (run on first use), and under
`if TYPE_CHECKING:` (a type is a dependency too). The layers, from the inside out:

- `domain` (scat_core/domain): the rules; imports nothing but itself.
- `records` (scat_core/records): what is stored and checked alike by every back end: the domain.
- `ports` (scat_core/service/ports.py): the store's neutral interfaces: the two above.
- `service` (the rest of scat_core/service): the use cases, over the ports only, never an adapter.
- `store` (scat_core/store): the adapters of the ports: the ports and what they speak, not the service.
- `wire` (scat_cli/wire): what both sides of HTTP share (bodies, refusals, request signatures).
- `server` (scat_cli/server): `scat serve`; the core, the wire and the wiring point, nothing of the CLI.
- `wiring` (scat_cli/wiring.py) and the rest of scat_cli (the CLI and the `--server` client): anything.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scat_core", "scat_cli")

#: Layer -> the layers its modules may import.
LAYERS: dict[str, frozenset[str] | None] = {
    "domain": frozenset({"domain"}),
    "records": frozenset({"domain", "records"}),
    "ports": frozenset({"domain", "records", "ports"}),
    "service": frozenset({"domain", "records", "ports", "service"}),
    "store": frozenset({"domain", "records", "ports", "store"}),
    "wire": frozenset({"domain", "records", "ports", "service", "wire"}),
    "server": frozenset({"domain", "records", "ports", "service", "store", "wire", "server", "wiring"}),
    "wiring": None,  # the one place that chooses an adapter: anything
    "cli": None,  # the CLI and the --server client: anything
    "package": None,  # scat_core/__init__.py
}
PORTS = {"scat_core.service.ports"}

def module_names(root: Path, packages: Sequence[str]) -> dict[str, Path]:
    """Each module of `packages` (found under `root`) by its dotted name, packages by their __init__."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(name: str, path: Path, modules: Mapping[str, Path]) -> Iterator[tuple[str, int]]:
    """Each module of `modules` that the module `name` (at `path`) imports anywhere, with its line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target not in modules and "." in target:  # `import a.b.c` of a name inside a module
                target = target.rpartition(".")[0]
            if target in modules and target != name:
                yield target, node.lineno


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """module -> the modules of `modules` it imports anywhere."""
    return {name: {target for target, _ in imports_of(name, path, modules)} for name, path in modules.items()}


def layer(module: str) -> str:
    """The layer of `module` (see the module's docstring)."""
    parts = module.split(".")
    if module in PORTS:
        return "ports"
    if parts[0] == "scat_core":
        return parts[1] if len(parts) > 1 else "package"
    if module == "scat_cli.wiring":
        return "wiring"
    if len(parts) > 1 and parts[1] in ("wire", "server"):
        return parts[1]
    return "cli"


def against_layers(modules: Mapping[str, Path], root: Path = ROOT) -> dict[tuple[str, str], list[str]]:
    """(importer, imported) -> where ("path:line", from `root`) for each import against `LAYERS`."""
    found: dict[tuple[str, str], list[str]] = {}
    for name, path in sorted(modules.items()):
        allowed = LAYERS[layer(name)]
        for target, line in imports_of(name, path, modules):
            if allowed is not None and layer(target) not in allowed:
                found.setdefault((name, target), []).append(f"{path.relative_to(root)}:{line}")
    return found


def circles(graph: Mapping[str, set[str]]) -> set[tuple[str, ...]]:
    """The import circles of `graph`: each strongly connected set of two or more modules, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[tuple[str, ...]] = set()
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, following = work[-1]
            target = next(following, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        found.add(tuple(sorted(members)))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph[target]))))
            elif target in on_stack:
                low[node] = min(low[node], index[target])
    return found


def test_no_import_goes_against_the_layers() -> None:
    modules = module_names(ROOT, PACKAGES)
    assert "scat_core.service.ports" in modules and "scat_cli.app" in modules
    found = against_layers(modules)
    assert not found, "imports against the layers (see this test's docstring):\n" + "\n".join(
        f"{a} -> {b} at {', '.join(where)}" for (a, b), where in sorted(found.items()))


def test_no_module_imports_itself_in_a_circle() -> None:
    found = circles(import_graph(module_names(ROOT, PACKAGES)))
    assert found == set(), f"import circles (each a set of modules that reach one another): {sorted(found)}"


def test_the_checks_see_imports_inside_functions_and_type_checking_blocks(tmp_path: Path) -> None:
    package = tmp_path / "scat_core"
    (package / "domain").mkdir(parents=True)
    (package / "store").mkdir()
    for folder in (package, package / "domain", package / "store"):
        (folder / "__init__.py").write_text("")
    (package / "domain" / "rules.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from scat_core.store import sql\n")
    (package / "store" / "sql.py").write_text("def later():\n    from ..domain import rules\n")
    modules = module_names(tmp_path, ["scat_core"])
    assert set(against_layers(modules, tmp_path)) == {("scat_core.domain.rules", "scat_core.store.sql")}
    assert circles(import_graph(modules)) == {("scat_core.domain.rules", "scat_core.store.sql")}
    (package / "domain" / "rules.py").write_text("import scat_core.domain\n")
    assert against_layers(modules, tmp_path) == {} and circles(import_graph(modules)) == set()


def test_each_module_has_its_layer() -> None:
    assert layer("scat_core.domain.decide") == "domain"
    assert layer("scat_core.service.ports") == "ports"
    assert layer("scat_core.service.playing") == "service"
    assert layer("scat_core.store.sql.event_store") == "store"
    assert layer("scat_cli.server.routes.games") == "server"
    assert layer("scat_cli.wiring") == "wiring"
    assert layer("scat_cli.app") == "cli"


#: A module whose imports inside functions all have one reason says it once, in a comment of its own.
REASON_FOR_ALL = "# Imports inside functions:"


def unexplained_imports(source: str) -> list[int]:
    """The lines of `source`'s imports inside a function that say no reason: no comment on the
    import's line or the line above, and no `REASON_FOR_ALL` comment in the module."""
    lines = source.splitlines()
    if any(line.startswith(REASON_FOR_ALL) for line in lines):
        return []
    found = []
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and "#" not in lines[node.end_lineno - 1] \
                        and not lines[node.lineno - 2].strip().startswith("#"):
                    found.append(node.lineno)
    return sorted(set(found))


def test_each_import_inside_a_function_says_why() -> None:
    """Issue #41: imports at the top, except where start-up time (or an optional library) needs them
    later, and then the module says so."""
    found = {f"{path.relative_to(ROOT)}:{line}" for path in module_names(ROOT, PACKAGES).values()
             for line in unexplained_imports(path.read_text(encoding="utf-8"))}
    assert found == set(), "an import inside a function without a reason: " + ", ".join(sorted(found))


def test_the_reason_check_sees_a_silent_import_and_accepts_a_comment() -> None:
    silent = "def f():\n    import json\n    return json\n"
    assert unexplained_imports(silent) == [2]
    assert unexplained_imports("def f():\n    import json  # start-up time\n") == []
    assert unexplained_imports("def f():\n    # start-up time: loads only here\n    import json\n") == []
    assert unexplained_imports(REASON_FOR_ALL + " start-up time\n" + silent) == []


def test_the_client_imports_nothing_of_the_server() -> None:
    """Issue #41 step 3: the `--server` client (scat_cli/remote) reaches the server only through
    what both sides share (scat_cli/wire), never the server's own modules."""
    modules = module_names(ROOT, PACKAGES)
    found = {f"{modules[name].relative_to(ROOT)}:{line} imports {target}"
             for name in modules if name.startswith("scat_cli.remote")
             for target, line in imports_of(name, modules[name], modules) if layer(target) == "server"}
    assert found == set(), sorted(found)
