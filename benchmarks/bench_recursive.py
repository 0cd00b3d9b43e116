"""Growth of ``[M | delta]`` with the size of a tree: recursive vs virtual-power formulation.

The model is the 3-D chain of issue 13, written with the public API: ``n``
bodies, each hanging from the end of the previous one by three rotations
(intrinsic Z-Y-X Euler angles, a spherical joint), with a centre of mass off
every axis, a full inertia tensor and gravity.  For n = 2, 4, 8, 16 the script
derives the chain with both formulations (``System.derive(formulation=...)``)
and counts the operations of the exported ``M`` (upper triangle), ``delta``
and ``[M | delta]`` (the operation count of docs/explanation/architecture.md: ``sympy.count_ops`` over the emitted
assignments), then fits the exponent ``p`` of ``ops ~ n^p`` by least squares
on the log-log points.

Targets (issue 13): ``M`` no faster than ``n^2`` and the bias forces about
``n`` with the recursion.  ``--quick`` stops at n = 8 (the virtual-power count
at n = 16 takes minutes); ``--smoke`` runs n = 2 only.

Run: ``python benchmarks/bench_recursive.py [--quick|--smoke]``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from symbody.codegen.counts import op_count

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row  # noqa: E402

import symbody as sb  # noqa: E402

FORMULATIONS = ("recursive", "virtual_power")


def chain_3d(n: int) -> sb.System:
    """A chain of ``n`` rigid bodies joined by Z-Y-X spherical joints (3 coordinates each).

    Example:
        >>> chain_3d(2).derive().nq
        6
    """
    s = sb.System(f"chain3d_{n}")
    g = s.parameter("g", 9.81)
    s.gravity((0, 0, -g))
    base, point = s.ground_base, s.origin
    for k in range(n):
        angles = [s.coordinate(f"q{k}_{a}", 0.1 * (k + 1 + i)) for i, a in enumerate("zyx")]
        if k > 0:
            point = s.point(f"P{k}", point, sb.Vector(base, s.parameter(f"l{k - 1}", 1.0), 0, 0))
        base = s.base(f"B{k}", base, sb.EulerAngles("zyx", angles))
        m = s.parameter(f"m{k}", 1.0 + 0.1 * k)
        com = [s.parameter(f"c{k}_{a}", v) for a, v in zip("xyz", (0.5, 0.05, -0.03))]
        moments = [
            s.parameter(f"I{k}_{a}", v)
            for a, v in zip(("xx", "yy", "zz", "xy", "yz", "xz"), (0.1, 0.3, 0.35, 0.01, -0.02, 0.015))
        ]
        s.solid(f"link{k}", point, base, mass=m, com=com, inertia=sb.inertia(*moments))
    return s


def exponent(ns: list[int], values: list[int]) -> float:
    """Least-squares slope of ``log(values)`` against ``log(ns)``."""
    x = [math.log(v) for v in ns]
    y = [math.log(v) for v in values]
    mx, my = sum(x) / len(x), sum(y) / len(y)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)


def measure(n: int, formulation: str) -> dict:
    """Derivation time and operation counts of the chain of ``n`` bodies with one formulation."""
    t0 = time.perf_counter()
    eq = chain_3d(n).derive(formulation=formulation)
    seconds = time.perf_counter() - t0
    return {
        "derive_seconds": seconds,
        "M": op_count(eq, "M"),
        "delta": op_count(eq, "delta"),
        "M_delta": op_count(eq, "M", "delta"),
    }


def table(ns: list[int]) -> dict:
    """``{formulation: {n: measure(n, formulation)}}``."""
    return {f: {n: measure(n, f) for n in ns} for f in FORMULATIONS}


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    ns = [2] if smoke else [2, 4, 8] if quick else [2, 4, 8, 16]
    res = table(ns)
    rows = []
    for n in ns:
        r, v = res["recursive"][n], res["virtual_power"][n]
        rows.append(
            Row(
                "recursive dynamics",
                f"3-D chain n = {n} ({3 * n} DOF) [M|delta] ops, recursive vs virtual power",
                f"{r['M_delta']} ops (M {r['M']}, delta {r['delta']})",
                f"{v['M_delta']} ops (M {v['M']}, delta {v['delta']})",
                v["M_delta"] / r["M_delta"],
                ">= 1x",
                r["M_delta"] <= v["M_delta"],
                f"derived in {r['derive_seconds']:.2f} s vs {v['derive_seconds']:.2f} s",
            )
        )
    if len(ns) > 1:
        p = {f: {k: exponent(ns, [res[f][n][k] for n in ns]) for k in ("M", "delta", "M_delta")} for f in FORMULATIONS}
        last = ns[-2:]
        local = {f: {k: exponent(last, [res[f][n][k] for n in last]) for k in ("M", "delta")} for f in FORMULATIONS}
        rows.append(
            Row(
                "recursive dynamics",
                f"3-D chain n = {ns[0]}..{ns[-1]}: fitted exponent of ops ~ n^p",
                f"M {p['recursive']['M']:.2f}, delta {p['recursive']['delta']:.2f}, "
                f"[M|delta] {p['recursive']['M_delta']:.2f}",
                f"M {p['virtual_power']['M']:.2f}, delta {p['virtual_power']['delta']:.2f}, "
                f"[M|delta] {p['virtual_power']['M_delta']:.2f}",
                None,
                "M <= 2, delta ~ 1",
                local["recursive"]["M"] <= 2.0 and local["recursive"]["delta"] <= 1.2,
                f"last doubling (n = {ns[-2]} -> {ns[-1]}): recursive M n^{local['recursive']['M']:.2f}, "
                f"delta n^{local['recursive']['delta']:.2f}; virtual power M n^{local['virtual_power']['M']:.2f}, "
                f"delta n^{local['virtual_power']['delta']:.2f}",
            )
        )
    return rows


def main(argv: list[str]) -> None:
    quick, smoke = "--quick" in argv, "--smoke" in argv
    for row in run(quick=quick, smoke=smoke):
        print(f"{row.case}\n    symbody recursive: {row.symbody}\n    virtual power:     {row.alternative}")
        if row.note:
            print(f"    {row.note}")


if __name__ == "__main__":
    main(sys.argv[1:])
