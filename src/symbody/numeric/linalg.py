"""Rank-revealing linear algebra used by the analyses.

Constraint Jacobians of multibody models are often rank deficient (redundant
constraints, as in the dynamics chapter's double pendulum with both sine and cosine
closure equations) and their columns mix units (metres, radians).  The
helpers here choose well-conditioned sets with QR with column pivoting
(Gil Soto, 2005, ``qr_n_m``) instead of inverting blindly:

- :func:`numerical_rank` and :func:`independent_rows`: a maximal set of
  linearly independent constraint rows.
- :func:`select_columns`: a basis of the column space, taken group by group
  (auxiliary coordinates are made dependent first).
- :func:`partition`: dependent / independent coordinates for the velocity
  and acceleration problems.

The saddle-point solves ``[M D^T; D 0] [x; lam] = [f; g]`` with redundant or vanishing rows are in
:mod:`symbody.numeric.saddle`.

Example:
    >>> import numpy as np
    >>> D = np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0]])   # two copies of one constraint
    >>> len(independent_rows(D))
    1
    >>> p = partition(D)
    >>> p.dependent, p.independent
    ([0], [1, 2])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
from scipy.linalg import lapack

from ..errors import NumericalError

#: relative tolerance on the diagonal of pivoted QR factors below which a direction is taken as dependent
RANK_TOL = 1e-9
#: a preferred choice of dependent coordinates is kept while its condition is within this factor of
#: the choice of plain QR with column pivoting
PREFERENCE_RATIO = 4.0


def _scale(A: np.ndarray) -> float:
    return float(np.max(np.abs(A))) if A.size else 0.0


_geqp3 = lapack.get_lapack_funcs("geqp3", dtype=np.float64)


def _pivoted_qr(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``|diag R|`` and the column permutation of QR with column pivoting (LAPACK ``geqp3``)."""
    qr, jpvt, _, _, info = _geqp3(np.array(A, dtype=float, order="F"))
    if info != 0:  # pragma: no cover - only for invalid arguments
        raise NumericalError(f"QR with column pivoting failed (info {info})")
    k = min(A.shape)
    return np.abs(np.diag(qr)[:k]), jpvt - 1


def numerical_rank(A: np.ndarray, tol: float = RANK_TOL) -> int:
    """Rank of ``A`` from pivoted QR: diagonal entries above ``tol * max|R_00|`` count."""
    A = np.atleast_2d(np.asarray(A, dtype=float))
    if A.size == 0 or _scale(A) == 0.0:
        return 0
    d, _ = _pivoted_qr(A)
    return int(np.sum(d > tol * d[0])) if d.size else 0


def independent_rows(D: np.ndarray, tol: float = RANK_TOL) -> list[int]:
    """Indices (sorted) of a maximal set of linearly independent rows of ``D``.

    Pivoted QR of ``D^T`` picks the best conditioned rows first.
    """
    D = np.atleast_2d(np.asarray(D, dtype=float))
    m = D.shape[0]
    if m == 0 or _scale(D) == 0.0:
        return []
    d, piv = _pivoted_qr(D.T)
    r = int(np.sum(d > tol * d[0])) if d.size else 0
    return sorted(int(i) for i in piv[:r])


def leading_rows(D: np.ndarray, count: int) -> list[int]:
    """Indices (sorted) of the ``count`` rows of ``D`` that pivoted QR of ``D^T`` picks first: the best
    conditioned set of that size (the rank of the rows on the constraint manifold, where a drift off it
    makes redundant rows independent at its own level).

    Example:
        >>> leading_rows(np.array([[1.0, 0.0], [1.0, 1e-9], [0.0, 1.0]]), 2)
        [0, 2]
    """
    D = np.atleast_2d(np.asarray(D, dtype=float))
    if count <= 0 or _scale(D) == 0.0:
        return []
    _, piv = _pivoted_qr(D.T)
    return sorted(int(i) for i in piv[:count])


