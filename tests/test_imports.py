"""The import graph of ``app/``: no cycles, every import goes down the layers, and library
code never imports CLI code.

The graph is read from the source with ``ast``. It holds every import statement: at module
level, including those under ``if TYPE_CHECKING:``, ``try`` and class bodies (a type-only
import still ties the two modules together — it is how a mixin ended up importing its own
subclass), and inside functions (they run later, and keep optional dependencies such as
matplotlib out of light commands, but they tie the modules together all the same).

An edge goes to the module named, not to the packages above it: ``from app.a.b import c``
points at ``app.a.b.c`` when that is a module, else at ``app.a.b``.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"

# Cycles allowed (none: each entry must go when its cycle does).
ALLOWED_CYCLES: list[frozenset[str]] = []

# The layers of app/, lowest first (docs/architecture.md, "Layers"). A module is in the layer
# of the longest prefix that names it; it may import its own layer and those below, never one
# above. The families' contract (``app.families.base``, the time hooks) sits between the
# policies and the service; the declarations (``app.families.<name>``, the registry) compose a
# family from its adapter, hooks, API models and routers, so they sit above the API, with
# ``app.main``.
LAYERS: list[tuple[str, ...]] = [
    ("app", "app.ids", "app.errors", "app.redact", "app.config", "app.logs", "app.tracing",
     "app.store"),
    ("app.policies",),
    ("app.kubernetes", "app.metrics"),
    ("app.families.base", "app.families.clocks"),
    ("app.service",),
    ("app.api", "app.dashboard"),
    ("app.families",),
    ("app.main", "app.sim", "app.bench", "app.cli"),
]
# Imports that go up a layer, each with the issue that removes it.
ALLOWED_UPWARD: set[tuple[str, str]] = set()


def module_names(root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(tree: ast.Module):
    """Every import statement of the module, those inside functions included."""
    return (node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> the modules of the same tree it imports."""
    modules = module_names(root)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in _imports(ast.parse(path.read_text(), str(path))):
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


def test_imports_inside_functions_are_edges(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "a.py": "import pkg.b\n",
        "b.py": "def f():\n    from pkg import a\n    return a\n",
    })
    assert import_graph(root)["pkg.b"] == {"pkg.a"}
    assert cycles(import_graph(root)) == [frozenset({"pkg.a", "pkg.b"})]


def layer_of(module: str, layers: list[tuple[str, ...]] = LAYERS) -> int:
    """The layer of the longest prefix naming ``module``."""
    best, depth = -1, -1
    for i, prefixes in enumerate(layers):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and \
                    prefix.count(".") > depth:
                best, depth = i, prefix.count(".")
    assert best >= 0, f"{module} is in no layer: add it to LAYERS"
    return best


def upward_imports(graph: dict[str, set[str]], layers: list[tuple[str, ...]] = LAYERS
                   ) -> list[tuple[str, str]]:
    return sorted((m, t) for m, targets in graph.items() for t in targets
                  if layer_of(t, layers) > layer_of(m, layers))


def test_app_imports_go_down_the_layers() -> None:
    found = upward_imports(import_graph(APP))
    unexpected = [e for e in found if e not in ALLOWED_UPWARD]
    assert not unexpected, f"imports from a lower layer to a higher one: {unexpected}"
    stale = sorted(ALLOWED_UPWARD - set(found))
    assert not stale, f"these imports are gone: remove them from ALLOWED_UPWARD: {stale}"


def test_an_upward_import_inside_a_function_is_found(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "low.py": "def f():\n    from pkg.high import g\n    return g\n",
        "high.py": "import pkg.low\n",
        "mid/__init__.py": "", "mid/m.py": "from pkg import low\n",
    })
    layers = [("pkg", "pkg.low"), ("pkg.mid",), ("pkg.high",)]
    assert layer_of("pkg.mid.m", layers) == 1
    assert upward_imports(import_graph(root), layers) == [("pkg.low", "pkg.high")]
