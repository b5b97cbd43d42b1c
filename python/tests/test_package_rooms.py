"""The package's rooms and their one-way imports (docs/design.md, The C API, Python and pytest).

python/mlacheck is three rooms under the package's public face (__init__.py): api/ (the library
binding and data model), running/ (running backends on cases) and pytest_plugin/ (the plugin).
Each points down only: pytest_plugin -> running -> api, and no module imports itself back through
any chain, function-level imports included (a lazy import is still an arrow). The graph is read from
the source with ast, so the test needs no import of the package and sees every import statement.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mlacheck"
ROOMS = ("api", "running", "pytest_plugin", "cli")  # in order: a room may import only rooms left of it
ALLOWED = {"api": {"api"}, "running": {"api", "running"}, "pytest_plugin": {"api", "running", "pytest_plugin"},
           "cli": {"api", "running", "cli"}}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(path: Path) -> str:
    name = module_name(path)
    return name if path.name == "__init__.py" else name.rsplit(".", 1)[0]


def runtime_nodes(tree: ast.AST):
    """Every node of `tree` but those under `if TYPE_CHECKING:`, which never run (annotations only)."""
    pending = [tree]
    while pending:
        node = pending.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                pending.extend(child.orelse)
                continue
            pending.append(child)


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The package's modules `path` imports, at any depth of its code."""
    found: set[str] = set()
    here = package_of(path)
    for node in runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("mlacheck"):
                continue
            for alias in node.names:  # `from . import _capi` names a module; `from ._case import Case` a name
                candidate = f"{target}.{alias.name}"
                found.add(candidate if candidate in known else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("mlacheck"))
    return {m for m in found if m in known}


def import_graph() -> dict[str, set[str]]:
    files = sorted(PACKAGE.rglob("*.py"))
    known = {module_name(f) for f in files}
    return {module_name(f): imports_of(f, known) - {module_name(f)} for f in files}


def room_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else None


def test_the_package_is_three_rooms_and_a_public_face():
    loose = sorted(f.name for f in PACKAGE.glob("*.py") if f.name not in ("__init__.py", "__main__.py"))
    assert loose == [], f"modules outside a room: {loose}"
    for room in ROOMS:
        assert (PACKAGE / room / "__init__.py").is_file(), f"room {room} has no __init__.py"


def test_rooms_import_only_the_rooms_below_them():
    arrows = [
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        if room_of(module)
        for target in targets
        if room_of(target) and room_of(target) not in ALLOWED[room_of(module)]
    ]
    assert arrows == [], "imports against the rooms' order (pytest_plugin -> running -> api):\n" + "\n".join(arrows)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_module_imports_itself_back():
    graph = import_graph()
    # The package's face imports every room to re-export it; a room's __init__ importing its own
    # modules is no circle either. What must not exist is a module reached back from itself.
    inner = {m: {t for t in ts if t != "mlacheck"} for m, ts in graph.items() if m != "mlacheck"}
    cycle = find_cycle(inner)
    assert cycle is None, "an import circle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_circle():
    # A check that cannot fail proves nothing.
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("room", ROOMS)
def test_each_room_imports_alone(room):
    import importlib

    assert importlib.import_module(f"mlacheck.{room}") is not None