def select_columns(A: np.ndarray, groups: Sequence[Sequence[int]], tol: float = RANK_TOL) -> list[int]:
    """A basis of the column space of ``A``, taking columns from ``groups`` in order of preference.

    Columns of the first group are chosen first (by pivoted QR); the next group
    only fills the rank the previous ones leave.  Returns the chosen column
    indices (sorted).  The number returned is the rank of ``A`` restricted to
    the columns listed in the groups.
    """
    A = np.atleast_2d(np.asarray(A, dtype=float))
    scale = _scale(A)
    chosen: list[int] = []
    if scale == 0.0:
        return chosen
    basis = np.zeros((A.shape[0], 0))
    for group in groups:
        cols = [c for c in group if c not in chosen]
        if not cols or basis.shape[1] >= A.shape[0]:
            continue
        B = A[:, cols]
        if basis.shape[1]:
            B = B - basis @ (basis.T @ B)
        if _scale(B) <= tol * scale:
            continue
        Q, R, piv = sla.qr(B, mode="economic", pivoting=True)
        d = np.abs(np.diag(R))
        r = int(np.sum(d > tol * scale))
        chosen.extend(cols[int(i)] for i in piv[:r])
        basis = np.hstack([basis, Q[:, :r]])
        # re-orthonormalize to keep the projector accurate
        basis = np.linalg.qr(basis)[0]
    return sorted(chosen)


@dataclass(frozen=True)
class Partition:
    """Coordinates split into dependent and independent sets for a constraint Jacobian ``D``.

    Attributes:
        dependent: indices of the dependent coordinates (a basis of the columns of ``D``).
        independent: indices of the independent coordinates (as many as degrees of freedom).
        rows: indices of a maximal set of independent rows of ``D``.
        rank: rank of ``D``.
        condition: ``|D_r| |D_r[:, dependent]^-1|`` (2-norms, ``D_r = D[rows]``): how strongly the
            dependent velocities amplify the independent ones (1 when there is no constraint).
    """

    dependent: list[int]
    independent: list[int]
    rows: list[int]
    rank: int
    condition: float


def partition(
    D: np.ndarray,
    independent: Sequence[int] | None = None,
    prefer_dependent: Sequence[Sequence[int]] | None = None,
    tol: float = RANK_TOL,
    names: Sequence[str] | None = None,
    rows: Sequence[int] | None = None,
) -> Partition:
    """Split the coordinates into dependent and independent ones (QR with column pivoting).

    Args:
        D: constraint Jacobian (``nc x n``).
        independent: coordinates the caller wants independent; ``None`` chooses them.
        prefer_dependent: groups of coordinates, in order of preference for the dependent
            set (e.g. auxiliary coordinates first); coordinates not listed come last.  The
            preferred choice is kept only while its :attr:`Partition.condition` is within
            ``PREFERENCE_RATIO`` of the one plain QR with column pivoting gives.
        tol: relative rank tolerance.
        names: coordinate names, used in error messages.
        rows: the independent rows, when the caller knows them (:func:`leading_rows` with the rank the
            rows have on the constraint manifold); found with ``tol`` otherwise.

    Raises:
        NumericalError: the requested independent set is not compatible with ``D``
            (wrong number, or the remaining coordinates are not determined by the constraints).
    """
    D = np.atleast_2d(np.asarray(D, dtype=float))
    n = D.shape[1]
    rows = independent_rows(D, tol) if rows is None else sorted(int(i) for i in rows)
    r = len(rows)
    nm = list(names) if names is not None else [f"q[{i}]" for i in range(n)]
    if independent is not None:
        ind = sorted(set(int(i) for i in independent))
        dep = [i for i in range(n) if i not in ind]
        if len(ind) != n - r:
            raise NumericalError(
                f"{len(ind)} independent coordinates given ({', '.join(nm[i] for i in ind) or 'none'}) but the "
                f"constraints leave {n - r} degrees of freedom here; suggested: "
                f"{', '.join(nm[i] for i in partition(D, tol=tol).independent) or 'none'}"
            )
        if r and numerical_rank(D[rows][:, dep], tol) < r:
            raise NumericalError(
                f"coordinates {', '.join(nm[i] for i in ind)} cannot be independent here: the constraints do not "
                f"determine {', '.join(nm[i] for i in dep)} from them; suggested independent: "
                f"{', '.join(nm[i] for i in partition(D, tol=tol).independent) or 'none'}"
            )
    else:
        # the columns of the independent rows: redundant rows, independent off the constraints at the
        # level of the drift, would count towards the rank of the columns by as much
        Dr = D[rows]
        dep = select_columns(Dr, [list(range(n))], tol) if r else []
        cond = dependent_condition(D, rows, dep)
        if prefer_dependent:
            # the preferred choice wins unless it is much worse conditioned than the free one
            groups = [list(g) for g in prefer_dependent]
            listed = {i for g in groups for i in g}
            groups.append([i for i in range(n) if i not in listed])
            dep_p = select_columns(Dr, groups, tol) if r else []
            cond_p = dependent_condition(D, rows, dep_p)
            if len(dep_p) == r and cond_p <= PREFERENCE_RATIO * cond:
                dep, cond = dep_p, cond_p
        if len(dep) != r:  # pragma: no cover - select_columns returns the full rank
            raise NumericalError(f"could not find {r} dependent coordinates")
        ind = [i for i in range(n) if i not in dep]
        return Partition(dep, ind, rows, r, cond)
    return Partition(dep, ind, rows, r, dependent_condition(D, rows, dep))


