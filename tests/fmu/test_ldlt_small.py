"""The dense ``L D L^T`` of ``fmu_templates/sb_linalg.c`` for small matrices (n <= 8).

Small mass matrices are factored and solved with every loop unrolled (the hot path of small
unconstrained models).  Checked against numpy's solve and against the loops for any n: a small
matrix padded with an identity block to n > 8 goes through the general loops, whose operations
on the leading block are the same; its factors and solution must agree bit for bit.  A pivot
that is not positive (or NaN) is named by the same index as for any n.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from symbody.codegen.c_eval import compile_shared
from symbody.fmu.build import template_dir

EXPORTS = r"""
#include "sb_linalg.h"
#define EXPORT __attribute__((visibility("default")))
EXPORT int test_ldlt(int n, double *A) { return sb_ldlt(n, A); }
EXPORT void test_ldlt_solve(int n, const double *F, double *b) { sb_ldlt_solve(n, F, b); }
"""


@pytest.fixture(scope="module")
def linalg(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ldlt_small")
    (folder / "exports.c").write_text(EXPORTS)
    tdir = template_dir()
    compile_shared([folder / "exports.c", tdir / "sb_linalg.c"], folder / "ldlt.so", include=[tdir])
    lib = ctypes.CDLL(str(folder / "ldlt.so"))
    lib.test_ldlt.argtypes = [ctypes.c_int, ctypes.c_void_p]
    lib.test_ldlt_solve.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    return lib


def factor_and_solve(lib, A: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    F, x = np.ascontiguousarray(A, dtype=float).copy(), np.ascontiguousarray(b, dtype=float).copy()
    status = lib.test_ldlt(len(b), F.ctypes.data)
    if status == 0:
        lib.test_ldlt_solve(len(b), F.ctypes.data, x.ctypes.data)
    return status, F, x


def random_spd(rng: np.random.Generator, n: int) -> np.ndarray:
    B = rng.normal(size=(n, n))
    return B @ B.T + 0.1 * np.eye(n)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8])
@pytest.mark.parametrize("seed", range(4))
def test_small_ldlt_solves_like_numpy_and_like_the_general_loops(linalg, n, seed):
    rng = np.random.default_rng(100 * n + seed)
    A, b = random_spd(rng, n), rng.normal(size=n)
    status, F, x = factor_and_solve(linalg, A, b)
    assert status == 0
    expected = np.linalg.solve(A, b)
    np.testing.assert_allclose(x, expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max())
    # the factors themselves: L (unit lower) and D (1 / diagonal) rebuild A
    L = np.tril(F, -1) + np.eye(n)
    np.testing.assert_allclose(L @ np.diag(1.0 / np.diag(F)) @ L.T, A, rtol=1e-12, atol=1e-12 * np.abs(A).max())
    # padded to more than 8: the general loops, the same operations on the leading block
    big = max(n + 3, 9)
    pad = np.eye(big)
    pad[:n, :n] = A
    status_big, F_big, x_big = factor_and_solve(linalg, pad, np.concatenate([b, np.zeros(big - n)]))
    assert status_big == 0
    assert np.array_equal(np.tril(F_big[:n, :n]), np.tril(F)), "factors differ from the general loops"
    assert np.array_equal(x_big[:n], x), "solution differs from the general loops"


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 10])
def test_small_ldlt_names_the_pivot_that_is_not_positive(linalg, n):
    for k in range(n):
        A = np.eye(n) * 2.0
        A[k, k] = -1.0  # the k-th pivot is negative, the earlier ones positive
        assert linalg.test_ldlt(n, A.ctypes.data) == k + 1
        A = np.eye(n)
        if k > 0:  # a zero pivot: row k repeats row k - 1
            A[k, k - 1] = A[k - 1, k] = 1.0
            assert linalg.test_ldlt(n, A.ctypes.data) == k + 1
        A = np.eye(n)
        A[k, k] = np.nan
        assert linalg.test_ldlt(n, A.ctypes.data) == k + 1
