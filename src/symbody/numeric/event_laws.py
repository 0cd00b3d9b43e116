"""The laws of events, once for numpy: :mod:`symbody.numeric` and the Python FMUs share this module.

It imports only numpy and math, so that the Python backend copies it into its FMUs (as
``symbody_event_laws.py``) next to its runtime; ``fmu_templates/sb_event_laws.c`` is its C counterpart
and ``tests/fmu/test_event_kernels.py`` runs both on the same problems.

* :func:`solve_lcp`: the linear complementarity problems of unilateral contacts, ``z >= 0``,
  ``w = W z + b >= 0``, ``z . w = 0`` with ``W`` the symmetric positive semi-definite Delassus matrix of the
  contacts: Newton's impact law (``b = (1 + e) gdot-``) and the contact forces (``b`` the gap accelerations
  without contact force).  A model has few contacts that act at once, so the active sets are enumerated, the
  smallest first and among those of one size the ones of the most negative ``b`` first (K. G. Murty, Linear
  Complementarity, Linear and Nonlinear Programming, 1988, ch. 1 and 2): for a positive semi-definite ``W``
  and a solvable problem this finds a solution.  Each subproblem is solved by :func:`sym_solve`, the
  pseudo-inverse of ``W[S, S]``: contacts redundant within an active set share their force (the
  minimum-norm solution).
* :func:`entry_rate`: the rate at which a contact that a master found inside its surface crossed it, with
  which the impact law is applied after the projection back onto the surface (the late event then neither
  gains nor loses energy along the gap).
* :func:`unresolved_flight` and :func:`plastic_impact`: a contact found late that would leave its surface
  slower than the master's steps resolve counts as at rest, and its impact is plastic: accumulations of
  impacts end in every master, also those with fixed steps.
* :func:`indicator_offset` and :func:`offset_bound`: the offset of an open contact's event indicator in the
  native Model Exchange FMUs (``fmu_templates/sb_events.h``), grown where the master finds the contact again
  where it left its surface, up to the error the master's tolerance allows in its gap (Co-Simulation, and so
  the Python FMUs, locate their events themselves: the laws are here as the reference of the C kernel).

Example (two unit masses on a line, the first hits the second at speed 1, e = 1):
    >>> import numpy as np
    >>> solve_lcp(np.array([[2.0, -1.0], [-1.0, 2.0]]), np.array([-2.0, 0.0])).round(12).tolist()
    [1.333333333333, 0.666666666667]
    >>> round(entry_rate(-0.5, -9.81, 0.01), 6)  # a ball found 1 cm inside the floor at 0.5 m/s entered slower
    -0.231948
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

#: gaps within this distance of zero touch
GAP_TOL = 1e-8
#: approach rates below this close a contact plastically (the end of an accumulation of impacts)
REST_VELOCITY = 1e-5
#: complementarity holds to this, relative to ``1 + max |b|``
LCP_TOL = 1e-9
#: eigenvalues of a Delassus matrix below this, relative to its largest, count as zero (redundant contacts)
LCP_RCOND = 1e-12
#: unknowns the enumeration of the active sets handles (2^14 sets at most)
MAX_ENUMERATED = 14
#: after an event a closed contact keeps a force above this part of 1 + the largest contact force, else it opens
FORCE_TOL = 1e-8
#: a late impact whose rebound would rise less than this times the depth at which it was found is plastic ...
REBOUND_RESOLUTION = 10.0
#: ... if its flight also lasts less than this many of the importer's steps, where that step is known
FLIGHT_STEPS = 10.0
#: a contact found at most this deep inside its surface was located there, not found late: twice the offset of
#: the native FMUs' event indicators (an event is seen when an open gap reaches -1e-10), far below any
#: importer's accuracy, so the depth says nothing of how the contact entered
LOCATED_DEPTH = 2e-10
#: the first offset of an open contact's event indicator in Model Exchange (an event is seen when its gap
#: reaches -1e-10) ...
EVENT_HYSTERESIS = 1e-10
#: ... and the factor by which it grows each time the master finds the contact again where it left its surface
OFFSET_GROWTH = 10.0


class ComplementarityError(ArithmeticError):
    """A complementarity problem without a solution by enumeration (too many unknowns, or none works)."""


def sym_solve(W: np.ndarray, S, rhs: np.ndarray) -> np.ndarray:
    """The minimum-norm solution of ``W[S, S] z = rhs`` for a symmetric positive semi-definite ``W``: its
    pseudo-inverse, eigenvalues below :data:`LCP_RCOND` of the largest dropped."""
    A = W[np.ix_(S, S)]
    if A.shape[0] == 1:
        return np.array([rhs[0] / A[0, 0] if A[0, 0] > 0.0 else 0.0])
    w, V = np.linalg.eigh(A)
    cut = LCP_RCOND * float(np.max(np.abs(w)))
    y = V.T @ rhs
    y = np.divide(y, w, out=np.zeros_like(y), where=np.abs(w) > cut)
    return V @ y


def solve_lcp(W: np.ndarray, b: np.ndarray, tol: float = LCP_TOL) -> np.ndarray:
    """``z >= 0`` with ``W z + b >= 0`` and ``z (W z + b) = 0`` (module docstring).

    Raises:
        ComplementarityError: more than :data:`MAX_ENUMERATED` unknowns, or no active set gives a solution
            (``W`` not positive semi-definite, or the problem has none).
    """
    W = np.atleast_2d(np.asarray(W, dtype=float))
    b = np.asarray(b, dtype=float).reshape(-1)
    m = b.size
    if m == 0 or np.all(b >= 0.0):
        return np.zeros(m)
    if m > MAX_ENUMERATED:
        raise ComplementarityError(
            f"{m} contacts can act at once: more than the {MAX_ENUMERATED} the enumerating complementarity "
            "solver handles"
        )
    scale = tol * (1.0 + float(np.max(np.abs(b))))
    order = sorted(range(m), key=lambda i: b[i])  # (stable: as the C kernel's insertion sort)
    for size in range(1, m + 1):
        for active in combinations(order, size):
            S = sorted(active)
            z = np.zeros(m)
            z[S] = sym_solve(W, S, -b[S])
            w = W @ z + b
            if np.all(z >= -scale) and np.all(w >= -scale) and np.all(np.abs(w[S]) <= scale):
                return np.maximum(z, 0.0)
    raise ComplementarityError("the contact complementarity problem has no solution (inconsistent contacts?)")


def kept_force(f: np.ndarray, b: np.ndarray, W: np.ndarray) -> float:
    """The force a contact at rest must carry, in the solution ``f`` of its force problem ``(W, b)``, to close:
    above the rounding of the problem (1e-10 of ``1 + max |b| / max W_ii``) and ``FORCE_TOL`` of ``1 +`` the
    largest force (a contact that needs less is at the point of lifting off: closed, it would open again at
    once)."""
    wmax = max(float(np.max(np.diag(W))), 1e-300) if W.size else 1.0
    bmax = float(np.max(np.abs(b))) if b.size else 0.0
    return max(1e-10 * (1.0 + bmax / wmax), FORCE_TOL * (1.0 + float(np.max(np.abs(f), initial=0.0))))


def entry_rate(r: float, alpha: float, depth: float, located: float = LOCATED_DEPTH) -> float:
    """The rate at which a contact found ``depth > 0`` inside its surface with gap rate ``r`` and gap
    acceleration ``alpha`` (every contact open) crossed the surface: under a constant ``alpha``,
    ``r^2 - 2 alpha g`` is kept along the gap ``g``, so ``r_in^2 = r^2 + 2 alpha depth``, approaching (``r_in
    <= 0``; 0 when the motion could not have come from the surface), unless it only drifted in (``r >= 0``
    while ``alpha <= 0``: ``r`` is kept) or leaves where it was located (``r >= 0``, ``depth <= located``,
    twice the offset of its event indicator: ``r`` is kept; the rule would turn the master's error into an
    approach)."""
    if r >= 0.0 and (alpha <= 0.0 or depth <= located):
        return r
    r2 = r * r + 2.0 * alpha * depth
    return -math.sqrt(r2) if r2 > 0.0 else 0.0


def indicator_offset(
    offset: float,
    depth: float,
    r: float,
    gap: float,
    largest: float,
    base: float = EVENT_HYSTERESIS,
    growth: float = OFFSET_GROWTH,
    rest_velocity: float = REST_VELOCITY,
) -> float:
    """The offset of an open contact's event indicator after an event (Model Exchange), from its ``offset``
    before, the ``depth`` at which the event found it inside its surface (0: not inside), its ``gap`` and gap
    rate ``r`` then.  Found where it was located (``0 < depth <= 2 offset``) and not approaching faster than
    ``rest_velocity``: the master's error in its next step reached the offset, which grows by ``growth`` up to
    ``largest`` (:func:`offset_bound`).  Approaching faster (an impact, or found late) or found farther than
    ``largest`` from its surface (it flew): ``base``.  Else the offset is kept.

    Example (a payload found 1e-10 inside the ground, rising at 1e-9 m/s, the bound 1.6e-5 m):
        >>> indicator_offset(1e-10, 1e-10, 1e-9, -1e-10, 1.6e-5)
        1e-09
    """
    if r < -rest_velocity or (depth <= 0.0 and gap > largest):
        return base
    if 0.0 < depth <= 2.0 * offset:
        return max(offset, min(growth * offset, largest))
    return offset


def offset_bound(rtol: float, G: np.ndarray, q: np.ndarray) -> float:
    """The error a master at relative tolerance ``rtol`` (and absolute tolerance ``rtol``: FMI's nominal values
    1) may make in a gap with the Jacobian row ``G`` at the coordinates ``q``: ``rtol (1 + sum |G_j q_j|)``.

    The overhead crane's payload hanging straight down on the ground (``h - l cos(theta)``, ``l = 15`` m), at
    rtol 1e-6:

    Example:
        >>> round(offset_bound(1e-6, np.array([0.0, -1.0, 0.0]), np.array([20.0, 15.0, 0.0])), 12)
        1.6e-05
    """
    s = 1.0
    for g, x in zip(np.asarray(G, dtype=float).tolist(), np.asarray(q, dtype=float).tolist()):
        s += abs(g * x)
    return rtol * s


def rest_rate(closed: bool, gamma: float, step: float, rest_velocity: float = REST_VELOCITY) -> float:
    """The largest rate of a closed contact, at an event, that is the master's error rather than a motion: its
    constraint holds the rate at zero, but a master whose steps ``step`` follow the acceleration ``gamma`` of the
    gap's own motion (a moving surface: the contact's ``gamma``) a step late leaves it up to ``|gamma| step``
    (explicit Euler lags ``a h / 2`` behind a floor accelerating at ``a``); ``rest_velocity`` for open contacts,
    without a known step and on surfaces at rest.  Such a contact is at rest: no impact, no lift-off.

    Example (a ball resting on a floor accelerating at 2 m/s^2, under Euler with steps of 1 ms):
        >>> rest_rate(True, 2.0, 1e-3), rest_rate(False, 2.0, 1e-3), rest_rate(True, 0.0, 1e-3)
        (0.002, 1e-05, 1e-05)
    """
    return max(rest_velocity, abs(gamma) * step) if closed and step > 0.0 else rest_velocity


def unresolved_flight(u: float, alpha: float, depth: float, late: float, gap_tol: float = GAP_TOL,
                      resolution: float = REBOUND_RESOLUTION, step: float = 0.0,
                      flight_steps: float = FLIGHT_STEPS) -> bool:  # fmt: skip
    """Whether a contact leaving its surface at rate ``u >= 0`` against its gap acceleration ``alpha < 0``
    (every contact open: it comes back) makes a flight the master does not resolve, and so counts as at rest:
    found ``depth > 0`` inside its surface while leaving it (the master's step spans the flight, its
    interpolation put the crossing before it), or, at an event found ``late > gap_tol`` inside a surface,
    rising less than ``resolution`` times that depth and, where the master's step is known (``step > 0``, the
    span of the step that found the event), lasting less than ``flight_steps`` of those steps.  The depth alone
    bounds the step from below only (by ``depth / |rate|``): a flight rising ten times the depth may still span
    tens of steps of a master whose step began just before the crossing.

    Example (a ball leaving a floor found 5 cm deep at 3 m/s: 0.61 s of flight, 30 steps of 20 ms):
        >>> unresolved_flight(3.0, -9.81, 0.0, 0.05), unresolved_flight(3.0, -9.81, 0.0, 0.05, step=0.02)
        (True, False)
    """
    if not (alpha < 0.0 and u >= 0.0):
        return False
    if depth > 0.0:
        return True
    if not (late > gap_tol and u * u < 2.0 * -alpha * resolution * late):
        return False
    return not step > 0.0 or 2.0 * u < flight_steps * step * -alpha  # (the flight lasts 2 u / -alpha)


def plastic_impact(r: float, e: float, alpha: float, late: float, rest_velocity: float = REST_VELOCITY,
                   gap_tol: float = GAP_TOL, resolution: float = REBOUND_RESOLUTION, step: float = 0.0,
                   flight_steps: float = FLIGHT_STEPS) -> bool:  # fmt: skip
    """Whether an impact with approach rate ``r`` (at entry), restitution ``e`` and gap acceleration ``alpha``
    at an event found ``late`` inside a surface is plastic: an approach slower than ``rest_velocity``, or a
    rebound ``-e r`` whose flight :func:`unresolved_flight` says the master does not resolve (so accumulations
    of impacts end in every master, also with fixed steps)."""
    return not r < -rest_velocity or unresolved_flight(-e * r, alpha, 0.0, late, gap_tol, resolution, step,
                                                       flight_steps)  # fmt: skip


def error_free_rate(r: float, u: float, e: float, alpha0: float, alpha1: float, duration: float, steps: float,
                    squares: float) -> float:  # fmt: skip
    """The approach rate an impact with approach rate ``r < 0`` and restitution ``e < 1`` takes in its law
    (the rebound is ``-e`` times it): ``r`` itself, or the rate without the master's error where the flight
    the impact ends gained energy that its master, not the model, made.

    The contact left its surface at rate ``u > 0`` with gap acceleration ``alpha0 < 0`` and came back
    ``duration`` later, after ``steps`` steps of the importer whose spans ``h_i`` have the sum of squares
    ``squares``, with gap acceleration ``alpha1 < 0``.  Along the gap ``d(r^2) = 2 alpha dg``: a constant
    ``alpha`` returns the contact at ``-u``, one that varies by ``|alpha1 - alpha0|`` within the flight, whose
    apex is ``u^2 / (2 |alpha|)``, changes ``r^2`` by at most ``x = 2 u^2 |alpha1 - alpha0| / min |alpha|``.
    Explicit Euler adds ``alpha^2 h_i^2`` to ``r^2`` in each step (``v^2 + 2 |alpha| g`` of a free flight), an
    accurate master its tolerance: the gain ``r^2 - u^2 - x`` is the master's error when it is Euler's to
    within a factor 4 (``min alpha^2 squares / 4`` to ``4 max alpha^2 squares``).

    The impact then takes ``-sqrt(u^2 + x)``.  A master that locates its events but integrates with explicit
    Euler gains ``2 u |alpha| h`` a flight, which balanced the loss ``(1 - e^2) u^2`` of the impacts in a cycle
    of flights of ``4 / (1 - e^2)`` steps that never ended (hundreds of steps for ``e`` near 1).  Without that
    gain the rebounds decay as ``e^k``, as in the exact motion, until a rebound's flight ``2 e |r| / |alpha|``
    would be shorter than the flight's mean step ``h = duration / steps``: such an impact is plastic (rate 0),
    and the accumulation ends about when the exact one does (each flight up to a step late).  Any change is
    within the master's error (the gain): an accurate master, whose gain is far below Euler's, keeps its rates,
    and an elastic contact, ``e = 1``, keeps ``r``: it has no accumulation to end.

    Example (a ball under Euler at h = 1 ms, e = 0.8: left at 0.05 m/s, back at 0.0597 m/s after 12 steps):
        >>> error_free_rate(-0.0597, 0.05, 0.8, -9.81, -9.81, 0.0112, 12.0, 1.1e-5)
        -0.05
        >>> error_free_rate(-0.05, 0.05, 0.8, -9.81, -9.81, 0.0112, 12.0, 1.1e-5)  # an accurate master: no gain
        -0.05
        >>> error_free_rate(-0.0101, 0.0005, 0.8, -9.81, -9.81, 0.0011, 2.0, 1.01e-6)  # rebound 0.4 mm/s: plastic
        0.0
    """
    if not (0.0 <= e < 1.0 and r < 0.0 and u > 0.0 and alpha0 < 0.0 and alpha1 < 0.0 and duration > 0.0
            and steps >= 1.0 and squares > 0.0):  # fmt: skip
        return r
    a, big, h = min(-alpha0, -alpha1), max(-alpha0, -alpha1), duration / steps
    explained = 2.0 * u * u * abs(alpha1 - alpha0) / a
    gain = r * r - u * u - explained
    if not (0.25 * a * a * squares <= gain <= 4.0 * big * big * squares):  # (Euler: alpha^2 squares)
        return r
    rate = -math.sqrt(u * u + explained)
    return 0.0 if 2.0 * e * -rate < a * h else rate


def sliding_forces(
    evaluate, F0: np.ndarray, mu: np.ndarray, slip: np.ndarray, names: list[str], iterations: int = 8
) -> np.ndarray:
    """The forces ``F = -mu s |N|`` of the slipping friction elements whose normal forces ``N = evaluate(F)``
    depend on them (a rod sliding on its end: the friction turns it and changes the force on the floor).

    ``N`` is affine in ``F`` where the contact and bilateral forces are (``N0 + C F``): Newton on
    ``F + mu s sigma N(F) = 0`` with the sign ``sigma`` of each normal force at the start and ``C`` by
    differences, exact in one step (a fixed-point iteration diverges once ``|mu C| > 1``, long before the
    problem is ill posed).  A solution exists while ``1 + mu s sigma C`` stays positive (one element): beyond
    that, the Painleve limit ``mu_P = -1 / (s sigma C)``, sliding Coulomb friction on rigid contacts has no
    consistent normal force (P. Painleve, Sur les lois du frottement de glissement, C. R. Acad. Sci. 121,
    1895; F. Pfeiffer and C. Glocker, Multibody Dynamics with Unilateral Contacts, 1996, ch. 7).

    Raises:
        ComplementarityError: beyond the Painleve limit (naming the element, its mu and the limit), or no
            convergence.

    Example (N = 3 - 0.4 F, mu = 2, sliding forward: F = -2 N = -6 / (1 - 0.8) = -30; beyond mu = 2.5 none):
        >>> sliding_forces(lambda F: 3.0 - 0.4 * F, np.array([0.0]), np.array([2.0]), np.array([1.0]), ["f"])
        array([-30.])
    """
    F = np.asarray(F0, dtype=float).copy()
    N = np.asarray(evaluate(F), dtype=float)
    sigma = np.where(N < 0.0, -1.0, 1.0)
    k = mu * slip * sigma
    for _ in range(iterations):
        r = F + k * N
        scale = 1.0 + float(np.max(np.abs(F), initial=0.0)) + float(np.max(np.abs(k * N), initial=0.0))
        if np.max(np.abs(r), initial=0.0) <= 1e-12 * scale:
            break
        h = 1e-6 * scale
        C = np.column_stack([(np.asarray(evaluate(F + h * e)) - N) / h for e in np.eye(F.size)])  # dN/dF
        J = np.eye(F.size) + k[:, None] * C
        try:
            F = F - np.linalg.solve(J, r)
        except np.linalg.LinAlgError:
            F = F - np.linalg.lstsq(J, r, rcond=1e-12)[0]
        N = np.asarray(evaluate(F), dtype=float)
    else:
        raise ComplementarityError("the sliding friction forces do not converge")
    wrong = np.flatnonzero(sigma * N < 0.0)
    if wrong.size:
        j = int(wrong[0])
        c = (np.asarray(evaluate(F + np.eye(F.size)[j])) - N)[j]  # dN_j / dF_j (affine: one difference)
        limit = -1.0 / (slip[j] * sigma[j] * c) if slip[j] * sigma[j] * c < 0.0 else math.inf
        raise ComplementarityError(
            f"friction {names[j]!r} sliding: mu = {mu[j]:g} is beyond the Painleve limit {limit:.4g} of this "
            "configuration, where the normal force would turn against the contact: rigid contacts with sliding "
            "Coulomb friction have no consistent motion there (the Painleve paradox)"
        )
    return F


__all__ = [
    "rest_rate",
    "kept_force",
    "sliding_forces",
    "ComplementarityError",
    "sym_solve",
    "solve_lcp",
    "entry_rate",
    "indicator_offset",
    "offset_bound",
    "EVENT_HYSTERESIS",
    "OFFSET_GROWTH",
    "unresolved_flight",
    "plastic_impact",
    "GAP_TOL",
    "REST_VELOCITY",
    "LCP_TOL",
    "LCP_RCOND",
    "MAX_ENUMERATED",
    "REBOUND_RESOLUTION",
    "FLIGHT_STEPS",
    "LOCATED_DEPTH",
    "error_free_rate",
    "FORCE_TOL",
]
