"""The dependency rules of DEVELOPERS.md, checked over every module's imports
(read by the one import reader, tests/imports.py):

- engine/, tournaments/core/ and ratings/core/ import only the standard library
  and themselves;
- domain code of an app imports only apps to its left:
  outbox <- base <- idempotency <- clubs <- games <- ratings <- tournaments (outbox,
  base and idempotency are the bottom layers every app may use; they import none of
  them), and none of them imports ``config``, the top (settings and URLs);
  A view of a lower app may read a higher app only through its ``queries``
  module (pages that gather a person's whole record); tests are free;
- no view module imports the engine: a page asks its app's adapter (the board
  asks games.adapters);
- no import circle between the product modules, deferred imports in functions
  included (checked by the same reader; the cycle finder is tested on a sample).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.imports import (
    DYNAMIC,
    ROOT,
    cycle_through,
    edges_closing_cycles,
    import_graph,
    imported_modules,
    imported_roots,
    module_name,
    resolve,
)

APPS = ["outbox", "base", "idempotency", "clubs", "games", "ratings", "analysis", "tournaments"]
# Every top-level package of the product (a new one is checked from its first commit).
PRODUCT = sorted(
    path.parent.name for path in ROOT.glob("*/__init__.py") if path.parent.name != "tests"
)

# Packages of plain Python, and the computed imports each may make.
PURE = {
    "engine": {"engine.cli"},  # loads the importer a file format needs, by name, on first use
    "tournaments/core": set(),
    "ratings/core": set(),
}


def is_view_module(path: Path, app: str, root: Path = ROOT) -> bool:
    parts = path.relative_to(root / app).parts
    return parts[0] in {"views", "views.py"} or parts[0].startswith("views_")


def layering_violations(root: Path = ROOT) -> tuple[int, list[str]]:
    """(modules checked, imports of a higher app that the rules refuse)."""
    modules_checked = 0
    violations = []
    modules = import_graph([app for app in APPS if (root / app).is_dir()], root)
    for index, app in enumerate(APPS):
        higher = set(APPS[index + 1 :])
        for path in sorted((root / app).rglob("*.py")):
            modules_checked += 1
            view = is_view_module(path, app, root)
            for name in sorted(imported_modules(path, root)):
                top = name.split(".")[0]
                if top == "config":
                    violations.append(f"{path.relative_to(root)} imports {name} (the top)")
                    continue
                if top not in higher:
                    continue
                if view and resolve(name, modules) == f"{top}.queries":
                    continue  # a page of a lower app reads a higher one's queries
                violations.append(f"{path.relative_to(root)} imports {name}")
    return modules_checked, violations


def views_importing_the_engine(root: Path = ROOT) -> tuple[int, dict[str, list[str]]]:
    """(view modules checked, each view module that imports the engine -> what it imports)."""
    checked = 0
    offenders = {}
    for app in APPS:
        for path in sorted((root / app).rglob("*.py")):
            if not is_view_module(path, app, root):
                continue
            checked += 1
            engine = sorted(n for n in imported_modules(path, root) if n.split(".")[0] == "engine")
            if engine:
                offenders[str(path.relative_to(root))] = engine
    return checked, offenders


# --- The reader


def test_the_reader_sees_every_import_form(tmp_path: Path) -> None:
    package = tmp_path / "pkg" / "sub"
    package.mkdir(parents=True)
    sample = package / "sample.py"
    sample.write_text(
        "import os.path\nfrom django.db import models\nfrom . import sibling\n"
        "from ..other import name\nimport importlib\n"
        "importlib.import_module('tournaments.models')\n"
        "def later(kind):\n"
        "    from games import services\n"
        "    return importlib.import_module(kind)\n"
    )
    assert imported_modules(sample, tmp_path) == {
        "os.path",
        "django.db.models",
        "pkg.sub.sibling",
        "pkg.other.name",
        "importlib",
        "tournaments.models",
        "games.services",
        DYNAMIC,
    }
    assert imported_roots(sample, tmp_path) == {
        "os",
        "django",
        "pkg",
        "importlib",
        "tournaments",
        "games",
    }
    assert module_name(package / "__init__.py", tmp_path) == "pkg.sub"
    assert resolve("pkg.sub.sample.Thing", {"pkg.sub", "pkg.sub.sample"}) == "pkg.sub.sample"
    assert resolve("django.db.models", {"pkg.sub"}) is None


def test_the_cycle_finder_finds_a_deferred_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    (edge,) = edges_closing_cycles(graph)
    assert cycle_through(graph, edge) == ["c", "a", "b", "c"]
    assert edges_closing_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


# --- The rules


@pytest.mark.parametrize("package", sorted(PURE))
def test_pure_packages_import_only_the_standard_library_and_themselves(package: str) -> None:
    allowed_roots = set(sys.stdlib_module_names) | {"__future__"}
    own = package.replace("/", ".")
    modules = sorted((ROOT / package).rglob("*.py"))
    assert len(modules) >= 5
    offenders = {}
    for path in modules:
        bad = sorted(
            name
            for name in imported_modules(path)
            if name.split(".")[0] not in allowed_roots
            and name != own
            and not name.startswith(own + ".")
            and not (name == DYNAMIC and module_name(path) in PURE[package])
        )
        if bad:
            offenders[str(path.relative_to(ROOT))] = bad
    assert not offenders, f"{package}/ must stay pure: {offenders}"


def test_apps_depend_only_on_apps_to_their_left() -> None:
    modules_checked, violations = layering_violations()
    assert modules_checked >= len(APPS)
    assert not violations, "\n".join(violations)


def test_a_lower_view_reads_a_higher_app_only_through_its_queries(tmp_path: Path) -> None:
    for name in ("clubs/views/__init__.py", "clubs/models.py", "tournaments/__init__.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "tournaments" / "queries.py").write_text("")
    (tmp_path / "tournaments" / "services.py").write_text("")
    (tmp_path / "clubs" / "views" / "player.py").write_text(
        "from tournaments import queries\nfrom tournaments.queries import entries_of\n"
        "from tournaments import services\n"
    )
    (tmp_path / "clubs" / "models.py").write_text("from tournaments.queries import entries_of\n")
    _checked, violations = layering_violations(tmp_path)
    assert violations == [
        "clubs/models.py imports tournaments.queries.entries_of",
        "clubs/views/player.py imports tournaments.services",
    ]


def test_no_view_imports_the_engine() -> None:
    checked, offenders = views_importing_the_engine()
    assert checked >= 10  # the views of clubs, games, ratings and tournaments
    assert not offenders, f"views ask their app's adapter, not the engine: {offenders}"


def test_a_view_importing_the_engine_is_caught(tmp_path: Path) -> None:
    views = tmp_path / "games" / "views"
    views.mkdir(parents=True)
    (views / "board.py").write_text(
        "from games import adapters\nfrom engine.rules import game as eg\n"
        "def later():\n    from engine import movegen\n"
    )
    (tmp_path / "games" / "adapters.py").write_text("from engine.rules import game\n")
    checked, offenders = views_importing_the_engine(tmp_path)
    assert checked == 1
    assert offenders == {"games/views/board.py": ["engine.movegen", "engine.rules.game"]}


def test_no_import_circle() -> None:
    graph = import_graph(PRODUCT)
    assert {"clubs.models", "engine", "tournaments.core", "config.settings"} <= set(graph)
    circles = [" -> ".join(cycle_through(graph, edge)) for edge in edges_closing_cycles(graph)]
    assert not circles, "import circles:\n" + "\n".join(circles)
