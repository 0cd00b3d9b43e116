"""Small linear complementarity problems: find ``z >= 0`` with ``w = A z + b >= 0`` and ``z . w = 0``.

The contact problems of a multibody model (which contacts carry a force, which take an impulse)
are LCPs whose matrix ``A`` is the Delassus matrix ``G M^-1 G^T`` of the contacts, symmetric and
positive semi-definite (singular when contacts are redundant, as the four legs of a table).  A model
has few contacts that can act at once, so the solver here enumerates the candidate active sets, the
smallest first, and solves each by least squares: for a positive semi-definite ``A`` and a solvable
problem this finds a solution (K. G. Murty, Linear Complementarity, Linear and Nonlinear
Programming, 1988, ch. 1 and 2); with more than :data:`MAX_ENUMERATED` candidates it gives up with a
:class:`~symbody.errors.NumericalError` rather than guess.

Example:
    >>> import numpy as np
    >>> z = solve_lcp(np.array([[2.0, -1.0], [-1.0, 2.0]]), np.array([-2.0, 0.0]))
    >>> np.round(z, 12).tolist()
    [1.333333333333, 0.666666666667]
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from ..errors import NumericalError

#: the largest number of unknowns solved by enumerating the active sets (2^n candidates)
MAX_ENUMERATED = 14


def _solve_active(A: np.ndarray, b: np.ndarray, active: tuple[int, ...], tol: float) -> np.ndarray | None:
    """``z`` with ``z_S`` solving ``A_SS z_S = -b_S`` (least squares) and ``z`` zero elsewhere, if complementary."""
    n = b.size
    z = np.zeros(n)
    if active:
        S = list(active)
        zs, *_ = np.linalg.lstsq(A[np.ix_(S, S)], -b[S], rcond=None)
        z[S] = zs
    w = A @ z + b
    scale = tol * (1.0 + float(np.max(np.abs(b))))
    if np.all(z >= -scale) and np.all(w >= -scale) and np.all(np.abs(w[list(active)]) <= scale):
        return np.maximum(z, 0.0)
    return None


def solve_lcp(A: np.ndarray, b: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """A solution ``z`` of the LCP ``z >= 0``, ``A z + b >= 0``, ``z . (A z + b) = 0`` (module docstring).

    Active sets are tried by increasing size, and among those of one size the ones of the most
    negative entries of ``b`` first; the first complementary solution is returned.

    Raises:
        NumericalError: no active set gives a solution (``A`` not positive semi-definite, or the
            problem has none), or too many unknowns to enumerate.
    """
    A = np.atleast_2d(np.asarray(A, dtype=float))
    b = np.asarray(b, dtype=float).reshape(-1)
    n = b.size
    if n == 0 or np.all(b >= 0):
        return np.zeros(n)
    if n > MAX_ENUMERATED:
        raise NumericalError(
            f"{n} contacts can act at once: more than the {MAX_ENUMERATED} the enumerating complementarity "
            "solver handles"
        )
    order = sorted(range(n), key=lambda i: b[i])
    for size in range(1, n + 1):
        for active in combinations(order, size):
            z = _solve_active(A, b, tuple(sorted(active)), tol)
            if z is not None:
                return z
    raise NumericalError("the contact complementarity problem has no solution (inconsistent contacts?)")


__all__ = ["solve_lcp", "MAX_ENUMERATED"]
