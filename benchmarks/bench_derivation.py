"""Derivation speed: symbody ``derive()`` + C emission against SymPy's ``KanesMethod``.

The model is PyDy's ``n_link_pendulum_on_cart`` (``examples/n_link_pendulum_on_cart.py``
for symbody; the same system built with ``sympy.physics.mechanics`` for Kane,
exactly as ``pydy.models`` does, without PyDy's wrapper).  symbody's time
includes the C code of ``[M | delta]`` (export plan, optimization and printing),
SymPy's only the derivation of the mass matrix and forcing vector.

Targets (issue 6): at least 20x faster at n = 20; n = 50 in under 10 s.

Run: ``python benchmarks/bench_derivation.py [--quick]``.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from symbody.codegen.counts import export_plan

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import EXAMPLES, Row, fmt_time, load_example  # noqa: E402

T = TypeVar("T")


def kane_n_link(n: int):
    """KanesMethod of the n-link pendulum on a cart (``kane_reference`` of the example file)."""
    from symbody.loader import load_module

    return load_module(EXAMPLES / "n_link_pendulum_on_cart.py").kane_reference(n)[0]


def symbody_derive_and_emit(n: int) -> tuple[float, int]:
    """Seconds for build + derive + C text of [M | delta], and the number of C lines."""
    from symbody.symbolic.printing import CPrinter

    t0 = time.perf_counter()
    eq = load_example("n_link_pendulum_on_cart", n=n).derive()
    plan = export_plan(eq, "M", "delta", symmetric_M=True)
    printer = CPrinter()
    lines = [f"double {name} = {plan.rhs_text(e, printer)};" for name, e in plan.assignments()]
    for block, exprs in plan.blocks.items():
        lines += [f"{block}[{i}] = {plan.rhs_text(e, printer, top=False)};" for i, e in enumerate(exprs)]
    return time.perf_counter() - t0, len(lines)


def without_gc(fn: Callable[[], T]) -> T:
    """``fn()`` with the cyclic garbage collector off, after a full collection (as ``timeit`` does).

    Otherwise the time would include full collections over whatever the benchmarks run
    before left alive (SymPy's caches after ``bench_code_size``: 25 ms per collection).
    """
    gc.collect()
    gc.disable()
    try:
        return fn()
    finally:
        gc.enable()


def seconds(fn: Callable[[], object]) -> float:
    """Wall time of ``fn()``."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    sizes = [1] if smoke else ([1, 5, 10, 20] if quick else [1, 5, 10, 20, 50])
    kane_max = 5 if smoke else 20
    rows = []
    for n in sizes:
        t_sb, _ = without_gc(lambda: symbody_derive_and_emit(n))  # noqa: B023 - called at once
        if n <= kane_max:
            t_k = without_gc(lambda: seconds(lambda: kane_n_link(n)))  # noqa: B023 - called at once
            ratio = t_k / t_sb
            target = ">= 20x" if n == 20 else "-"
            met = ratio >= 20 if n == 20 else None
            rows.append(
                Row(
                    "derivation",
                    f"n-link pendulum on cart, n = {n}",
                    fmt_time(t_sb),
                    f"KanesMethod {fmt_time(t_k)}",
                    ratio,
                    target,
                    met,
                )
            )
        else:
            rows.append(
                Row(
                    "derivation",
                    f"n-link pendulum on cart, n = {n}",
                    fmt_time(t_sb),
                    "KanesMethod not run (several minutes)",
                    None,
                    "< 10 s",
                    t_sb < 10.0,
                )
            )
    return rows


if __name__ == "__main__":
    for r in run(quick="--quick" in sys.argv):
        print(r)
