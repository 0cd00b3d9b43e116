"""The compiled evaluator's call paths (CPython extension module and ctypes), both still safe.

Arguments are read whatever their form (lists, integer arrays and strided views are
converted), wrong lengths are refused with the vector's name, every call returns fresh
arrays, optional ``ddq``/``lam`` fall back to zeros after a call that gave them, and
threads sharing one evaluator get their own results.  Values are checked against the
numpy evaluator of the same blocks (an independent code path: generated Python).  Every
test runs on both paths.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from symbody.codegen.c_eval import compile_evaluator
from symbody.codegen.evaluators import evaluator

from support import example


@pytest.fixture(scope="module")
def four_bar_eq():
    return example("four_bar").derive()


@pytest.fixture(scope="module", params=["extension", "ctypes"])
def four_bar(request, four_bar_eq):
    eq = four_bar_eq
    c = compile_evaluator(eq, "M", "delta", "outputs", path=request.param)
    assert c.call_path == request.param
    return eq, c, evaluator(eq, "M", "delta", "outputs")


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
    c(t, q, dq, u, p)
    with pytest.raises(ValueError, match="dq is required"):
        c(t, q)  # not the values of the call before
    with pytest.raises(ValueError, match="u is required"):
        c(t, q, dq, p=p)
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


def test_paths_agree_bit_for_bit(four_bar_eq):
    eq = four_bar_eq
    ext = compile_evaluator(eq, "M", "delta", "outputs", path="extension")
    ctypes_path = compile_evaluator(eq, "M", "delta", "outputs", path="ctypes")
    for seed in range(20):
        args = point(eq, 100 + seed)
        ddq, lam = np.random.default_rng(seed).normal(size=(2, eq.nq))[0], np.ones(eq.nc)
        for a, b in zip(ext(*args, ddq, lam), ctypes_path(*args, ddq, lam)):
            assert np.array_equal(a, b)


def test_keywords_and_out(four_bar):
    eq, c, py = four_bar
    t, q, dq, u, p = point(eq, 6)
    expected = py(t, q, dq, u, p)
    assert_same(c(t=t, q=q, dq=dq, u=u, p=p), expected)
    assert_same(c(t, q, dq, p=p, u=u, lam=None), expected)
    out = tuple(np.full(shape, 9.0) for shape in c.shapes)
    got = c(t, q, dq, u, p, out=out)
    assert all(g is o for g, o in zip(got, out))  # the given arrays, filled
    assert_same(out, expected)
    assert_same(c(t, q, dq, u, p, out=list(out)), expected)


def test_bad_out_is_refused(four_bar):
    eq, c, _ = four_bar
    args = point(eq, 7)
    good = [np.zeros(shape) for shape in c.shapes]
    with pytest.raises(TypeError, match="out must be a tuple of 3 arrays"):
        c(*args, out=good[:2])
    with pytest.raises(TypeError, match="out must be a tuple of 3 arrays"):
        c(*args, out=good[0])
    with pytest.raises(TypeError, match=r"out\[0\] must be a writable C-contiguous float64 array of shape \(3, 3\)"):
        c(*args, out=(np.zeros((3, 3), dtype=np.float32), *good[1:]))
    with pytest.raises(TypeError, match=r"out\[0\] must be"):
        c(*args, out=(np.zeros((3, 6))[:, ::2], *good[1:]))  # not contiguous
    with pytest.raises(TypeError, match=r"out\[1\] must be"):
        c(*args, out=(good[0], np.zeros(4), good[2]))
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match=r"out\[1\] must be"):
        c(*args, out=(good[0], frozen, good[2]))
    shared = np.zeros(9)
    with pytest.raises(ValueError, match=r"out\[0\] and out\[1\] overlap"):
        c(*args, out=(shared.reshape(3, 3), shared[:3], good[2]))


def test_wrong_types_are_refused(four_bar):
    eq, c, _ = four_bar
    t, q, dq, u, p = point(eq, 8)
    with pytest.raises(ValueError, match=r"q must be a vector of 3 values, not an array of"):
        c(t, q.reshape(3, 1), dq, u, p)
    with pytest.raises(TypeError, match="dq has complex values"):
        c(t, q, dq.astype(complex), u, p)
    with pytest.raises(TypeError, match=r"q\[1\] is not a real number"):
        c(t, [0.1, "0.2", 0.3], dq, u, p)
    with pytest.raises(TypeError, match=r"q\[0\] is not a real number"):
        c(t, [1j, 0.2, 0.3], dq, u, p)
    with pytest.raises(ValueError, match="q must be a sequence of 3 values, not str"):
        c(t, "abc", dq, u, p)
    with pytest.raises(TypeError, match="t must be a real number"):
        c("0.5", q, dq, u, p)
    with pytest.raises(TypeError, match="at most 8 positional arguments"):
        c(t, q, dq, u, p, None, None, None, None)
    with pytest.raises(TypeError, match="unexpected keyword argument 'y'"):
        c(t, q, dq, u, p, y=1)
    with pytest.raises(ValueError, match="x has 1 values, the model has 0"):
        c(t, q, dq, u, p, x=[1.0])  # the first-order states: this model has none
    with pytest.raises(TypeError, match="multiple values for argument 'q'"):
        c(t, q, dq, u, p, q=q)
    with pytest.raises(TypeError, match="missing required argument 't'"):
        c(q=q, dq=dq, u=u, p=p)


def test_other_number_types_are_converted(four_bar):
    eq, c, py = four_bar
    t, q, dq, u, p = point(eq, 9)
    expected = py(t, q, dq, u, p)
    q32 = q.astype(np.float32)  # converted exactly to float64
    assert_same(c(np.float32(t), q32, dq, u, p), py(float(np.float32(t)), q32.astype(float), dq, u, p))
    big_endian = dq.astype(">f8")
    assert_same(c(t, q, big_endian, u, p), expected)
    assert_same(c(t, q, dq, u, p.tolist()), expected)
    ints = np.arange(3)
    assert_same(c(t, ints, dq, u, p), py(t, ints.astype(float), dq, u, p))


def test_evaluators_are_cached_per_equations(four_bar_eq):
    eq = four_bar_eq
    assert compile_evaluator(eq, "M", "delta") is compile_evaluator(eq, "M", "delta")
    assert compile_evaluator(eq, "M", "delta") is not compile_evaluator(eq, "M", "delta", path="ctypes")
    with pytest.raises(KeyError, match="unknown block 'N'"):
        compile_evaluator(eq, "N")
