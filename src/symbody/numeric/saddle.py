"""Saddle-point solves of constrained dynamics: ``[M D^T; D 0] [x; lam] = [f; g]`` whatever the rank of ``D``.

The constraint Jacobian ``D`` of a mechanism may have redundant rows (a closed loop written with both
sine and cosine closure equations), rows that vanish or become dependent at singular positions (a
slider-crank's dead point), and a mass matrix only positive on the motions the constraints allow:

- :func:`solve_saddle`: the exact solution where the rows are clearly independent, else the filtered one.
- :func:`solve_filtered`: multipliers filtered on the eigenvalues of the scaled ``D M^-1 D^T`` (the FMUs'
  law, :mod:`symbody.numeric.constraint_laws`), so that a singular position gives bounded forces.
- :func:`solve_augmented_lagrangian`: the penalty iteration on ``M + a D^T D`` (Bayo and Jalon's
  augmented Lagrangian), for ``M`` singular on its own.
- :func:`schur_condition`: how far the rows are from dependent, the choice between the first two.
- :func:`regularized_correction`: the Tikhonov-regularized least-squares step of the projections.

Rank decisions (independent rows, dependent coordinates) are :mod:`symbody.numeric.linalg`'s.

Example:
    >>> import numpy as np
    >>> M, D = np.eye(2), np.array([[1.0, -1.0], [2.0, -2.0]])   # one constraint written twice
    >>> x, lam = solve_saddle(M, D, np.array([1.0, 0.0]), np.zeros(2))
    >>> np.round(x, 12).tolist()
    [0.5, 0.5]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

from ..errors import NumericalError
from . import constraint_laws
from .constraint_laws import CORR_REG, min_norm_step
from .linalg import independent_rows

_getrf, _getrs = lapack.get_lapack_funcs(("getrf", "getrs"), dtype=np.float64)
_potrf, _potrs = lapack.get_lapack_funcs(("potrf", "potrs"), dtype=np.float64)


#: relative regularization of :func:`regularized_correction` (the C runtime's SB_CORR_REG)
CORRECTION_REGULARIZATION = CORR_REG


def regularized_correction(J: np.ndarray, r: np.ndarray, relative: float = CORRECTION_REGULARIZATION) -> np.ndarray:
    """Correction ``dx`` with ``J dx ~ r``: least squares regularized by ``mu^2 |dx|^2``.

    ``mu = relative * max_k |J_k|`` (the largest row norm of ``J``).  Along the well-conditioned
    directions of ``J`` this is the minimum-norm solution (a Gauss-Newton step); along a direction
    whose singular value ``s`` is small compared with ``mu`` (rows becoming dependent at a singular
    position) the step is ``s r / (s^2 + mu^2) <= r / (2 mu)`` instead of ``r / s``: a projection never
    leaps across to another assembly branch (Tikhonov regularization).  The law is
    :func:`symbody.numeric.constraint_laws.min_norm_step`, the one of the FMUs' projections.

    Example:
        >>> J = np.array([[1.0, 0.0], [0.0, 1e-12]])
        >>> np.round(regularized_correction(J, np.array([1.0, 1e-9])), 6).tolist()
        [1.0, 0.0]
    """
    return min_norm_step(J, r, relative)


#: relative tolerance for dropping nearly redundant rows in :func:`solve_saddle`: states off the
#: constraint manifold by a small drift make exactly redundant rows only nearly dependent
SADDLE_ROW_TOL = 1e-7


def solve_saddle(
    M: np.ndarray,
    D: np.ndarray,
    f: np.ndarray,
    g: np.ndarray,
    rows: Sequence[int] | None = None,
    row_scale: float | np.ndarray = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Solve ``M x + D^T lam = f``, ``D x = g`` with possibly redundant rows in ``D``.

    ``f`` and ``g`` may be vectors or matrices (one right-hand side per column).
    Only a maximal independent set of rows (``rows``, computed when ``None``)
    enters the system; the multipliers of the other rows are zero (one valid
    choice among the infinitely many when constraints are redundant).  Where
    the rows are clearly independent (the condition number of ``D M^-1 D^T``
    scaled by its diagonal, :func:`schur_condition`, at most ``REGULAR_CONDITION``;
    it does not depend on the units of the coordinates nor of the rows) the
    solution is exact: LU with partial pivoting of the augmented matrix, as
    ``numpy.linalg.solve``.  Where they are nearly dependent or a row vanishes,
    as at a singular position of a mechanism, the system is solved by
    :func:`solve_filtered` (or, for a singular ``M``,
    :func:`solve_augmented_lagrangian`): bounded multipliers, continuous
    accelerations.  ``row_scale``, the largest squared norm of each row of ``D``
    the caller has met (e.g. along a simulation), tells a row that vanishes
    (a slider-crank at its dead point) from a row that is small by its units.

    Example (a rear frame of 85 kg beside a wheel of 0.06 kg m^2: regular, solved exactly):
        >>> M = np.diag([85.0, 0.06]); D = np.array([[1.0, -0.3]])
        >>> x, lam = solve_saddle(M, D, np.array([0.0, 1.0]), np.zeros(1))
        >>> bool(np.allclose(np.linalg.solve(np.block([[M, D.T], [D, np.zeros((1, 1))]]), [0.0, 1.0, 0.0]),
        ...                  np.concatenate([x, lam]), rtol=1e-14, atol=0))
        True

    Raises:
        NumericalError: the augmented matrix is singular (``M`` is not positive
            definite on the motions the constraints allow).
    """
    c = D.shape[0]
    if c == 0:
        try:
            return np.linalg.solve(M, f), np.zeros((0,) + np.shape(f)[1:])
        except np.linalg.LinAlgError:
            raise NumericalError("singular mass matrix") from None
    if not (np.all(np.isfinite(M)) and np.all(np.isfinite(D))):
        raise NumericalError("non-finite mass matrix or constraint Jacobian")
    norms = np.sum(D * D, axis=1)
    ref = np.maximum(np.broadcast_to(np.asarray(row_scale, dtype=float), norms.shape), norms)
    if rows is not None:
        sol = _regular_saddle(M, D, f, g, list(rows), SINGULAR_CONDITION)
        if sol is None:
            raise _singular_saddle()
        return sol
    vanishing = bool(np.any(norms < VANISHING_ROW * ref))
    if not vanishing:
        # every row, solved exactly where they are clearly independent
        sol = _regular_saddle(M, D, f, g, list(range(c)), REGULAR_CONDITION)
        if sol is not None:
            return sol
        # redundant rows: a maximal independent set, solved exactly where it is clearly independent
        sol = _regular_saddle(M, D, f, g, independent_rows(D, SADDLE_ROW_TOL), REGULAR_CONDITION)
        if sol is not None:
            return sol
    # rows nearly dependent (a singular position of the mechanism): the exact solution of the
    # ill-conditioned system has multipliers that grow without bound where the data are not
    # exactly consistent; a filtered range-space solve keeps them bounded.  Where this path
    # starts (a scaled condition of REGULAR_CONDITION, or a row at VANISHING_ROW of its largest
    # squared norm) a mode of the scaled D M^-1 D^T has about 1 / REGULAR_CONDITION of the largest,
    # and the filter departs from the exact solution by about (FILTER_LEVEL * REGULAR_CONDITION)^2
    # in it: the accelerations stay continuous (an adaptive integrator does not home in on the switch)
    sol = solve_filtered(M, D, f, g, row_scale=ref)
    if sol is not None:
        return sol
    return solve_augmented_lagrangian(M, D, f, g)


