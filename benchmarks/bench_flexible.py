"""Growth of a flexible beam's equations with its number of segments (rigid finite element method).

The model is a steel cantilever built with ``System.flexible_beam`` (Kruszewski's division, four
coordinates per spring: axial, two bending rotations, torsion) under gravity, with ``n`` segments.
For n = 2, 4, 8, 16 (and the tower crane of
``examples/crane_control/flexible_tower_crane.py`` with as many segments in its mast and in its jib: 67
coordinates at n = 16) the
script derives it (``formulation="auto"``: the recursion on the chain of
relative joints, with the articulated-body accelerations) and counts the operations of the exported
accelerations (``accelerations`` and ``pivots``, the FMU's hot path), of ``delta`` and of ``M``
(the operation count of docs/explanation/architecture.md), then fits the exponent ``p`` of ``ops ~ n^p``.

Target: the accelerations and ``delta`` grow no faster than linearly with ``n`` (the dense ``M`` of a
chain is exempt).  ``--quick`` stops at n = 8; ``--smoke`` runs n = 2 only.

Run: ``python benchmarks/bench_flexible.py [--quick|--smoke]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from symbody.codegen.counts import op_count

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "crane_control"))

import flexible_tower_crane  # noqa: E402
from bench_recursive import exponent  # noqa: E402
from common import Row  # noqa: E402

import symbody as sb  # noqa: E402


def cantilever(n: int) -> sb.System:
    """A 2 m steel cantilever of ``n`` segments (4 coordinates each) under gravity.

    Example:
        >>> cantilever(2).derive().nq
        8
    """
    s = sb.System(f"flexible_{n}")
    s.gravity((0, 0, -s.parameter("g", 9.81, unit="m/s2")))
    s.flexible_beam("beam", s.ground, length=2.0, segments=n, E=2.1e11, G=8.1e10, rho=7850.0, area=2e-3,
                    Iy=4e-6, Iz=6e-6, J=8e-6)  # fmt: skip
    return s


def measure(n: int, model=cantilever) -> dict:
    """Derivation time and operation counts of the model (cantilever or crane) of ``n`` segments per beam."""
    t0 = time.perf_counter()
    eq = model(n).derive()
    seconds = time.perf_counter() - t0
    return {
        "derive_seconds": seconds,
        "method": eq.accelerations_method,
        "ddq": op_count(eq, "accelerations", "pivots"),
        "delta": op_count(eq, "delta"),
        "M": op_count(eq, "M"),
    }


def crane(n: int) -> sb.System:
    """``examples/crane_control/flexible_tower_crane.py`` with ``n`` segments in its mast and in its jib."""
    return flexible_tower_crane.build(True, n)


MODELS = {
    "cantilever": (cantilever, "cantilever ({} coordinates)", 4, 0),
    "crane": (crane, "tower crane, n segments in mast and jib ({} coordinates)", 4, 3),
}


def rows_of(key: str, ns: list[int]) -> list[Row]:
    model, label, per_segment, extra = MODELS[key]
    res = {n: measure(n, model) for n in ns}
    rows = [
        Row(
            "flexible beam",
            label.format(per_segment * n + extra) + f", n = {n}: ops of the accelerations, delta, M",
            f"ddq {r['ddq']} ({r['method'] or 'none'}), delta {r['delta']}, M {r['M']}",
            "-",
            None,
            "ddq, delta ~ n",
            None,
            f"derived in {r['derive_seconds']:.2f} s",
        )
        for n, r in res.items()
    ]
    if len(ns) > 1:
        p = {k: exponent(ns, [res[n][k] for n in ns]) for k in ("ddq", "delta", "M")}
        last = ns[-2:]
        local = {k: exponent(last, [res[n][k] for n in last]) for k in ("ddq", "delta")}
        rows.append(
            Row(
                "flexible beam",
                f"{key} n = {ns[0]}..{ns[-1]}: fitted exponent of ops ~ n^p",
                f"ddq {p['ddq']:.2f}, delta {p['delta']:.2f}, M {p['M']:.2f}",
                "-",
                None,
                "ddq, delta <= 1.2",
                local["ddq"] <= 1.2 and local["delta"] <= 1.2,
                f"last doubling (n = {ns[-2]} -> {ns[-1]}): ddq n^{local['ddq']:.2f}, delta n^{local['delta']:.2f}",
            )
        )
    return rows


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    ns = [2] if smoke else [2, 4, 8] if quick else [2, 4, 8, 16]
    return rows_of("cantilever", ns) + rows_of("crane", ns)


def main(argv: list[str]) -> None:
    quick, smoke = "--quick" in argv, "--smoke" in argv
    for row in run(quick=quick, smoke=smoke):
        print(f"{row.case}\n    {row.symbody}")
        if row.note:
            print(f"    {row.note}")


if __name__ == "__main__":
    main(sys.argv[1:])
