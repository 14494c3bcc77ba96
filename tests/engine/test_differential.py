"""Our legal plays against GNU Backgammon's on reachable positions (short family)."""

from __future__ import annotations

import pytest

from engine.rules.variants import HYPERGAMMON, NACKGAMMON, SHORT, Variant
from tests.engine.differential import run


@pytest.mark.parametrize(
    ("variant", "count"), [(SHORT, 5000), (NACKGAMMON, 1500), (HYPERGAMMON, 1500)]
)
def test_legal_plays_agree_with_gnubg(variant: Variant, count: int) -> None:
    mismatches = run(count, seed=20240601, variant=variant)
    report = "\n".join(m.describe() for m in mismatches[:5])
    assert not mismatches, f"{len(mismatches)} of {count} positions differ from gnubg:\n{report}"
