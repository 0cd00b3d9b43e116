"""Impacts and contact modes of unilateral contacts: the impulse and force complementarity problems.

Notation: ``G`` holds the Jacobian rows ``g_q`` of the contacts considered, ``gdot = G dq - beta``
their gap rates.  The other (bilateral) constraints ``D dq = beta`` are held during an impact and
at every instant, so the response of the contacts to impulses ``P`` (or forces ``f``) along their
gradients is ``X P`` with ``[M D^T; D 0] [X; Y] = [G^T; 0]``, and ``W = G X`` is the Delassus matrix.

Impact law (Newton's restitution for several contacts at once, as in F. Pfeiffer and C. Glocker,
Multibody Dynamics with Unilateral Contacts, Wiley, 1996, ch. 6; C. Glocker, Set-Valued Force Laws,
Springer, 2001): the contacts closed or closing at the impact (gap zero, rate not separating) take
impulses ``P >= 0`` with

    dq+ = dq- + X P,   gdot+ = gdot- + W P,
    gdot+_i + e_i gdot-_i >= 0,   P_i >= 0,   P_i (gdot+_i + e_i gdot-_i) = 0,

a linear complementarity problem in ``P`` (``W P + (1 + e) gdot-``).  A contact that takes an
impulse leaves with ``-e`` times its approach rate; one that takes none leaves faster.  For one
contact it is Newton's law; for a row of touching balls (Newton's cradle) it is the simultaneous
(not the sequential) impact, which conserves momentum and, for ``e = 1``, energy.  Approach rates
below ``rest_velocity`` count as plastic (``e = 0``): this ends an accumulation of impacts (a
bouncing ball coming to rest, a Zeno point) by closing the contact.
Friction takes no impulse (a finite normal force bounds it by ``mu N dt = 0``): the rows held in
an impact are the bilateral ones only, sticking friction elements included among the free ones.

Contact modes (same references): the closed contacts (gap and rate zero) carry forces ``f >= 0``
with ``d2g/dt2 = W f + b >= 0`` and ``f_i d2g_i/dt2 = 0``, ``b`` the gap accelerations with no
contact force; the contacts with ``f_i > 0`` stay closed, the others open.

Example (two unit masses on a line, the first hits the second at speed 1, e = 1):
    >>> import numpy as np
    >>> M, G = np.eye(2), np.array([[-1.0, 1.0]])
    >>> X, W = contact_response(M, np.zeros((0, 2)), G)
    >>> P = impact_impulses(W, G @ np.array([1.0, 0.0]), np.array([1.0]))
    >>> (np.array([1.0, 0.0]) + X @ P).tolist()
    [0.0, 1.0]
"""

from __future__ import annotations

import numpy as np

from .complementarity import solve_lcp
from .saddle import solve_saddle


def contact_response(M: np.ndarray, D: np.ndarray, G: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``X`` (``n x k``, velocity change per unit impulse of each contact, bilateral rows held) and ``W = G X``."""
    k, n = G.shape
    if k == 0:
        return np.zeros((n, 0)), np.zeros((0, 0))
    X, _ = solve_saddle(M, D, G.T.copy(), np.zeros((D.shape[0], k)))
    W = G @ X
    return X, 0.5 * (W + W.T)


def impact_impulses(W: np.ndarray, gdot_minus: np.ndarray, restitution: np.ndarray) -> np.ndarray:
    """Impulses ``P >= 0`` of Newton's multi-contact impact law (module docstring)."""
    return solve_lcp(W, (1.0 + restitution) * gdot_minus)


def contact_forces(W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Forces ``f >= 0`` of closed contacts with gap accelerations ``W f + b >= 0`` (complementary)."""
    return solve_lcp(W, b)


__all__ = ["contact_response", "impact_impulses", "contact_forces"]
