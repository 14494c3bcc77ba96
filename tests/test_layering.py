"""The dependency rules of DEVELOPERS.md, checked over every module's imports.

- engine/ imports only the standard library and itself;
- domain code of an app imports only apps to its left:
  outbox <- idempotency <- clubs <- games <- ratings <- tournaments (outbox and
  idempotency are the bottom layers every app may use; they import none of them).  Views may read higher apps'
  query functions (pages that gather a person's whole record), tests are free.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ["outbox", "idempotency", "clubs", "games", "ratings", "tournaments"]
FRAMEWORKS = {"django", "rest_framework", "drf_spectacular", "celery", "kombu", "config"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            roots.add(str(node.args[0].value).split(".")[0])
    return roots


def is_view_module(path: Path, app: str) -> bool:
    parts = path.relative_to(ROOT / app).parts
    return parts[0] in {"views", "views.py"} or parts[0].startswith("views_")


def test_imported_roots_sees_every_import_form(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os.path\nfrom django.db import models\nfrom . import sibling\n"
        "import importlib\nimportlib.import_module('tournaments.models')\n"
    )
    assert imported_roots(sample) == {"os", "django", "importlib", "tournaments"}


def test_engine_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"engine", "__future__"}
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_roots(path) - allowed)
        for path in (ROOT / "engine").rglob("*.py")
    }
    offenders = {path: bad for path, bad in offenders.items() if bad}
    assert not offenders, f"engine/ must stay pure: {offenders}"


def test_apps_depend_only_on_apps_to_their_left() -> None:
    modules_checked = 0
    violations = []
    for index, app in enumerate(APPS):
        forbidden = set(APPS[index + 1 :])
        for path in (ROOT / app).rglob("*.py"):
            modules_checked += 1
            if is_view_module(path, app):
                continue
            bad = imported_roots(path) & forbidden
            if bad:
                violations.append(f"{path.relative_to(ROOT)} imports {sorted(bad)}")
    assert modules_checked >= len(APPS)
    assert not violations, "\n".join(violations)
