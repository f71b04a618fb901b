"""The house has no circle: theme/'s imports, read from the code (at module level, inside
functions and under TYPE_CHECKING alike, since each is a dependency all the same), make no loop
of modules, and the rooms at the top of theme/ (its packages and loose modules) stand in floors:
none imports one that imports it back, however indirectly. docs/architecture.md draws them."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
THEME = REPO / "theme"


def modules() -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, whether it is a package's __init__.py)."""
    found = {}
    for path in THEME.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def imports() -> dict[str, set[str]]:
    """Module -> the theme modules it imports. `from P import name` is an import of P.name when
    that is a module, else of P itself."""
    known = modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for name, (path, package) in known.items():
        here = name if package else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges[name] |= {a.name for a in node.names if a.name in known}
            elif isinstance(node, ast.ImportFrom):
                base = here.split(".")[:len(here.split(".")) - node.level + 1] if node.level else []
                source = ".".join(base + ([node.module] if node.module else []))
                if source not in known:
                    continue
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    edges[name].add(sub if sub in known else source)
        edges[name].discard(name)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def room(module: str) -> str:
    """The entry at the top of theme/ that holds `module` (theme.capture.lanes -> theme.capture)."""
    return ".".join(module.split(".")[:2])


def test_no_module_imports_itself_back():
    assert circles(imports()) == []


def test_the_rooms_at_the_top_stand_in_floors():
    # theme/__init__.py re-exports the errors; every room may read the version from it
    rooms: dict[str, set[str]] = defaultdict(set)
    for module, targets in imports().items():
        rooms[room(module)] |= {room(t) for t in targets if t != "theme" and room(t) != room(module)}
    assert circles(rooms) == []


def test_the_top_of_theme_holds_at_most_twelve_entries():
    """The house reads at a glance: the shells, core/ and one package per role, twelve entries at most."""
    top = sorted(p.name for p in THEME.iterdir() if p.name != "__pycache__")
    assert len(top) <= 12, top


def outside_imports(path: Path) -> set[str]:
    """The top-level names of the packages `path` imports from outside theme (`pytest`, `playwright`…)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_the_shells_hold_their_own_libraries_and_no_other():
    """The pytest shell is the only module that imports pytest, and it drives no browser:
    Playwright is the capture room's (assert_snapshot's picture is theme/capture/picture.py)."""
    by = {name: outside_imports(path) for name, (path, _) in modules().items()}
    assert sorted(n for n, names in by.items() if names & {"pytest", "_pytest"}) == ["theme.pytest_plugin"]
    assert sorted(n for n, names in by.items() if "playwright" in names and not n.startswith("theme.capture.")) == []