def dependent_condition(D: np.ndarray, rows: Sequence[int], dependent: Sequence[int]) -> float:
    """``|D_r| / sigma_min(D_r[:, dependent])`` with ``D_r = D[rows]`` (``inf`` when singular, 1 if empty).

    Unlike the condition number of the dependent block alone, this also grows
    when the whole block becomes small compared with ``D`` (a single constraint
    row whose dependent entry vanishes).
    """
    if not len(dependent):
        return 1.0
    Dr = np.atleast_2d(D[list(rows)])
    s = np.linalg.svd(Dr[:, list(dependent)], compute_uv=False)
    smax = float(np.linalg.norm(Dr, 2))
    return smax / float(s[-1]) if s[-1] > 0 else float("inf")


def null_space_basis(D: np.ndarray, part: Partition) -> np.ndarray:
    """Matrix ``S`` (``n x len(independent)``) with ``D S = 0`` and ``S[independent] = I``.

    Column ``k`` is the velocity field for a unit velocity of independent coordinate
    ``k`` and zero velocity of the others (the dynamics chapter's matrix R).
    """
    D = np.atleast_2d(np.asarray(D, dtype=float))
    n = D.shape[1]
    ind, dep = part.independent, part.dependent
    S = np.zeros((n, len(ind)))
    S[ind, range(len(ind))] = 1.0
    if dep:
        Dr = D[part.rows]
        S[dep] = (
            -np.linalg.solve(Dr[:, dep], Dr[:, ind]) if Dr.shape[0] == len(dep) else -_lstsq(Dr[:, dep], Dr[:, ind])
        )
    return S


def _lstsq(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.linalg.lstsq(A, b, rcond=None)[0]


def solve_dependent(
    D: np.ndarray, rhs: np.ndarray, x: np.ndarray, part: Partition, check: float | None = 1e-8, what: str = "velocity"
) -> tuple[np.ndarray, float]:
    """Solve ``D x = rhs`` for the dependent entries of ``x`` keeping its independent entries.

    Returns the completed ``x`` and the residual ``max |D x - rhs|`` over all rows
    (redundant rows included).

    Raises:
        NumericalError: the residual exceeds ``check`` relative to the data (incompatible data).
    """
    x = np.array(x, dtype=float)
    dep, ind = part.dependent, part.independent
    if dep:
        Dr = D[part.rows]
        b = rhs[part.rows] - Dr[:, ind] @ x[ind]
        try:
            x[dep] = np.linalg.solve(Dr[:, dep], b)
        except np.linalg.LinAlgError:
            raise NumericalError(
                f"singular {what} problem: the independent coordinates do not determine the dependent ones here"
            ) from None
    res = D @ x - rhs if D.shape[0] else np.zeros(0)
    err = float(np.max(np.abs(res))) if res.size else 0.0
    if check is not None and res.size:
        scale = max(1.0, float(np.max(np.abs(rhs))), float(np.max(np.abs(D))) * float(np.max(np.abs(x))))
        if err > check * scale:
            k = int(np.argmax(np.abs(res)))
            raise NumericalError(f"incompatible {what} data: constraint row {k} is violated by {err:.3g}")
    return x, err


__all__ = [
    "RANK_TOL",
    "numerical_rank",
    "independent_rows",
    "leading_rows",
    "select_columns",
    "Partition",
    "partition",
    "null_space_basis",
    "dependent_condition",
    "solve_dependent",
]
