"""MATLAB code size: operations of the ``.m`` export against the SymPy-bridge route.

Before the MATLAB export, the way from a symbody model to MATLAB was the SymPy bridge:
``Equations.sympy(block)`` de-atomizes a block and ``sympy.octave_code`` prints it.  Both routes
are counted the same way (the sum of ``sympy.count_ops`` over the emitted assignments,
docs/explanation/architecture.md) over the same entries (the nonzero entries of each block, the upper
triangle of ``M``): the ``.m`` functions of ``symbody export --format matlab`` (the counts of
:class:`symbody.codegen.matlab_model.MatlabExport`, equal to the C export's), and the right-hand
sides the bridge prints.  The note of each row gives the bridge followed by ``sympy.cse``, a step the
bridge route can add by hand.

Rows: per example, ``[M | delta]`` and the whole export (dynamics, constraints, outputs and the
closed-form accelerations).  Target: the ``.m`` code no larger than the bridge's (ratio >= 1).

Run: ``python benchmarks/bench_matlab.py [--quick]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import sympy

from symbody.codegen.counts import EXPORTED_FUNCTIONS, exported_entries
from symbody.codegen.matlab_model import MatlabExport
from symbody.symbolic.sympy_bridge import to_sympy

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, load_example  # noqa: E402

EXAMPLES = ["simple_pendulum", "four_bar", "slider_crank", "crank_rod_disc", "overhead_crane", "tower_crane"]


def bridge_ops(eq, function: str) -> tuple[int, int]:
    """Operations of the bridge's code for one exported function: as printed, and after ``sympy.cse``."""
    cache: dict = {}
    exprs = [to_sympy(e, cache=cache) for block in EXPORTED_FUNCTIONS[function] for _, e in exported_entries(eq, block)]
    if not exprs:
        return 0, 0
    assert sympy.octave_code(sympy.Matrix(exprs))  # the route's MATLAB text (counted on its expressions)
    plain = sum(int(sympy.count_ops(e)) for e in exprs)
    replacements, reduced = sympy.cse(exprs)
    return plain, sum(int(sympy.count_ops(r)) for _, r in replacements) + sum(int(sympy.count_ops(r)) for r in reduced)


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    names = EXAMPLES[:1] if smoke else (EXAMPLES[:3] if quick else EXAMPLES)
    rows = []
    for name in names:
        eq = load_example(name).derive()
        ops = MatlabExport(eq).ops
        counts = {function: bridge_ops(eq, function) for function in EXPORTED_FUNCTIONS}
        cases = [("[M|delta]", ["M_delta"]), ("whole export", list(EXPORTED_FUNCTIONS))]
        for case, functions in cases:
            mine = sum(ops[f] for f in functions)
            plain = sum(counts[f][0] for f in functions)
            cse = sum(counts[f][1] for f in functions)
            rows.append(
                Row(
                    "MATLAB code size",
                    f"{name} {case}",
                    f"{mine} ops",
                    f"SymPy bridge {plain} ops",
                    plain / mine if mine else None,
                    ">= 1x",
                    plain >= mine,
                    f"with sympy.cse added by hand: {cse} ops ({cse / mine:.2f}x)" if mine else "",
                )
            )
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv, smoke="--smoke" in sys.argv):
        print(r)
