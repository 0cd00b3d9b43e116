"""The compiled evaluator's call path: one ctypes call per evaluation, still safe.

Arguments are copied into a preallocated buffer (lists, integer arrays and strided views
are converted), wrong lengths are refused with the vector's name, every call returns fresh
arrays, optional ``ddq``/``lam`` fall back to zeros after a call that gave them, and
threads sharing one evaluator get their own results.  Values are checked against the
numpy evaluator of the same blocks (an independent code path: generated Python).
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from symbody.codegen.c_eval import compile_evaluator
from symbody.codegen.evaluators import evaluator

from support import example


@pytest.fixture(scope="module")
def four_bar():
    eq = example("four_bar").derive()
    return eq, compile_evaluator(eq, "M", "delta", "outputs"), evaluator(eq, "M", "delta", "outputs")


def point(eq, seed: int):
    rng = np.random.default_rng(seed)
    return (
        float(rng.uniform(0, 1)),
        rng.normal(size=eq.nq),
        rng.normal(size=eq.nq),
        rng.normal(size=len(eq.inputs)),
        eq.p0 * rng.uniform(0.5, 1.5, size=len(eq.p0)),
    )


def assert_same(a, b):
    for x, y in zip(a, b):
        assert x.shape == y.shape
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


def test_values_and_conversions(four_bar):
    eq, c, py = four_bar
    t, q, dq, u, p = point(eq, 1)
    assert_same(c(t, q, dq, u, p), py(t, q, dq, u, p))
    assert_same(c(t, list(q), tuple(dq), list(u), list(p)), py(t, q, dq, u, p))  # sequences
    wide = np.zeros((eq.nq, 2))
    wide[:, 0] = q
    assert_same(c(t, wide[:, 0], dq, u, p), py(t, q, dq, u, p))  # a strided view


def test_wrong_lengths_are_refused(four_bar):
    eq, c, _ = four_bar
    t, q, dq, u, p = point(eq, 2)
    with pytest.raises(ValueError, match="q has 2 values"):
        c(t, q[:2], dq, u, p)
    with pytest.raises(ValueError, match="p has"):
        c(t, q, dq, u, np.append(p, 1.0))
    with pytest.raises(ValueError, match="dq is required"):
        c(t, q, None, u, p)
    with pytest.raises(ValueError, match="q must be a sequence of 3 values, not float"):
        c(t, 0.5, dq, u, p)


def test_results_are_fresh_arrays(four_bar):
    eq, c, _ = four_bar
    first = c(*point(eq, 3))
    kept = [a.copy() for a in first]
    c(*point(eq, 4))
    assert_same(first, kept)  # a later call leaves earlier results alone
    first[0][:] = 7.0
    second = c(*point(eq, 3))
    assert_same(second, kept)


def test_optional_vectors_return_to_zero(four_bar):
    eq, c, py = four_bar
    args = point(eq, 5)
    ddq, lam = np.ones(eq.nq), np.ones(eq.nc)
    assert_same(c(*args, ddq, lam), py(*args, ddq, lam))
    assert_same(c(*args), py(*args, np.zeros(eq.nq), np.zeros(eq.nc)))


def test_threads_sharing_an_evaluator(four_bar):
    eq, c, py = four_bar
    points = [point(eq, 10 + k) for k in range(8)]
    expected = [py(*a) for a in points]
    failures: list[int] = []

    def work(k: int) -> None:
        for _ in range(300):
            got = c(*points[k])
            if not all(np.allclose(x, y, rtol=1e-12, atol=1e-12) for x, y in zip(got, expected[k])):
                failures.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(points))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures
