"""The ratings benchmark runs (tiny sizes: this checks it works, not its speed)."""

from __future__ import annotations

import pytest

from tests.benchmarks import bench_ratings_maths


def test_benchmark_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--matches", "3000", "--players", "50", "--rounds", "1", "--glicko-matches", "500"]
    assert bench_ratings_maths.main(argv) == 0
    out = capsys.readouterr().out
    assert "ratio: recompute is" in out
    assert "history rows: 6,000" in out
    assert "Glicko-2 (for information)" in out
