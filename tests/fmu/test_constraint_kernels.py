"""The laws of the constraints exist once per language: the C runtime's (``fmu_templates/``) in the native FMUs
and :mod:`symbody.numeric.constraint_laws` in symbody.numeric and the Python FMUs.  Both run here on the same
problems and must agree: the regularized minimum-norm correction of the projections and the assembly (regular
rows, rows nearly dependent at a singular position, redundant rows, the exact initial velocities), the filter
of the multipliers at a singular position, and the count of the clearly independent rows that tells one."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from symbody.codegen.c_eval import compile_shared
from symbody.fmu.build import template_dir
from symbody.numeric import constraint_laws as laws
from symbody.numeric.saddle import regularized_correction

EXPORTS = r"""
#include "sb_linalg.h"
#define EXPORT __attribute__((visibility("default")))
EXPORT int test_min_norm(int m, int n, const double *J, const double *r, double reg, double *dx)
{
    double G[64], y[8];
    int prow[8], pcol[8];
    return sb_min_norm(m, n, J, r, reg, G, prow, pcol, y, dx);
}
EXPORT int test_clear_rank(int nc, int n, const double *D, double ref, double gap)
{
    double G[64], V[64], w[8];
    sb_gram(nc, n, D, G);
    return sb_clear_rank(nc, G, V, w, ref, gap);
}
EXPORT double test_filter(int nc, const double *ESE, const double *e, double level, double least, double *lam)
{
    double A[64], V[64], s[8], c[8];
    for (int k = 0; k < nc * nc; ++k) A[k] = ESE[k];
    double tau = sb_filter_modes(nc, A, V, s, level, least);
    sb_filter_apply(nc, V, s, e, tau, lam, c);
    return tau;
}
"""


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    folder = tmp_path_factory.mktemp("constraint_laws")
    (folder / "exports.c").write_text(EXPORTS)
    tdir = template_dir()
    compile_shared([folder / "exports.c", tdir / "sb_linalg.c"], folder / "laws.so", include=[tdir])
    lib = ctypes.CDLL(str(folder / "laws.so"))
    lib.test_min_norm.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double]
    lib.test_min_norm.argtypes += [ctypes.c_void_p]
    lib.test_filter.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_double, ctypes.c_double]
    lib.test_filter.argtypes += [ctypes.c_void_p]
    lib.test_filter.restype = ctypes.c_double
    lib.test_clear_rank.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_double, ctypes.c_double]
    return lib


def c_min_norm(lib, J: np.ndarray, r: np.ndarray, reg: float) -> np.ndarray:
    J, r = np.ascontiguousarray(J, dtype=float), np.ascontiguousarray(r, dtype=float)
    dx = np.zeros(J.shape[1])
    lib.test_min_norm(J.shape[0], J.shape[1], J.ctypes.data, r.ctypes.data, reg, dx.ctypes.data)
    return dx


def rows(rng: np.random.Generator, m: int, n: int, gap: float) -> np.ndarray:
    """m rows on n coordinates, the last one a distance ``gap`` from the span of the others (0: redundant)."""
    J = rng.normal(size=(m, n))
    J[-1] = rng.normal(size=m - 1) @ J[:-1] + gap * rng.normal(size=n) if m > 1 else gap * J[-1]
    return J


@pytest.mark.parametrize("gap", [1.0, 1e-3, 1e-7, 0.0])
@pytest.mark.parametrize("seed", range(4))
def test_min_norm_c_and_numpy_agree(kernel, gap, seed):
    rng = np.random.default_rng(seed)
    m = 1 + seed % 3
    J = rows(rng, m, m + 2, gap) * 10.0 ** rng.uniform(-3, 3)
    r = J @ rng.normal(size=m + 2)  # consistent data: every solution of the rank-deficient system gives one step
    sv = np.linalg.svd(J, compute_uv=False)
    if m == 1 and gap == 0.0:  # a row that vanished: no step in either
        for reg in (laws.CORR_REG, 0.0):
            assert not np.any(c_min_norm(kernel, J, r, reg)) and not np.any(laws.min_norm_step(J, r, reg))
        return
    for reg in (laws.CORR_REG, 0.0):
        # the condition of the regularized J J^T each language solves (rows exactly redundant: of those kept)
        cond = (sv[0] / (sv[-1] if gap else sv[-2])) ** 2 if reg == 0.0 else min((sv[0] / sv[-1]) ** 2, reg**-2)
        expected = laws.min_norm_step(J, r, reg)
        got = c_min_norm(kernel, J, r, reg)
        assert np.abs(got - expected).max() <= 100 * np.finfo(float).eps * cond * np.abs(expected).max()
    assert np.array_equal(regularized_correction(J, r), laws.min_norm_step(J, r))  # numeric's projections


def test_min_norm_step_is_exact_where_regular_and_bounded_where_singular(kernel):
    """Regular rows: the minimum-norm solution of ``J dx = r`` to rounding.  A row a millionth as long as the
    largest (mu = 1e-6 of it): its step is halved, s r / (s^2 + mu^2) at s = mu; a row a billionth as long
    (a singular position) moves the solution by at most r / (2 mu), not r / s."""
    J = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    r = np.array([1.0, -2.0])
    exact = np.linalg.pinv(J) @ r
    for dx in (laws.min_norm_step(J, r), c_min_norm(kernel, J, r, laws.CORR_REG)):
        assert np.allclose(dx, exact, rtol=1e-10)
        assert np.allclose(J @ dx, r, rtol=1e-10)
    J = np.array([[1.0, 0.0], [0.0, 1e-6]])
    for dx in (laws.min_norm_step(J, np.array([0.0, 1e-6])), c_min_norm(kernel, J, np.array([0.0, 1e-6]), 1e-6)):
        assert dx[1] == pytest.approx(0.5, rel=1e-9)
    J = np.array([[1.0, 0.0], [0.0, 1e-9]])
    for dx in (laws.min_norm_step(J, np.array([0.0, 1e-9])), c_min_norm(kernel, J, np.array([0.0, 1e-9]), 1e-6)):
        assert abs(dx[1]) <= 1e-9 / (2 * 1e-6) and dx[1] == pytest.approx(1e-9 * 1e-9 / (1e-18 + 1e-12), rel=1e-6)
    assert laws.min_norm_step(np.array([[1.0, 1.0]]), np.array([2.0]), reg=0.0).tolist() == [1.0, 1.0]


def c_filter(lib, ESE: np.ndarray, e: np.ndarray, r: np.ndarray, least: float) -> tuple[float, np.ndarray]:
    ESE, e = np.ascontiguousarray(ESE, dtype=float), np.ascontiguousarray(e, dtype=float)
    lam = np.ascontiguousarray(r, dtype=float).copy()
    tau = lib.test_filter(e.size, ESE.ctypes.data, e.ctypes.data, laws.FILTER_LEVEL, least, lam.ctypes.data)
    return tau, lam


@pytest.mark.parametrize("gap", [1.0, 1e-2, 1e-5, 1e-9, 0.0])
@pytest.mark.parametrize("seed", range(4))
def test_filtered_multipliers_c_and_numpy_agree(kernel, gap, seed):
    """The filter of the multipliers on the scaled D M^-1 D^T of rows a distance ``gap`` from dependence: the same
    level tau and multipliers in both (the eigenvectors may differ in sign and order; the multipliers do not)."""
    rng = np.random.default_rng(seed)
    nc, n = 2 + seed % 3, 6
    D = rows(rng, nc, n, gap)
    A = rng.normal(size=(n, n))
    M = A @ A.T + 0.5 * np.eye(n)
    row_ref = np.sum(D * D, axis=1) * (1.0 + rng.random(nc))  # the rows were longer before
    e = laws.row_weights(D, row_ref)
    ESE = e[:, None] * (D @ np.linalg.solve(M, D.T)) * e[None, :]
    r = rng.normal(size=nc)
    least = 1.0 / float(np.max(np.diag(M)))
    s, V, tau = laws.filter_modes(ESE, laws.FILTER_LEVEL, least)
    expected = laws.filter_apply(V, s, e, tau, r)
    tau_c, lam_c = c_filter(kernel, ESE, e, r, least)
    assert tau_c == pytest.approx(tau, rel=1e-12)
    # each eigen-solver's rounding of an eigenvalue (eps max s) changes its weight s / (s^2 + tau^2) by up to
    # that over tau^2 (the slope at s = 0)
    bound = 100 * np.finfo(float).eps * float(s.max()) / tau**2 * np.abs(r).max() * float(e.max()) ** 2
    assert np.abs(lam_c - expected).max() <= bound
    assert np.allclose(lam_c, expected, rtol=1e-6, atol=bound)
    if gap == 1.0:  # regular rows: the filter departs from the exact solution by (tau / s)^2 only
        exact = e * np.linalg.solve(ESE, e * r)
        assert np.abs(expected - exact).max() <= (2 * (tau / s.min()) ** 2 + 1e-12) * np.abs(exact).max()


def test_range_space_solve_exact_where_regular_and_bounded_at_a_singular_position():
    """A slider-crank's row that vanishes at the dead point: far from it the accelerations and multipliers are those
    of the augmented system; at it the multiplier stays bounded and numeric's filtered solve gives the same."""
    M = np.diag([2.0, 0.5])
    f = np.array([1.0, -3.0])
    for h, regular in ((1.0, True), (1e-7, False)):
        D = np.array([[h, 1.0 * h]])
        x, lam, undetermined = laws.range_space_solve(M, D, f, np.zeros(1), np.array([2.0]))
        aug = np.block([[M, D.T], [D, np.zeros((1, 1))]])
        if regular:
            assert np.allclose(np.concatenate([x, lam]), np.linalg.solve(aug, np.concatenate([f, [0.0]])), rtol=1e-13)
            assert undetermined.shape == (1, 0)
        else:
            assert abs(lam[0]) < 1.0 and undetermined.shape == (1, 1)  # exact: lam = 1/h * 2/3 (f . (1, 1) / ...)
            from symbody.numeric.saddle import solve_filtered

            x2, lam2 = solve_filtered(M, D, f, np.zeros(1), row_scale=np.array([2.0]))
            assert np.allclose(x2, x, rtol=1e-12) and np.allclose(lam2, lam, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
def test_clear_rank_c_and_numpy_agree(kernel, seed):
    """Rows a distance ``gap`` from dependence, relative to the largest row norm met: clearly independent above
    SINGULAR_GAP of it (a mechanism 1e-3 from a singular position has one row fewer), in both."""
    rng = np.random.default_rng(seed)
    nc = 2 + seed % 3
    for gap, lost in ((1.0, 0), (3e-2, 0), (3e-3, 1), (1e-9, 1), (0.0, 1)):
        D = rows(rng, nc, 5, gap)
        D[-1] -= D[:-1].T @ np.linalg.lstsq(D[:-1].T, D[-1], rcond=None)[0]  # off the others' span ...
        D[-1] *= gap / max(float(np.linalg.norm(D[-1])), 1e-300)  # ... by gap exactly
        D[:-1] = np.linalg.qr(D[:-1].T)[0].T  # the others orthonormal: D D^T has eigenvalues 1 and gap^2
        Dc = np.ascontiguousarray(D)
        assert laws.clear_rank(D, 1.0) == nc - lost
        assert kernel.test_clear_rank(nc, 5, Dc.ctypes.data, 1.0, laws.SINGULAR_GAP) == nc - lost


def test_baumgarte_terms_give_the_drift_a_damped_oscillation():
    """A unit mass held at q = 0 by one row (Phi = q, D = [1]), found off it at q = 0.01 moving at 0.2: with
    ``D ddq = gamma - terms`` its error follows e'' + 2 alpha e' + beta^2 e = 0, the same in the range-space solve
    of the FMUs and numeric's saddle solve."""
    from symbody.numeric.saddle import solve_saddle

    alpha, beta, q, dq = 10.0, 10.0, 0.01, 0.2
    g = np.zeros(1) - laws.baumgarte_terms(np.array([dq]), np.array([q]), 2 * alpha, beta**2)
    x, lam, _ = laws.range_space_solve(np.eye(1), np.ones((1, 1)), np.zeros(1), g, np.ones(1))
    assert x[0] == pytest.approx(-(2 * alpha * dq + beta**2 * q), rel=1e-14)
    assert solve_saddle(np.eye(1), np.ones((1, 1)), np.zeros(1), g)[0][0] == pytest.approx(x[0], rel=1e-14)
    # rows without a position error (velocity rows) take the rate term only
    assert laws.baumgarte_terms(np.array([dq, dq]), np.array([q]), 2 * alpha, beta**2)[1] == 2 * alpha * dq
