"""ratings.core is plain Python: importing it loads no Django.

What its modules import is checked with the other pure packages in tests/test_layering.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[3] / "ratings" / "core"


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
