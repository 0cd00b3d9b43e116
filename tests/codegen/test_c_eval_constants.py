"""The constants block of the compiled Python-side evaluators (symbody.codegen.c_eval).

``CEvaluator`` and ``AccelerationEvaluator`` compute the parameter-only subexpressions once per parameter
change, into a thread-local block kept with the parameters it was computed from.  Checked: the results equal
those of the evaluators without the block bit for bit, at parameters that change from call to call and come
back (no stale constant), on both call paths, and from two threads calling with different parameters.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from symbody.codegen.c_eval import AccelerationEvaluator, CEvaluator
from symbody.codegen.evaluators import layout_of, select_blocks

from support.trees import chain_3d


@pytest.fixture(scope="module")
def eq():
    return chain_3d(3).derive(formulation="articulated")


def _points(eq, count: int, seed: int) -> list[tuple]:
    """``(q, dq, p)`` at random states, with parameters scaled at random around the model's."""
    rng = np.random.default_rng(seed)
    p0 = np.array(eq.p0)
    return [
        (rng.uniform(-1.2, 1.2, eq.nq), rng.uniform(-2, 2, eq.nq), p0 * rng.uniform(0.7, 1.4, p0.size))
        for _ in range(count)
    ]


@pytest.mark.parametrize("path", ["extension", "ctypes"])
def test_blocks_with_and_without_constants_are_identical(eq, path):
    blocks = select_blocks(eq, ("M", "delta", "accelerations", "pivots"), {})
    with_block = CEvaluator(blocks, layout_of(eq), name="with_block", path=path)
    without = CEvaluator(blocks, layout_of(eq), name="without", path=path, constants=False)
    assert "with_block_constants(const double *_p, double *_c)" in with_block.source
    assert "_constants(" not in without.source
    points = _points(eq, 4, 1)
    for q, dq, p in points + points[::-1]:  # every call another p, then the same ones again
        for a, b in zip(with_block(0.0, q, dq, [], p), without(0.0, q, dq, [], p)):
            np.testing.assert_array_equal(a, b)


def test_accelerations_follow_every_parameter_change(eq):
    fast, plain = AccelerationEvaluator(eq), AccelerationEvaluator(eq, constants=False)
    assert "accelerations_refresh(_p)" in fast.source
    q, dq, p = _points(eq, 1, 2)[0]
    first = fast(0.0, q, dq, [], p)
    for k in range(p.size):  # one parameter at a time: each must reach the result
        changed = p.copy()
        changed[k] *= 1.5
        np.testing.assert_array_equal(fast(0.0, q, dq, [], changed), plain(0.0, q, dq, [], changed))
    np.testing.assert_array_equal(fast(0.0, q, dq, [], p), first)
    heavier = p.copy()
    heavier[[s.name for s in eq.p_symbols].index("m0")] *= 4.0
    assert not np.array_equal(fast(0.0, q, dq, [], heavier), first)  # the block really follows p


def test_threads_with_other_parameters_keep_their_own_block(eq):
    """ctypes releases the GIL: two threads alternate their parameters and must never read each other's."""
    fast = AccelerationEvaluator(eq, path="ctypes")
    plain = AccelerationEvaluator(eq, path="ctypes", constants=False)
    points = _points(eq, 2, 3)
    expected = [plain(0.0, q, dq, [], p) for q, dq, p in points]
    wrong: list[int] = []

    def run(k: int) -> None:
        q, dq, p = points[k]
        for _ in range(300):
            if not np.array_equal(fast(0.0, q, dq, [], p), expected[k]):
                wrong.append(k)

    threads = [threading.Thread(target=run, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong
