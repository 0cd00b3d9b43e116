"""Small linear complementarity problems: find ``z >= 0`` with ``w = A z + b >= 0`` and ``z . w = 0``.

The contact problems of a multibody model (which contacts carry a force, which take an impulse)
are LCPs whose matrix ``A`` is the Delassus matrix ``G M^-1 G^T`` of the contacts, symmetric and
positive semi-definite (singular when contacts are redundant, as the four legs of a table).  The
solver is the one of :mod:`symbody.numeric.event_laws` (shared with the Python FMUs, and the
counterpart of the C runtime's): the candidate active sets are enumerated, the smallest first, each
solved with the pseudo-inverse of its block (contacts redundant within a set share their force); with more than
:data:`MAX_ENUMERATED` candidates, or when none works, it gives up with a
:class:`~symbody.errors.NumericalError` rather than guess.

Example:
    >>> import numpy as np
    >>> z = solve_lcp(np.array([[2.0, -1.0], [-1.0, 2.0]]), np.array([-2.0, 0.0]))
    >>> np.round(z, 12).tolist()
    [1.333333333333, 0.666666666667]
"""

from __future__ import annotations

import numpy as np

from ..errors import NumericalError
from . import event_laws
from .event_laws import MAX_ENUMERATED


def solve_lcp(A: np.ndarray, b: np.ndarray, tol: float = event_laws.LCP_TOL) -> np.ndarray:
    """A solution ``z`` of the LCP ``z >= 0``, ``A z + b >= 0``, ``z . (A z + b) = 0`` (module docstring).

    Active sets are tried by increasing size, and among those of one size the ones of the most
    negative entries of ``b`` first; the first complementary solution is returned.

    Raises:
        NumericalError: no active set gives a solution (``A`` not positive semi-definite, or the
            problem has none), or too many unknowns to enumerate.
    """
    try:
        return event_laws.solve_lcp(A, b, tol)
    except event_laws.ComplementarityError as e:
        raise NumericalError(str(e)) from None


__all__ = ["solve_lcp", "MAX_ENUMERATED"]