def _singular_saddle() -> NumericalError:
    return NumericalError(
        "singular augmented matrix [M D^T; D 0]: the mass matrix is not positive definite on the motions "
        "the constraints allow"
    )


#: a row of ``D`` whose squared norm falls below this fraction of the largest met (``row_scale``
#: of :func:`solve_saddle`) is vanishing: a singular position (the FMUs' law, :mod:`.constraint_laws`)
VANISHING_ROW = constraint_laws.VANISHING_ROW


#: relative filter level of :func:`solve_filtered` (on the eigenvalues of ``D M^-1 D^T``)
FILTER_LEVEL = constraint_laws.FILTER_LEVEL


def solve_filtered(
    M: np.ndarray,
    D: np.ndarray,
    f: np.ndarray,
    g: np.ndarray,
    level: float = FILTER_LEVEL,
    row_scale: float | np.ndarray = 0.0,
) -> tuple[np.ndarray, np.ndarray] | None:
    """``M x + D^T lam = f``, ``D x = g`` by the range-space method with filtered multipliers.

    The rows are scaled by ``E = diag(1 / sqrt(row_scale))`` (the largest squared norm each row
    has had; its present one by default), so that a row small by its units is not mistaken for
    a vanishing one.  With ``E D M^-1 D^T E = V diag(s) V^T`` and ``r = E (D M^-1 f - g)``, each
    mode of the scaled multipliers is ``r_i s_i / (s_i^2 + tau^2)``, ``tau = level * max(s, 1 / max M_ii)``:
    the exact ``r_i / s_i`` wherever ``s_i >> tau``, at most ``r_i / (2 tau)`` where rows become
    dependent or vanish (a singular position) instead of growing like ``1 / s_i``; the
    accelerations are ``M^-1 (f - D^T lam)``.  This is Tikhonov's regularization of the Schur
    complement system.  Returns ``None`` when ``M`` is not positive definite (massless
    coordinates: see :func:`solve_augmented_lagrangian`).

    Example:
        >>> M = np.eye(2); D = np.array([[1.0, 0.0], [1.0, 1e-12]])
        >>> x, lam = solve_filtered(M, D, np.array([0.0, 1.0]), np.zeros(2))
        >>> (np.round(x, 6) + 0.0).tolist(), bool(np.abs(lam).max() < 1e3)
        ([0.0, 1.0], True)
    """
    try:
        F = sla.cho_factor(M)
    except (np.linalg.LinAlgError, ValueError):
        return None
    e = constraint_laws.row_weights(D, row_scale)
    X = sla.cho_solve(F, D.T)
    y = sla.cho_solve(F, f)
    # the scale of a regular mode: its largest eigenvalue, or the smallest of M^-1 (about 1 / max M_ii)
    # when every row vanishes at once (a single row at a dead point)
    s, V, tau = constraint_laws.filter_modes(
        (e[:, None] * (D @ X)) * e[None, :], level, 1.0 / float(np.max(np.diag(M)))
    )
    lam = constraint_laws.filter_apply(V, s, e, tau, D @ y - g)
    x = y - X @ lam
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(lam))):
        return None
    return x, lam


