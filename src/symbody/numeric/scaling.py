"""Rank decisions on matrices whose rows and columns carry different units.

The Newton matrices of inverse dynamics and static equilibrium mix units: the
rows are the equations of coordinates in metres and radians (forces in N, moments
in N m), the columns are coordinates, actuator efforts of any gain (a hydraulic
cylinder's ``1.6e11 Pa`` per unit of valve opening next to a motor's ``1 N m / A``)
and multipliers.  A rank test on such a matrix as it is (a pivot below ``1e-9``
times the largest) compares numbers of different units: a column that is small
only because of its unit is taken as dependent.  The helpers here make the test
independent of the units before deciding:

- the rows of coordinate ``i`` are weighted by ``1 / sqrt(M_ii)``: a generalized
  force ``F_i`` times ``1 / sqrt(M_ii)`` has the unit ``sqrt(J) / s`` whatever the
  unit of the coordinate (``F_i q_i`` is an energy, ``M_ii`` is ``F_i / ddq_i``),
  so every row is in the same unit (:func:`mass_weights`);
- each unknown is measured in a unit of its own, its column's reference norm
  (:func:`column_norms`), so that changing the unit of an effort or a
  multiplier changes nothing.

:func:`scaled_rank` and :func:`scaled_lstsq` apply both and decide (or solve) on
the scaled matrix with the usual relative tolerance.

Example (two decoupled actuators of gains ``1.6e11`` and ``1``):
    >>> J = np.diag([1.6e11, 1.0])
    >>> from .linalg import numerical_rank
    >>> numerical_rank(J), scaled_rank(J, np.ones(2), column_norms(J))
    (1, 2)
"""

from __future__ import annotations

import numpy as np

from .linalg import RANK_TOL, numerical_rank


def mass_weights(M: np.ndarray) -> np.ndarray:
    """Row weights ``1 / sqrt(M_ii)`` that bring the equations of all coordinates to one unit.

    A coordinate without inertia of its own (``M_ii = 0``) gets the weight of the heaviest.

    Example:
        >>> mass_weights(np.diag([4.0, 0.25, 0.0])).tolist()
        [0.5, 2.0, 0.5]
    """
    d = np.abs(np.diag(np.atleast_2d(M))).astype(float)
    if d.size == 0:
        return d
    heaviest = float(d.max())
    d = np.where(d > 0, d, heaviest if heaviest > 0 else 1.0)
    return 1.0 / np.sqrt(d)


def column_norms(A: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """Euclidean norms of the columns of ``A`` (the larger of these and ``reference``; 1 for a zero column).

    ``reference``, the largest norms met so far (e.g. over a motion), keeps a column that
    vanishes at one configuration (an actuator at its dead point) small against its own
    scale instead of blowing it up to a unit column.

    Example:
        >>> column_norms(np.array([[3.0, 0.0], [4.0, 0.0]])).tolist()
        [5.0, 1.0]
    """
    A = np.atleast_2d(np.asarray(A, dtype=float))
    norms = np.sqrt(np.sum(A * A, axis=0))
    if reference is not None:
        norms = np.maximum(norms, reference)
    return np.where(norms > 0, norms, 1.0)


def _scaled(A: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    return (np.asarray(rows, dtype=float)[:, None] * np.atleast_2d(A)) / np.asarray(columns, dtype=float)[None, :]


def scaled_rank(A: np.ndarray, rows: np.ndarray, columns: np.ndarray, tol: float = RANK_TOL) -> int:
    """Rank of ``diag(rows) A diag(1 / columns)`` (pivoted QR, relative tolerance ``tol``)."""
    return numerical_rank(_scaled(A, rows, columns), tol) if np.size(A) else 0


def scaled_lstsq(A: np.ndarray, b: np.ndarray, rows: np.ndarray, columns: np.ndarray, rcond: float = RANK_TOL):
    """Least-squares ``x`` with ``A x ~ b``, solved on the scaled system (``x = y / columns``).

    Rows weighted by ``rows`` (which changes nothing when the system is consistent) and
    unknowns measured in units of ``columns``: the singular values that ``rcond`` cuts are
    those of the scaled matrix, so no unknown is dropped for its unit.

    Example:
        >>> J = np.diag([1.6e11, 1.0])
        >>> np.linalg.lstsq(J, np.ones(2), rcond=RANK_TOL)[0].tolist()   # the second unknown is cut
        [6.25e-12, 0.0]
        >>> scaled_lstsq(J, np.ones(2), np.ones(2), column_norms(J)).tolist()
        [6.25e-12, 1.0]
    """
    rows = np.asarray(rows, dtype=float)
    y = np.linalg.lstsq(_scaled(A, rows, columns), rows * np.asarray(b, dtype=float), rcond=rcond)[0]
    return y / np.asarray(columns, dtype=float)


__all__ = ["mass_weights", "column_norms", "scaled_rank", "scaled_lstsq"]
