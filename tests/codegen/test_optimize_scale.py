"""The export optimizer scales linearly with the length of sums and keeps its operation counts.

Pairs of terms are counted only among terms that several sums share, and long
sums are cut into segments: the work (pairs enumerated) grows linearly with the
number of terms where it used to grow quadratically (2000 terms took 52 s,
20000 ran out of memory).  The work is counted, not timed, so the tests do not
depend on the machine.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from symbody.codegen.python import Layout, compile_function
from symbody.symbolic import factoring, optimize, pairs
from symbody.symbolic.evaluate import evaluate
from symbody.symbolic.expr import ADD, Context, cos, sin
from symbody.symbolic.plan import ExportPlan


def _sum(terms):
    acc = terms[0]
    for t in terms[1:]:
        acc = acc + t
    return acc


def single_sum(n: int):
    """One sum of ``n`` distinct products ``a_i sin(x_i)``."""
    ctx = Context()
    xs = [ctx.symbol(f"x{i}", "coordinate") for i in range(n)]
    a = [ctx.symbol(f"a{i}", "parameter") for i in range(n)]
    return [_sum([a[i] * sin(xs[i]) for i in range(n)])], xs, a


def shared_sums(n: int):
    """Three sums that share ``n`` terms (built in different orders) and a product of one with b."""
    ctx = Context()
    xs = [ctx.symbol(f"x{i}", "coordinate") for i in range(n)]
    a = [ctx.symbol(f"a{i}", "parameter") for i in range(n)]
    b, c = ctx.symbol("b", "parameter"), ctx.symbol("c", "parameter")
    terms = [a[i] * sin(xs[i]) + cos(xs[i]) * a[(i + 1) % n] for i in range(n)]
    outs = [_sum(terms) + b, _sum(terms[::-1]) + c, b * _sum(terms[1:])]
    return outs, xs, a + [b, c]


class PairCounter:
    """Counts the pairs of terms the optimizer enumerates (its dominant work)."""

    def __init__(self, monkeypatch):
        self.pairs = 0
        original = pairs._Chains._pairs

        def counted(chains, ch):
            keys = original(chains, ch)
            self.pairs += len(keys) + len(ch)
            return keys

        monkeypatch.setattr(pairs._Chains, "_pairs", counted)


def _work(monkeypatch, outs) -> int:
    counter = PairCounter(monkeypatch)
    optimize.optimize_outputs(outs)
    return counter.pairs


def _adds(outs) -> int:
    seen, stack = set(), list(outs)
    while stack:
        e = stack.pop()
        if e not in seen:
            seen.add(e)
            stack.extend(e.args)
    return sum(1 for e in seen if e.op == ADD)


@pytest.mark.slow  # long: with --slow (CI)
def test_work_grows_linearly_with_the_length_of_shared_sums(monkeypatch):
    small = _work(monkeypatch, shared_sums(100)[0])
    assert small < 400 * 100, small  # about 160 per term; quadratic counting: 5e5 already here
    w1 = _work(monkeypatch, shared_sums(500)[0])
    w4 = _work(monkeypatch, shared_sums(2000)[0])
    # quadratic pair counting gave a ratio of 16 and more
    assert w4 / w1 < 5.0, (w1, w4)


def test_a_long_sum_of_distinct_terms_enumerates_no_pairs(monkeypatch):
    for n in (200, 4000):
        work = _work(monkeypatch, single_sum(n)[0])
        # every chain (the sum, n two-factor products) is visited once per pass; quadratic counting
        # enumerated n^2 / 2 pairs per pass
        assert work <= 8 * n, (n, work)


@pytest.mark.slow
def test_a_sum_of_20000_terms_is_optimized(monkeypatch):
    outs, xs, ps = single_sum(20000)
    work = _work(monkeypatch, outs)
    assert work <= 8 * 20000, work
    plan = ExportPlan({"y": outs}, {s: s.name for s in xs + ps})
    assert len(plan.outputs["y"]) == 1


def test_shared_sums_are_computed_once():
    n = 400
    outs, _, _ = shared_sums(n)
    opt = optimize.optimize_outputs(outs)
    # each term is a sum of two products (n additions) and the three outputs add them up: 2n
    # additions once the shared n-term sum is computed once, against 4n as written
    assert _adds(outs) >= 4 * n - 2
    assert _adds(opt) < 2.1 * n, _adds(opt)


@pytest.mark.parametrize("make", [single_sum, shared_sums])
def test_optimized_values_are_unchanged(make):
    outs, xs, ps = make(300)
    layout = Layout(q=xs, p=ps)
    plain = compile_function({"y": (outs, (len(outs),))}, layout)
    names = {s: s.name for s in xs + ps}
    plan = ExportPlan({"y": outs}, names)
    assert plan.n_temps >= (0 if make is single_sum else 1)
    rng = np.random.default_rng(1)
    q, p = rng.uniform(-2, 2, len(xs)), rng.uniform(-2, 2, len(ps))
    opt = compile_function({"y": (plan.outputs["y"], (len(outs),))}, layout)
    np.testing.assert_allclose(opt(0.0, q, [], [], p)[0], plain(0.0, q, [], [], p)[0], rtol=1e-10)


def _lines_run(fn, *args) -> int:
    """Lines of :mod:`symbody.symbolic.factoring` executed by ``fn(*args)`` (a machine-independent work count)."""
    count = 0
    here = factoring.__file__

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename == here else None

    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
    return count


def chained_products(n: int):
    """``x0 x1 + x1 x2 + ... + x(n-1) xn``: every factor is shared by two terms."""
    ctx = Context()
    xs = [ctx.symbol(f"x{i}") for i in range(n + 1)]
    return [_sum([xs[i] * xs[i + 1] for i in range(n)])]


def test_common_factor_extraction_is_linear_in_the_number_of_terms():
    """Each factor pulled out of a sum used to trigger a recount of all the other terms."""
    w1 = _lines_run(optimize.factor_sums, chained_products(250))
    w4 = _lines_run(optimize.factor_sums, chained_products(1000))
    assert w4 / w1 < 6.0, (w1, w4)  # recounting gave 16


def test_common_factors_are_still_pulled_out():
    ctx = Context()
    a, b, x, y, z = (ctx.symbol(n) for n in "abxyz")
    (out,) = optimize.factor_sums([a * x + a * y + b * z + b * x + 2 * y + 2 * z])
    assert str(out).count("a") == 1 and str(out).count("b") == 1, out
    vals = {a: 1.3, b: -0.7, x: 0.2, y: 2.1, z: -1.4}
    assert evaluate(out, vals) == pytest.approx(1.3 * 0.2 + 1.3 * 2.1 - 0.7 * -1.4 - 0.7 * 0.2 + 2 * 2.1 - 2 * 1.4)
