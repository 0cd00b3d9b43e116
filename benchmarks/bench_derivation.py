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

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Row, fmt_time, load_example  # noqa: E402


def kane_n_link(n: int):
    """KanesMethod of the n-link pendulum on a cart (the pydy model, built with sympy.physics.mechanics)."""
    import sympy as sm
    import sympy.physics.mechanics as me

    q = me.dynamicsymbols(f"q:{n + 1}")
    u = me.dynamicsymbols(f"u:{n + 1}")
    T = me.dynamicsymbols(f"T1:{n + 1}")
    F = me.dynamicsymbols("F")
    m = sm.symbols(f"m:{n + 1}")
    l = sm.symbols(f"l:{n}")  # noqa: E741
    g = sm.symbols("g")
    N = me.ReferenceFrame("I")
    O = me.Point("O")
    O.set_vel(N, 0)
    P0 = O.locatenew("P0", q[0] * N.x)
    P0.set_vel(N, u[0] * N.x)
    particles = [me.Particle("Pa0", P0, m[0])]
    forces = [(P0, -m[0] * g * N.y), (P0, F * N.x)]
    prev = P0
    for i in range(n):
        B = N.orientnew(f"B{i}", "Axis", [q[i + 1], N.z])
        B.set_ang_vel(N, u[i + 1] * N.z)
        P = prev.locatenew(f"P{i + 1}", l[i] * B.x)
        P.v2pt_theory(prev, N, B)
        particles.append(me.Particle(f"Pa{i + 1}", P, m[i + 1]))
        forces.append((P, -m[i + 1] * g * N.y))
        if i == 0:
            forces.append((N, -T[i] * N.z))
        forces.append((B, (T[i] - (T[i + 1] if i < n - 1 else 0)) * N.z))
        prev = P
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)])
    kane.kanes_equations(particles, forces)
    return kane


def symbody_derive_and_emit(n: int) -> tuple[float, int]:
    """Seconds for build + derive + C text of [M | delta], and the number of C lines."""
    from symbody.symbolic.printing import CPrinter

    t0 = time.perf_counter()
    eq = load_example("n_link_pendulum_on_cart", n=n).derive()
    plan = eq.export_plan("M", "delta", symmetric_M=True)
    printer = CPrinter()
    lines = [f"double {name} = {plan.rhs_text(e, printer)};" for name, e in plan.assignments()]
    for block, exprs in plan.blocks.items():
        lines += [f"{block}[{i}] = {plan.rhs_text(e, printer, top=False)};" for i, e in enumerate(exprs)]
    return time.perf_counter() - t0, len(lines)


def run(quick: bool = False, smoke: bool = False) -> list[Row]:
    sizes = [1] if smoke else ([1, 5, 10, 20] if quick else [1, 5, 10, 20, 50])
    kane_max = 5 if smoke else 20
    rows = []
    for n in sizes:
        t_sb, _ = symbody_derive_and_emit(n)
        if n <= kane_max:
            t0 = time.perf_counter()
            kane_n_link(n)
            t_k = time.perf_counter() - t0
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
