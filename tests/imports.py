"""One reader of the imports of a Python file, for the tests that hold the layering rules
(tests/test_layering.py): which modules a file imports, and the import graph of packages."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

DYNAMIC = "<dynamic import>"
"""Stands for ``importlib.import_module(name)`` with a name computed at run time."""


def module_name(path: Path, root: Path = ROOT) -> str:
    """``tournaments/core/__init__.py`` -> ``tournaments.core``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package_of(path: Path, root: Path) -> list[str]:
    name = module_name(path, root).split(".")
    return name if path.name == "__init__.py" else name[:-1]


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Every module the file imports, anywhere in it (in functions too), by absolute name.

    ``from a.b import c`` gives ``a.b.c``: ``c`` may be a module or a name in
    ``a.b``; the caller that needs to know matches it against real modules
    (``resolve``).  Relative imports are read from the file's place under ``root``;
    ``import_module``/``__import__`` count with a written name, and give ``DYNAMIC``
    with a computed one.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = _package_of(path, root)
                base_parts = package[: len(package) - (node.level - 1)]
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            found.update(f"{base}.{alias.name}".lstrip(".") for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
        ):
            argument = node.args[0]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
                found.add(argument.value)
            else:
                found.add(DYNAMIC)
    return found


def imported_roots(path: Path, root: Path = ROOT) -> set[str]:
    """The top-level packages the file imports (``DYNAMIC`` left out)."""
    return {name.split(".")[0] for name in imported_modules(path, root) if name != DYNAMIC}


def resolve(name: str, modules: Iterable[str]) -> str | None:
    """The module of ``modules`` that an imported name loads: the name itself, or the
    longest module it is a name in (``a.b.C`` -> ``a.b``); None outside ``modules``."""
    known = set(modules)
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def import_graph(packages: Iterable[str], root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ``packages`` it imports (itself left out).

    An import of ``a.b.c`` is an edge to ``a.b.c`` only, not to ``a`` and ``a.b``
    whose ``__init__`` it also runs: a package's ``__init__`` that gathers its
    submodules would otherwise close a loop with each of them."""
    paths = {
        module_name(path, root): path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.relative_to(root).parts
    }
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets = {resolve(name, paths) for name in imported_modules(path, root)}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def edges_closing_cycles(graph: Mapping[str, Iterable[str]]) -> list[tuple[str, str]]:
    """The back edges of a depth-first walk in name order: the graph has no cycle
    exactly when there are none, and removing them all leaves it without one."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    back: list[tuple[str, str]] = []
    for start in sorted(graph):
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(sorted(graph[start])))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                back.append((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(sorted(graph.get(child, ())))))
    return back


def cycle_through(graph: Mapping[str, Iterable[str]], edge: tuple[str, str]) -> list[str]:
    """A shortest cycle that uses ``edge`` (a -> b): b ... a, a path back to a."""
    a, b = edge
    previous: dict[str, str | None] = {b: None}
    queue = [b]
    for node in queue:
        if node == a:
            break
        for child in sorted(graph.get(node, ())):
            if child not in previous:
                previous[child] = node
                queue.append(child)
    path: list[str] = []
    step: str | None = a
    while step is not None:
        path.append(step)
        step = previous[step]
    return [a, *reversed(path)]
