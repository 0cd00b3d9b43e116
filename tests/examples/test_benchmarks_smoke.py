"""Every benchmark script runs on its smallest case, so the scripts cannot rot (timings are not checked)."""

import importlib
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

NAMES = sorted(p.stem for p in BENCH.glob("bench_*.py")) + sorted(p.stem for p in BENCH.glob("fmu_*.py"))


@pytest.mark.slow  # about 30 s for all scripts, which are no part of the package: CI keeps them working
@pytest.mark.parametrize("name", NAMES)
def test_benchmark_smoke(name):
    mod = importlib.import_module(name)
    if not hasattr(mod, "run"):
        pytest.skip(f"{name} defines no run()")
    rows = mod.run(quick=True, smoke=True)
    assert rows, f"{name} produced no rows"
    for r in rows:
        assert r.benchmark and r.case and r.symbody and r.alternative and r.target


def test_results_table_renders(tmp_path):
    run = importlib.import_module("run")
    from common import Row

    text = run.render(
        [Row("b", "c [M|delta]", "1 ms", "2 ms", 2.0, ">= 1x", True, "note")], {"python": "3"}, True, 1.0, []
    )
    assert "c [M\\|delta]" in text and "| 2.0x |" in text and "## Notes" in text
