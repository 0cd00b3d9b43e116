"""Kinetic, potential and total energy along a motion.

The kinetic energy is ``T = 0.5 dq^T M(q, t) dq`` (exact for any model).

A model does not carry a potential function: gravity, springs and other
position-dependent loads enter only as generalized forces.  The potential
energy is therefore recovered as the work of the *static generalized forces*
``Q(q) = delta(q, dq = 0, u = 0, t)``: the forces left when velocities vanish,
i.e. gravity, springs, constant loads (damping and velocity-dependent inertia
terms vanish; inputs are external work and are set to zero unless ``u`` is
given).  ``V(q) = -int Q . dq`` is integrated along the straight segments
joining consecutive samples with composite Gauss-Legendre quadrature (error
far below 1e-12 for smooth fields), starting from ``V = 0`` at a reference.

This ``V`` is a true potential only when ``Q`` is conservative, which means
``dQ/dq`` is symmetric.  The symmetry is checked at the first sample with the
symbolic Jacobian; ``EnergyResult.conservative`` reports the result, and a
``RuntimeWarning`` is issued when the check fails (for example with follower
loads, or rheonomic loads that depend on time).

Example (a mass on a spring: ``V = 0.5 k x^2``):
    >>> import numpy as np, symbody as sb
    >>> s = sb.System("osc"); x = s.coordinate("x", 0.1); k = s.parameter("k", 4.0)
    >>> _ = s.particle("m", s.point("P", s.origin, (x, 0, 0)), 1.0)
    >>> _ = s.generalized_force("spring", x, -k * x)
    >>> nm = s.derive().numeric()
    >>> V = potential_energy(nm, np.array([[0.0], [0.5], [-1.0]]))
    >>> np.round(V, 12).tolist()
    [0.0, 0.5, 2.0]
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .model import as_numeric

_GL_CACHE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _gauss(n: int) -> tuple[np.ndarray, np.ndarray]:
    r = _GL_CACHE.get(n)
    if r is None:
        x, w = np.polynomial.legendre.leggauss(n)
        r = _GL_CACHE[n] = (0.5 * (x + 1.0), 0.5 * w)  # nodes and weights on [0, 1]
    return r


@dataclass
class EnergyResult:
    """Energy along a motion.

    Attributes:
        t: times.
        kinetic: kinetic energy ``0.5 dq^T M dq``.
        potential: potential energy of the static generalized forces, zero at ``reference``.
        total: ``kinetic + potential``.
        reference: coordinates where the potential is zero (default: the first sample).
        conservative: whether the static forces passed the symmetry check.
    """

    t: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    total: np.ndarray
    reference: np.ndarray
    conservative: bool

    @property
    def drift(self) -> float:
        """``max |E(t) - E(t0)|``."""
        return float(np.max(np.abs(self.total - self.total[0])))

    @property
    def relative_drift(self) -> float:
        """:attr:`drift` over the energy exchanged, ``max(max |T|, max |V - V(t0)|)``."""
        scale = max(float(np.max(np.abs(self.kinetic))), float(np.max(np.abs(self.potential - self.potential[0]))))
        return self.drift / scale if scale > 0 else self.drift


def kinetic_energy(model: Any, q: Any, dq: Any, t: Any = 0.0, p: Any = None) -> np.ndarray:
    """Kinetic energy ``0.5 dq^T M(q, t) dq`` of each sample (rows of ``q`` and ``dq``)."""
    nm = as_numeric(model, p)
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    DQ = np.atleast_2d(np.asarray(dq, dtype=float))
    ts = np.broadcast_to(np.asarray(t, dtype=float), (Q.shape[0],))
    fM = nm._fn("M")
    u0 = nm.eq.u0
    out = np.empty(Q.shape[0])
    for k in range(Q.shape[0]):
        M = fM(float(ts[k]), Q[k], DQ[k], u0, nm.p)[0]
        out[k] = 0.5 * DQ[k] @ M @ DQ[k]
    return out


def potential_energy(
    model: Any,
    q: Any,
    t: Any = 0.0,
    *,
    reference: Any = None,
    u: Any = None,
    nodes: int = 8,
    max_segment: float = 0.25,
    p: Any = None,
) -> np.ndarray:
    """Potential energy of the static generalized forces at each sample (see module docstring).

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        q: samples (``nt x nq``), joined in order by straight segments.
        t: time(s) at which the forces are evaluated.
        reference: coordinates where ``V = 0`` (default: the first sample).
        u: input values held during the integration (default: zeros, inputs excluded).
        nodes: Gauss-Legendre nodes per sub-segment.
        max_segment: longest sub-segment (max-norm in coordinate units).
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    ts = np.broadcast_to(np.asarray(t, dtype=float), (Q.shape[0],))
    uu = np.zeros(eq.nu) if u is None else nm.input_vector(u)
    fd = nm._fn("delta")
    zero = np.zeros(eq.nq)
    x, w = _gauss(nodes)

    def work(qa: np.ndarray, qb: np.ndarray, tt: float) -> float:
        dlt = qb - qa
        m = max(1, int(np.ceil(np.max(np.abs(dlt)) / max_segment))) if dlt.size else 1
        acc = 0.0
        for j in range(m):
            for xi, wi in zip(x, w):
                s = (j + xi) / m
                acc += wi / m * float(fd(tt, qa + s * dlt, zero, uu, nm.p)[0] @ dlt)
        return acc

    V = np.empty(Q.shape[0])
    ref = Q[0] if reference is None else np.asarray(reference, dtype=float)
    V[0] = -work(ref, Q[0], float(ts[0])) if reference is not None else 0.0
    for k in range(1, Q.shape[0]):
        V[k] = V[k - 1] - work(Q[k - 1], Q[k], float(ts[k - 1]))
    return V


