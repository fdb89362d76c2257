"""The import graph of ``app/``: no cycles, and library code never imports CLI code.

The graph is read from the source with ``ast``. It holds every import executed when a module
is loaded: statements at module level, including those under ``if TYPE_CHECKING:``, ``try``
and class bodies (a type-only import still ties the two modules together — it is how a mixin
ended up importing its own subclass). Imports inside functions are left out: they run later,
and the code uses them on purpose to keep optional dependencies (matplotlib, the service)
out of light commands.

An edge goes to the module named, not to the packages above it: ``from app.a.b import c``
points at ``app.a.b.c`` when that is a module, else at ``app.a.b``.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"

# Cycles left for issue #13 part B, which is rewriting these modules; each entry must go
# when its cycle does. To be removed by issue #13 part B.
ALLOWED_CYCLES: list[frozenset[str]] = [
]


def module_names(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _load_time_imports(tree: ast.Module):
    """Import statements that run when the module is loaded (not inside functions)."""
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        stack.extend(ast.iter_child_nodes(node))


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the modules of the same tree it imports at load time."""
    modules = module_names(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _load_time_imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    targets.add(alias.name)
                continue
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.add(sub if sub in modules else base)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_app_has_no_import_cycle_outside_the_allow_list() -> None:
    found = cycles(import_graph(APP))
    unexpected = [sorted(c) for c in found if c not in ALLOWED_CYCLES]
    assert not unexpected, f"import cycles in app/: {unexpected}"
    stale = [sorted(c) for c in ALLOWED_CYCLES if c not in found]
    assert not stale, f"these cycles are gone: remove them from ALLOWED_CYCLES: {stale}"


def test_library_code_never_imports_cli_code() -> None:
    def is_cli(name: str) -> bool:
        last = name.rpartition(".")[2]
        return last == "cli" or last.endswith("_cli")

    graph = import_graph(APP)
    bad = {m: sorted(t for t in targets if is_cli(t)) for m, targets in graph.items()
           if not is_cli(m) and any(is_cli(t) for t in targets)}
    assert not bad, f"library modules importing CLI modules: {bad}"


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_type_only_import_back_is_a_cycle(tmp_path: Path) -> None:
    """The shape the DRA views mixin had: the engine imports the mixin, the mixin imports
    the engine under TYPE_CHECKING."""
    root = _package(tmp_path, {
        "engine.py": "from pkg.views import Views\n",
        "views.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from pkg.engine import Engine\n",
        "other.py": "from . import engine\n",
    })
    assert cycles(import_graph(root)) == [frozenset({"pkg.engine", "pkg.views"})]


def test_imports_inside_functions_are_not_edges(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "a.py": "import pkg.b\n",
        "b.py": "def f():\n    from pkg import a\n    return a\n",
    })
    assert import_graph(root)["pkg.b"] == set()
    assert cycles(import_graph(root)) == []
