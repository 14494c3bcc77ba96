"""tournaments.core is plain Python: only the standard library and itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import tournaments.core

CORE = Path(tournaments.core.__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                found.add("tournaments.core")  # relative: inside the package
            elif node.module:
                found.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            found.add(str(node.args[0].value))
    return found


def allowed(module: str) -> bool:
    root = module.split(".")[0]
    if root in sys.stdlib_module_names or root == "__future__":
        return True
    return module == "tournaments.core" or module.startswith("tournaments.core.")


def test_the_core_imports_only_the_standard_library_and_itself() -> None:
    modules = sorted(CORE.rglob("*.py"))
    assert len(modules) >= 10
    offenders = {
        str(path.relative_to(CORE)): sorted(m for m in imported_modules(path) if not allowed(m))
        for path in modules
    }
    offenders = {path: bad for path, bad in offenders.items() if bad}
    assert not offenders, f"tournaments/core must stay pure: {offenders}"


def test_the_checker_sees_django_and_app_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import django\nfrom tournaments.models import X\nfrom tournaments.core import types\n"
        "import importlib\nimportlib.import_module('ratings.models')\n"
    )
    bad = sorted(m for m in imported_modules(sample) if not allowed(m))
    assert bad == ["django", "ratings.models", "tournaments.models"]