def is_conservative(model: Any, q: Any, t: float = 0.0, u: Any = None, tol: float = 1e-8, p: Any = None) -> bool:
    """Whether the static generalized forces have a symmetric Jacobian at ``q`` (a necessary condition)."""
    nm = as_numeric(model, p)
    eq = nm.eq
    uu = np.zeros(eq.nu) if u is None else nm.input_vector(u)
    K = nm.evaluate("delta_q", q=np.asarray(q, dtype=float), t=t, u=uu)[0]
    scale = float(np.max(np.abs(K))) if K.size else 0.0
    return scale == 0.0 or float(np.max(np.abs(K - K.T))) <= tol * scale


def energy(model: Any, t: Any, q: Any, dq: Any, *, reference: Any = None, u: Any = None, p: Any = None) -> EnergyResult:
    """Kinetic, potential and total energy of samples ``(t, q, dq)``; see the module docstring.

    Example:
        >>> import numpy as np, symbody as sb
        >>> from symbody.numeric import simulate
        >>> s = sb.System("osc"); x = s.coordinate("x", 0.1); k = s.parameter("k", 4.0)
        >>> _ = s.particle("m", s.point("P", s.origin, (x, 0, 0)), 1.0)
        >>> _ = s.generalized_force("spring", x, -k * x)
        >>> eq = s.derive()
        >>> res = simulate(eq, 5.0, dt=0.1, rtol=1e-10, atol=1e-12)
        >>> e = energy(eq, res.t, res.q, res.dq)
        >>> bool(e.relative_drift < 1e-8), round(float(e.total[0] + 0.5 * 4.0 * 0.1**2), 12)
        (True, 0.02)
    """
    nm = as_numeric(model, p)
    T = np.atleast_1d(np.asarray(t, dtype=float))
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    DQ = np.atleast_2d(np.asarray(dq, dtype=float))
    kin = kinetic_energy(nm, Q, DQ, T)
    cons = is_conservative(nm, Q[0], float(T[0]), u)
    if not cons:
        warnings.warn(
            f"the static generalized forces of {nm.eq.name!r} are not conservative (non-symmetric stiffness): "
            "the potential energy depends on the path",
            RuntimeWarning,
            stacklevel=2,
        )
    pot = potential_energy(nm, Q, T, reference=reference, u=u)
    ref = Q[0] if reference is None else np.asarray(reference, dtype=float)
    return EnergyResult(T, kin, pot, kin + pot, ref, cons)


__all__ = ["EnergyResult", "energy", "kinetic_energy", "potential_energy", "is_conservative"]
