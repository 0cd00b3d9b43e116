"""The export optimizer's work grows linearly with the expression DAG, also for products and angle sums.

``tests/codegen/test_optimize_scale.py`` covers long sums and common factors; these tests cover the whole
optimizer on the equations of a 3-D body chain, long shared products, and the trigonometric
expansion of the cumulative angles of a planar chain (which walked every partial sum again for
every angle: quadratic in the number of bodies).  Work is counted as lines executed in the
optimizer's modules, not timed, so the tests do not depend on the machine.
"""

from __future__ import annotations

import math
import sys
from types import ModuleType

import pytest

import symbody as sb
from symbody.symbolic import optimize, trig
from symbody.symbolic.evaluate import evaluate_many
from symbody.symbolic.expr import COS, MUL, SIN, Context, Expr, cos, reachable, sin


def lines_run(modules: list[ModuleType], fn, *args):
    """``(lines of modules executed by fn(*args), its result)``: a machine-independent work count."""
    count = 0
    files = {m.__file__ for m in modules}

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename in files else None

    sys.settrace(tracer)
    try:
        result = fn(*args)
    finally:
        sys.settrace(None)
    return count, result


def chain_3d(n: int) -> sb.System:
    """``n`` rigid bodies hanging from each other by Z-Y-X spherical joints, centres of mass off axis."""
    s = sb.System(f"chain{n}")
    g = s.parameter("g", 9.81)
    s.gravity((0, 0, -g))
    base, point = s.ground_base, s.origin
    for k in range(n):
        angles = [s.coordinate(f"q{k}_{a}", 0.1 * (k + 1 + i)) for i, a in enumerate("zyx")]
        if k > 0:
            point = s.point(f"P{k}", point, sb.Vector(base, s.parameter(f"l{k - 1}", 1.0), 0, 0))
        base = s.base(f"B{k}", base, sb.EulerAngles("zyx", angles))
        com = [s.parameter(f"c{k}_{a}", v) for a, v in zip("xyz", (0.5, 0.05, -0.03))]
        moments = [
            s.parameter(f"I{k}_{a}", v)
            for a, v in zip(("xx", "yy", "zz", "xy", "yz", "xz"), (0.1, 0.3, 0.35, 0.01, -0.02, 0.015))
        ]
        s.solid(
            f"link{k}", point, base, mass=s.parameter(f"m{k}", 1.0 + 0.1 * k), com=com, inertia=sb.inertia(*moments)
        )
    return s


def mass_matrix_and_bias(n: int) -> tuple[list[Expr], dict[Expr, float]]:
    """The upper triangle of ``M`` and ``delta`` of :func:`chain_3d` (recursive), and values of their symbols."""
    eq = chain_3d(n).derive(formulation="recursive")
    exprs = [eq.M[i][j] for i in range(eq.nq) for j in range(i, eq.nq)] + list(eq.blocks()["delta"][0])
    values = {s: 0.3 + 0.17 * k for k, s in enumerate(eq.ctx.symbols)}
    return exprs, values


def test_optimizer_work_per_node_stays_bounded_on_a_body_chain():
    per_node = []
    for n in (2, 4):
        exprs, values = mass_matrix_and_bias(n)
        work, out = lines_run([optimize, trig], optimize.optimize_outputs, exprs)
        per_node.append(work / len(reachable(exprs)))
        assert evaluate_many(out, values) == pytest.approx(evaluate_many(exprs, values), rel=1e-9, abs=1e-9)
    # the DAG grows 3.7 times from 2 to 4 bodies: quadratic work would grow the work per node as much
    assert per_node[1] / per_node[0] < 1.3, per_node
    assert per_node[1] < 600, per_node


def shared_products(n: int) -> list[Expr]:
    """``a f1 ... fn`` and ``b fn ... f1``: two products of ``n`` shared factors built in opposite orders."""
    ctx = Context()
    f = [sin(ctx.symbol(f"x{i}")) for i in range(n)]
    p1, p2 = ctx.symbol("a"), ctx.symbol("b")
    for x in f:
        p1 = p1 * x
    for x in reversed(f):
        p2 = p2 * x
    return [p1, p2]


def _multiplications(outs: list[Expr]) -> int:
    return sum(1 for e in reachable(outs) if e.op == MUL)


def test_long_shared_products_are_optimized_in_linear_work():
    w1, _ = lines_run([optimize], optimize.optimize_outputs, shared_products(200))
    w4, out = lines_run([optimize], optimize.optimize_outputs, shared_products(800))
    assert w4 / w1 < 6.0, (w1, w4)  # all pairs of shared factors: 16 and more
    # the product of the shared factors is computed once (about n multiplications instead of 2n)
    assert _multiplications(shared_products(800)) == 1600
    assert _multiplications(out) < 1.1 * 800 + 10, _multiplications(out)


def planar_angles(n: int) -> tuple[list[Expr], list[Expr]]:
    """Sines and cosines of the relative angles ``q_i`` and of the absolute angles ``q_1 + ... + q_i``."""
    ctx = Context()
    q = [ctx.symbol(f"q{i}") for i in range(n)]
    outs: list[Expr] = []
    angle = q[0]
    for i in range(n):
        if i:
            angle = angle + q[i]
        outs += [sin(q[i]), cos(q[i]), sin(angle), cos(angle)]
    return outs, q


def test_trigonometric_expansion_of_cumulative_angles_is_linear():
    w1, _ = lines_run([trig], trig.expand_trig, planar_angles(200)[0])
    w4, _ = lines_run([trig], trig.expand_trig, planar_angles(800)[0])
    assert w4 / w1 < 6.0, (w1, w4)  # walking each partial sum again: 16


def test_expanded_cumulative_angles_keep_their_values():
    outs, q = planar_angles(12)
    expanded = trig.expand_trig(outs)
    values = {s: 0.1 + 0.37 * k for k, s in enumerate(q)}
    calls = sum(1 for e in reachable(expanded) if e.op in (SIN, COS))
    assert calls == 2 * len(q)  # only the relative angles keep their calls
    for k in range(len(q)):
        absolute = sum(0.1 + 0.37 * i for i in range(k + 1))
        got = evaluate_many(expanded[4 * k + 2 : 4 * k + 4], values)
        assert got == pytest.approx([math.sin(absolute), math.cos(absolute)], rel=1e-12, abs=1e-12)
