"""ratings.core is plain Python: the standard library and itself, never Django."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[3] / "ratings" / "core"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: use absolute imports"
            assert node.module
            found.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module":
            found.add("<dynamic import>")
    return found


def test_core_imports_only_the_standard_library_and_itself() -> None:
    allowed_roots = set(sys.stdlib_module_names) | {"__future__"}
    files = sorted(CORE.rglob("*.py"))
    assert len(files) >= 6
    offenders = {}
    for path in files:
        bad = {
            name
            for name in imported_modules(path)
            if name.split(".")[0] not in allowed_roots
            and name != "ratings.core"
            and not name.startswith("ratings.core.")
        }
        if bad:
            offenders[path.name] = sorted(bad)
    assert not offenders, f"ratings/core must stay pure: {offenders}"


def test_importing_core_loads_no_django() -> None:
    code = (
        "import sys, ratings.core, ratings.core.lists, ratings.core.periods;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'config'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=CORE.parents[1],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "[]"