#: penalty of :func:`solve_augmented_lagrangian`, relative to ``max |M_ii| / max_j |D[:, j]|^2``
AL_PENALTY = 1e7


def _penalty(M: np.ndarray, D: np.ndarray, relative: float) -> float:
    mmax = float(np.max(np.abs(np.diag(M)))) if M.size else 0.0
    dmax2 = float(np.max(np.sum(D * D, axis=0))) if D.size else 0.0
    return relative * (mmax if mmax > 0 else 1.0) / (dmax2 if dmax2 > 0 else 1.0)


def solve_augmented_lagrangian(
    M: np.ndarray,
    D: np.ndarray,
    f: np.ndarray,
    g: np.ndarray,
    penalty: float = AL_PENALTY,
    tol: float = 1e-13,
    maxit: int = 30,
) -> tuple[np.ndarray, np.ndarray]:
    """``M x + D^T lam = f``, ``D x = g`` by the augmented Lagrangian iteration.

    ``(M + a D^T D) x_k = f - D^T lam_k + a D^T g``, ``lam_(k+1) = lam_k + a (D x_k - g)``
    (Bayo, García de Jalón and Serna, "A modified Lagrangian formulation for the dynamic
    analysis of constrained mechanical systems", Computer Methods in Applied Mechanics and
    Engineering 71, 1988).  ``M + a D^T D`` stays positive definite where rows of ``D``
    become dependent (singular positions, redundant constraints), so ``x`` is well defined
    and continuous there; a multiplier moves by ``a`` times its row's residual per
    iteration, so multipliers that the configuration barely determines stay bounded
    (starting from zero) instead of growing like ``1 / sigma^2``.
    The iteration stops when ``x`` no longer changes, or after ``maxit`` iterations: the
    multipliers of rows whose singular value ``s`` is small (``a s^2 << 1``) would take
    ``1 / (a s^2)`` iterations to reach values that grow like ``1 / s^2``; stopping
    leaves them bounded by ``maxit a |residual|`` and changes ``x`` only by ``s`` times that.

    Example:
        >>> M = np.eye(2); D = np.array([[1.0, 1e-12]]); f = np.array([0.0, 1.0])
        >>> x, lam = solve_augmented_lagrangian(M, D, f, np.zeros(1))
        >>> (np.round(x, 9) + 0.0).tolist(), bool(abs(lam[0]) < 1.0)
        ([0.0, 1.0], True)

    Raises:
        NumericalError: ``M + a D^T D`` is not positive definite (motions allowed by the
            constraints without inertia).
    """
    a = _penalty(M, D, penalty)
    A = M + a * (D.T @ D)
    try:
        F = sla.cho_factor(A)
    except (np.linalg.LinAlgError, ValueError):
        raise _singular_saddle() from None
    lam = np.zeros((D.shape[0],) + np.shape(f)[1:])
    b0 = f + a * (D.T @ g)
    x = sla.cho_solve(F, b0 - D.T @ lam)
    for _ in range(maxit):
        lam = lam + a * (D @ x - g)
        x_new = sla.cho_solve(F, b0 - D.T @ lam)
        change = float(np.max(np.abs(x_new - x)))
        x = x_new
        if change <= tol * max(1.0, float(np.max(np.abs(x)))):
            break
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(lam))):
        raise _singular_saddle()
    return x, lam


