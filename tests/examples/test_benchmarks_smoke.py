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


def test_results_merge_replaces_only_the_rows_of_the_benchmarks_run():
    run = importlib.import_module("run")
    from common import Row

    old = run.render(
        [
            Row("redone", "y", "9 ms", "2 ms", 0.2, ">= 1x", False, "stale note"),
            Row("kept", "x [M|delta]", "1 ms", "2 ms", 2.0, ">= 1x", True, "kept note"),
        ],
        {"python": "3"},
        False,
        1.0,
        [],
    )
    old += "\n  | a hand-written sub-table | of the kept note |\n"  # a note's continuation lines stay with it
    new = run.merged(
        old, [Row("redone", "y", "1 ms", "2 ms", 2.0, ">= 1x", True, "fresh note")], {"cpu": "c"}, ["--merge"], 1.0, []
    )
    assert "| kept | x [M\\|delta] | 1 ms | 2 ms | 2.0x | >= 1x | yes |" in new
    assert "| redone | y | 1 ms | 2 ms | 2.0x | >= 1x | yes |" in new and "9 ms" not in new
    assert "kept note" in new and "a hand-written sub-table" in new
    assert "fresh note" in new and "stale note" not in new
    assert "Rows redone were measured later: `python benchmarks/run.py --merge`" in new


def test_results_merge_drops_the_earlier_line_of_rows_measured_again():
    run = importlib.import_module("run")
    from common import Row

    old = run.render([Row("a", "x", "1 ms", "2 ms", 2.0, ">= 1x", True), Row("b", "y", "1 ms", "2 ms", 2.0, "-", None)],
                     {"python": "3"}, False, 1.0, [])  # fmt: skip
    once = run.merged(old, [Row("a", "x", "3 ms", "2 ms", 0.7, ">= 1x", False)], {}, ["--only", "a"], 1.0, [])
    both = run.merged(once, [Row("b", "y", "3 ms", "2 ms", 0.7, "-", None)], {}, ["--only", "b"], 1.0, [])
    again = run.merged(both, [Row("a", "x", "1 ms", "2 ms", 2.0, ">= 1x", True)], {}, ["--only", "a"], 1.0, [])
    later = [line for line in again.splitlines() if "were measured later" in line]
    assert [line.split(" were")[0] for line in later] == ["Rows b", "Rows a"], later
    assert "\n\n\n" not in again
