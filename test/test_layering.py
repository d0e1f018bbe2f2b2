"""The code reads in one direction: the package layering of docs/DESIGN.md, checked.

Every import counts, wherever it stands (module level, inside a function, under
``TYPE_CHECKING``): a cycle dodged by a function-level import is still a cycle for a
reader. Checked from the source text with ``ast``, so nothing is imported to check it.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The layering, lowest first: a package may import only itself and the ones before it.
LAYERS = (
    "tapeflow_dialects",
    "targets",
    "lowering",
    "sim",
    "tapeflow_tools",
    "tapeflow_benchmarks",
)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in LAYERS:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _owner(name: str) -> str | None:
    """The project module that `name` (a module or a name in one) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> list[tuple[str, str, int]]:
    """(imported module, imported name or '', line) for every import of `module`."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, str, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (owner := _owner(alias.name)) and owner != module:
                    found.append((owner, "", node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in MODULES:
                    found.append((full, "", node.lineno))
                elif (owner := _owner(base)) and owner != module:
                    found.append((owner, alias.name, node.lineno))
    return found


@cache
def _graph() -> dict[str, list[tuple[str, str, int]]]:
    """Every module's imports, read when a test first asks (not while the suite is
    collected: each pytest-xdist worker collects every test module)."""
    return {module: _imports(module) for module in MODULES}


def test_packages_import_only_lower_layers() -> None:
    wrong = [
        f"{MODULES[m].relative_to(ROOT)}:{line} imports {target} "
        f"({target.split('.')[0]} is above {m.split('.')[0]})"
        for m, imports in _graph().items()
        for target, _, line in imports
        if LAYERS.index(target.split(".")[0]) > LAYERS.index(m.split(".")[0])
    ]
    assert not wrong, "\n".join(wrong)


def test_no_module_import_cycles() -> None:
    edges = {m: {t for t, _, _ in imports} for m, imports in _graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    assert not cycles, f"import cycles: {cycles}"


def test_no_private_names_across_modules() -> None:
    private = [
        f"{MODULES[m].relative_to(ROOT)}:{line} imports {name} from {target}"
        for m, imports in _graph().items()
        for target, name, line in imports
        if name.startswith("_") and not name.startswith("__")
    ]
    assert not private, "\n".join(private)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("tapeflow_dialects")))
def test_dialects_stand_alone(module: str) -> None:
    """Another xDSL tool can import the dialects alone."""
    outside = [t for t, _, _ in _graph()[module] if not t.startswith("tapeflow_dialects")]
    assert not outside, f"{module} imports {outside}"