#: largest condition number of the scaled ``D M^-1 D^T`` (:func:`schur_condition`) that
#: :func:`solve_saddle` solves exactly: the filter of :func:`solve_filtered` would change its
#: smallest mode by ``(FILTER_LEVEL * REGULAR_CONDITION)^2``; a row whose squared norm falls to
#: VANISHING_ROW of its largest makes it about this ill-conditioned too
REGULAR_CONDITION = 1.0 / VANISHING_ROW
#: ... that :func:`solve_saddle` solves at all when the caller chose the rows
SINGULAR_CONDITION = 1e13


def schur_condition(M: np.ndarray, D: np.ndarray) -> float:
    """Condition number of ``S = D M^-1 D^T`` scaled by its diagonal: how nearly dependent the rows of ``D`` are.

    ``E S E`` with ``E = diag(S)^-1/2`` has a unit diagonal whatever the units of the coordinates
    (``S`` does not depend on them) and of the rows: its condition grows only where rows become
    dependent (a row that vanishes is told by the largest norm it has had: ``row_scale`` of
    :func:`solve_saddle`).  Its modes are those the filter of :func:`solve_filtered` acts on.  A mass matrix
    that is not positive definite (coordinates without inertia) is replaced by ``M + a D^T D``
    (the same solution of the augmented system; ``a`` as in :func:`solve_augmented_lagrangian`
    for a relative penalty 1).  Returns ``inf`` when the rows are dependent or that matrix is
    singular too.

    Example:
        >>> M = np.diag([85.0, 0.06, 2.0])                    # inertias in kg m^2 and kg
        >>> D = np.array([[1.0, -0.3, 0.0], [1.0, 0.0, 1e-3]])  # rows in mixed units: regular
        >>> round(schur_condition(M, D), 3)
        1.193
        >>> round(schur_condition(np.eye(2), np.array([[1.0, 0.0], [1.0, 1e-3]])) / 1e6, 1)  # nearly dependent
        4.0
    """
    if D.shape[0] == 0:
        return 1.0
    L, info = _potrf(M, lower=1)
    if info != 0:
        L, info = _potrf(M + _penalty(M, D, 1.0) * (D.T @ D), lower=1)
        if info != 0:
            return float("inf")
    S = D @ _potrs(L, D.T, lower=1)[0]
    d = np.diag(S)
    if not (np.all(np.isfinite(S)) and np.all(d > 0)):
        return float("inf")
    e = 1.0 / np.sqrt(d)
    s = np.linalg.eigvalsh(0.5 * (S + S.T) * e[:, None] * e[None, :])
    return float(s[-1] / s[0]) if s[0] > 0 else float("inf")


def _saddle_lu(M, D, f, g, rows: list[int]):
    """The augmented system on ``rows`` by LU with partial pivoting, as ``numpy.linalg.solve``."""
    n, c = M.shape[0], D.shape[0]
    k = len(rows)
    A = np.zeros((n + k, n + k), order="F")
    A[:n, :n] = M
    Dr = D[rows]
    A[:n, n:] = Dr.T
    A[n:, :n] = Dr
    lu, piv, info = _getrf(A, overwrite_a=True)
    if info > 0:
        return None
    b = np.concatenate([f, g[rows]])
    x, info = _getrs(lu, piv, b)
    if not np.all(np.isfinite(x)):
        return None
    lam = np.zeros((c,) + x.shape[1:])
    lam[rows] = x[n:]
    return x[:n], lam


def _regular_saddle(M, D, f, g, rows: list[int], max_condition: float):
    """:func:`_saddle_lu` where the rows are clearly independent (:func:`schur_condition`), else ``None``."""
    if schur_condition(M, D[rows]) > max_condition:
        return None
    return _saddle_lu(M, D, f, g, rows)


__all__ = [
    "solve_saddle",
    "solve_filtered",
    "solve_augmented_lagrangian",
    "schur_condition",
    "regularized_correction",
    "CORRECTION_REGULARIZATION",
    "SADDLE_ROW_TOL",
    "VANISHING_ROW",
    "FILTER_LEVEL",
    "AL_PENALTY",
    "REGULAR_CONDITION",
    "SINGULAR_CONDITION",
]
