"""Check the closed-form accelerations of derived equations against numpy's solve of their ``M`` and ``delta``."""

from __future__ import annotations

import numpy as np

from symbody.symbolic.evaluate import evaluate_many


def assert_solves(closed, values: dict, reference=None, reference_values: dict | None = None) -> None:
    """``closed.accelerations`` at ``values`` equal ``numpy.linalg.solve(M, delta)`` of ``reference`` (default:
    ``closed`` itself) at ``reference_values`` (default: ``values``), and every pivot is positive there."""
    ref = closed if reference is None else reference
    at = values if reference_values is None else reference_values
    n = ref.nq
    M = np.array(evaluate_many([e for row in ref.M for e in row], at)).reshape(n, n)
    expected = np.linalg.solve(M, evaluate_many(ref.delta, at))
    got = np.array(evaluate_many(closed.accelerations, values))
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())
    assert min(evaluate_many(closed.pivots, values)) > 0.0
