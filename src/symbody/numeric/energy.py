"""Kinetic, potential and total energy along a motion.

The kinetic energy is the model's ``T(q, dq, t)`` (``eq.kinetic_energy``):
``1/2 m v.v + ...`` with the full velocity of every solid, so the explicit
time dependence of rheonomic models (a support moved by a law of time) counts;
for a scleronomic model it equals ``0.5 dq^T M dq``.

The potential energy has two parts:

- exact: the potential ``V(q, t)`` that gravity (``-m g . r_G``), springs
  (``1/2 k (l - l0)^2``), torsion springs (``1/2 k (a - a0)^2``) and forces of
  constant direction and magnitude (``-F . r_P``) declare (``eq.potential_energy``),
  evaluated at each sample;
- integrated: loads without a potential (``eq.nonpotential_loads``: follower
  forces, torques, generalized forces, actuators) contribute the work of their *static*
  generalized forces ``Q_np(q, dq = 0, u, t)`` (dampers vanish there; inputs
  are external work and are set to zero unless ``u`` is given), ``-int Q_np . dq``
  along the straight segments joining consecutive samples, by composite
  Gauss-Legendre quadrature (error far below 1e-12 for smooth fields).

The integrated part is a true potential only when ``Q_np`` is conservative, which
means ``dQ_np/dq`` is symmetric.  The symmetry is checked at the first sample;
``EnergyResult.conservative`` reports the result, and a ``RuntimeWarning`` is
issued when the check fails (follower loads, for example).
``EnergyResult.exact`` tells whether the potential is exact (no integrated part).

Example (a mass on a spring: ``V = 0.5 k x^2``):
    >>> import numpy as np, symbody as sb
    >>> s = sb.System("osc"); x = s.coordinate("x", 0.1); k = s.parameter("k", 4.0)
    >>> P = s.point("P", s.origin, (x, 0, 0))
    >>> _ = s.particle("m", P, 1.0)
    >>> _ = s.spring_damper("spring", s.point("A", s.origin, (-1, 0, 0)), P, k=k, rest_length=1.0)
    >>> nm = NumericModel(s.derive())
    >>> V = potential_energy(nm, np.array([[0.0], [0.5], [-0.5]]))
    >>> np.round(V, 12).tolist()
    [0.0, 0.5, 0.5]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..codegen.evaluators import evaluator as compiled_evaluator
from ..model.deprecation import formerly_positional
from ..symbolic.calculus import subs_many
from ..symbolic.expr import ZERO, Expr
from .blocks import model_blocks
from .model import NumericModel, as_numeric

if TYPE_CHECKING:
    from ..equations import Equations

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
        kinetic: kinetic energy ``T(q, dq, t)``.
        potential: potential energy, zero at ``reference``: ``potential_exact + potential_work``.
        total: ``kinetic + potential``.
        reference: coordinates where the potential is zero (default: the first sample).
        conservative: whether the integrated static forces passed the symmetry check.
        potential_exact: the exact part (gravity, springs), zero at ``reference``.
        potential_work: minus the work of the static forces of ``nonpotential_loads``,
            integrated along the segments joining the samples (zero when there are none).
        nonpotential_loads: names of the loads with forces beyond a potential (dampers,
            actuators, forces and torques); their static work, if any, is integrated.
        exact: ``True`` when the potential is exact: no load has static forces without a
            potential (dampers, which vanish at rest, may be present).
    """

    t: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    total: np.ndarray
    reference: np.ndarray
    conservative: bool
    potential_exact: np.ndarray | None = None
    potential_work: np.ndarray | None = None
    nonpotential_loads: list[str] = field(default_factory=list)
    exact: bool = False

    @property
    def drift(self) -> float:
        """``max |E(t) - E(t0)|``."""
        return float(np.max(np.abs(self.total - self.total[0])))

    @property
    def relative_drift(self) -> float:
        """:attr:`drift` over the energy exchanged, ``max(max |T|, max |V - V(t0)|)``."""
        scale = max(float(np.max(np.abs(self.kinetic))), float(np.max(np.abs(self.potential - self.potential[0]))))
        return self.drift / scale if scale > 0 else self.drift


# ---------------------------------------------------------------------------
# compiled energy blocks
# ---------------------------------------------------------------------------


def _static_nonpotential_forces(eq: Equations) -> list[Expr]:
    """``Q_np(q, dq = 0, u, t)``: the static forces of the loads without a potential (cached)."""
    blocks = model_blocks(eq).blocks
    b = blocks.get("energy static Q_np")
    if b is None:
        Q = subs_many(list(eq.nonpotential_forces), {v: ZERO for v in eq.dq})
        b = blocks["energy static Q_np"] = (Q, (eq.nq,))
    return b[0]


def _has_work(eq: Equations) -> bool:
    """True if some load has static forces without a potential (``Q_np`` at rest not identically zero)."""
    return any(not e.is_zero for e in _static_nonpotential_forces(eq))


def _energy_function(nm: NumericModel, name: str) -> Callable:
    """Compiled ``T`` (kinetic energy), ``V`` (exact potential), ``Q_np`` or ``Q_np_q`` of a model (cached)."""
    eq = nm.eq
    cache = model_blocks(eq).functions
    key = ("energy", name)
    f = cache.get(key)
    if f is None:
        n = eq.nq
        block: tuple[list[Expr], tuple[int, ...]]
        if name == "T":
            block = ([eq.kinetic_energy], (1,))
        elif name == "V":
            block = ([eq.potential_energy], (1,))
        elif name == "Q_np":
            block = (_static_nonpotential_forces(eq), (n,))
        else:
            block = ([e for row in eq.jacobian(_static_nonpotential_forces(eq), eq.q) for e in row], (n, n))
        f = cache[key] = compiled_evaluator(eq, "energy_" + name, extra={"energy_" + name: block})
    return f


def _input_rows(nm: NumericModel, u: Any, n: int, default: np.ndarray) -> np.ndarray:
    """Inputs of ``n`` samples: ``default`` for ``None``, one vector (dict or array) for all, or one row each
    (the motion inputs of a model on a moving base change from sample to sample)."""
    if u is None:
        return np.broadcast_to(default, (n, nm.eq.nu))
    arr = None if isinstance(u, dict) else np.asarray(u, dtype=float)
    if arr is not None and arr.ndim == 2:
        if arr.shape != (n, nm.eq.nu):
            raise ValueError(f"expected inputs of shape ({n}, {nm.eq.nu}), got {arr.shape}")
        return arr
    return np.broadcast_to(nm.input_vector(u), (n, nm.eq.nu))


@formerly_positional("t", "p", "u", where="symbody.numeric")
def kinetic_energy(
    model: Equations | NumericModel, q: Any, dq: Any, *, t: Any = 0.0, p: Any = None, u: Any = None
) -> np.ndarray:
    """Kinetic energy ``T(q, dq, t)`` of each sample (rows of ``q`` and ``dq``; see the module docstring);
    ``u``: the inputs (one vector, or one row per sample), whose motion inputs move the bases.

    Example (a bob on a support moved by ``x_s = 1.5 t``: ``T = 1/2 m 1.5^2`` at rest):
        >>> import symbody as sb
        >>> s = sb.System("carried"); th = s.coordinate("th", 0.0)
        >>> S = s.point("S", s.origin, (1.5 * s.t, 0, 0))
        >>> _ = s.particle("bob", s.point("P", S, (sb.sin(th), -sb.cos(th), 0)), 2.0)
        >>> kinetic_energy(s.derive(), [[0.0]], [[0.0]]).tolist()
        [2.25]
    """
    nm = as_numeric(model, p)
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    DQ = np.atleast_2d(np.asarray(dq, dtype=float))
    ts = np.broadcast_to(np.asarray(t, dtype=float), (Q.shape[0],))
    fT = _energy_function(nm, "T")
    U = _input_rows(nm, u, Q.shape[0], nm.eq.u0)
    return np.array([float(fT(float(ts[k]), Q[k], DQ[k], U[k], nm.p)[0][0]) for k in range(Q.shape[0])])


@formerly_positional("t", "p", "u", where="symbody.numeric")
def exact_potential_energy(
    model: Equations | NumericModel, q: Any, *, t: Any = 0.0, p: Any = None, u: Any = None
) -> np.ndarray:
    """The exact potential ``V(q, t)`` of gravity and springs at each sample (absolute, not shifted);
    ``u``: the inputs (one vector, or one row per sample).

    Example (a 2 kg bob on a 1 m rod: ``V = -m g l cos(th)``):
        >>> import symbody as sb
        >>> s = sb.System("pendulum"); th = s.coordinate("th")
        >>> B = s.base("B", s.ground_base, sb.Rz(th))
        >>> _ = s.particle("bob", s.point("P", s.origin, sb.Vector(B, 0, -1, 0)), 2.0)
        >>> s.gravity((0, -9.81, 0))
        >>> exact_potential_energy(s.derive(), [[0.0], [3.141592653589793]]).round(12).tolist()
        [-19.62, 19.62]
    """
    nm = as_numeric(model, p)
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    ts = np.broadcast_to(np.asarray(t, dtype=float), (Q.shape[0],))
    fV = _energy_function(nm, "V")
    zero = np.zeros(nm.eq.nq)
    U = _input_rows(nm, u, Q.shape[0], nm.eq.u0)
    return np.array([float(fV(float(ts[k]), Q[k], zero, U[k], nm.p)[0][0]) for k in range(Q.shape[0])])


def _work_potential(
    nm: NumericModel,
    Q: np.ndarray,
    ts: np.ndarray,
    ref: np.ndarray | None,
    uu: np.ndarray,
    nodes: int,
    max_segment: float,
) -> np.ndarray:
    """``-int Q_np . dq`` along the segments joining the samples (from ``ref`` when given)."""
    eq = nm.eq
    V = np.zeros(Q.shape[0])
    if not _has_work(eq):
        return V
    fQ = _energy_function(nm, "Q_np")
    zero = np.zeros(eq.nq)
    x, w = _gauss(nodes)

    def work(qa: np.ndarray, qb: np.ndarray, tt: float, uk: np.ndarray) -> float:
        dlt = qb - qa
        m = max(1, int(np.ceil(np.max(np.abs(dlt)) / max_segment))) if dlt.size else 1
        acc = 0.0
        for j in range(m):
            for xi, wi in zip(x, w):
                s = (j + xi) / m
                acc += wi / m * float(fQ(tt, qa + s * dlt, zero, uk, nm.p)[0] @ dlt)
        return acc

    V[0] = -work(ref, Q[0], float(ts[0]), uu[0]) if ref is not None else 0.0
    for k in range(1, Q.shape[0]):
        V[k] = V[k - 1] - work(Q[k - 1], Q[k], float(ts[k - 1]), uu[k - 1])
    return V


def _potential_parts(
    nm: NumericModel, q: Any, t: Any, reference: Any, u: Any, nodes: int, max_segment: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact part (zero at the reference), integrated part, and the reference coordinates."""
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    ts = np.broadcast_to(np.asarray(t, dtype=float), (Q.shape[0],))
    uu = _input_rows(nm, u, Q.shape[0], np.zeros(nm.eq.nu))
    ref = None if reference is None else np.asarray(reference, dtype=float)
    V_exact = exact_potential_energy(nm, Q, t=ts, u=uu)
    V_exact = V_exact - (V_exact[0] if ref is None else exact_potential_energy(nm, ref, t=float(ts[0]), u=uu[0])[0])
    V_work = _work_potential(nm, Q, ts, ref, uu, nodes, max_segment)
    return V_exact, V_work, Q[0] if ref is None else ref


@formerly_positional("t", where="symbody.numeric")
def potential_energy(
    model: Equations | NumericModel,
    q: Any,
    *,
    t: Any = 0.0,
    reference: Any = None,
    u: Any = None,
    nodes: int = 8,
    max_segment: float = 0.25,
    p: Any = None,
) -> np.ndarray:
    """Potential energy at each sample: exact part plus integrated work (see the module docstring).

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        q: samples (``nt x nq``), joined in order by straight segments for the integrated part.
        t: time(s) at which the potential and the forces are evaluated.
        reference: coordinates where ``V = 0`` (default: the first sample).
        u: input values held during the integration (default: zeros, inputs excluded), or one row
            per sample.
        nodes: Gauss-Legendre nodes per sub-segment.
        max_segment: longest sub-segment (max-norm in coordinate units).
    """
    nm = as_numeric(model, p)
    V_exact, V_work, _ = _potential_parts(nm, q, t, reference, u, nodes, max_segment)
    return V_exact + V_work


@formerly_positional("t", "u", "tol", "p", where="symbody.numeric")
def is_conservative(
    model: Equations | NumericModel, q: Any, *, t: float = 0.0, u: Any = None, tol: float = 1e-8, p: Any = None
) -> bool:
    """Whether the static generalized forces have a symmetric Jacobian at ``q`` (a necessary condition)."""
    nm = as_numeric(model, p)
    eq = nm.eq
    uu = np.zeros(eq.nu) if u is None else nm.input_vector(u)
    K = nm.evaluate("delta_q", q=np.asarray(q, dtype=float), t=t, u=uu)[0]
    return _symmetric(K, tol)


def _symmetric(K: np.ndarray, tol: float) -> bool:
    scale = float(np.max(np.abs(K))) if K.size else 0.0
    return scale == 0.0 or float(np.max(np.abs(K - K.T))) <= tol * scale


def _work_is_conservative(nm: NumericModel, q: np.ndarray, t: float, u: Any, tol: float = 1e-8) -> bool:
    """Symmetry of ``dQ_np/dq`` at ``q`` (``True`` when no load's static work is integrated)."""
    eq = nm.eq
    if not _has_work(eq):
        return True
    uu = _input_rows(nm, u, 1, np.zeros(eq.nu))[0]
    K = _energy_function(nm, "Q_np_q")(float(t), q, np.zeros(eq.nq), uu, nm.p)[0]
    return _symmetric(K, tol)


def energy(
    model: Equations | NumericModel, t: Any, q: Any, dq: Any, *, reference: Any = None, u: Any = None, p: Any = None
) -> EnergyResult:
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
        >>> e.exact, e.nonpotential_loads     # a generalized force declares no potential: its work is integrated
        (False, ['spring'])
    """
    nm = as_numeric(model, p)
    T = np.atleast_1d(np.asarray(t, dtype=float))
    Q = np.atleast_2d(np.asarray(q, dtype=float))
    DQ = np.atleast_2d(np.asarray(dq, dtype=float))
    U = None if u is None else _input_rows(nm, u, Q.shape[0], nm.eq.u0)
    kin = kinetic_energy(nm, Q, DQ, t=T, u=U)
    cons = _work_is_conservative(nm, Q[0], float(T[0]), None if U is None else U[0])
    if not cons:
        warnings.warn(
            f"the static forces of {', '.join(repr(n) for n in nm.eq.nonpotential_loads)} in {nm.eq.name!r} are "
            "not conservative (non-symmetric stiffness): the potential energy depends on the path",
            RuntimeWarning,
            stacklevel=2,
        )
    V_exact, V_work, ref = _potential_parts(nm, Q, T, reference, U, 8, 0.25)
    pot = V_exact + V_work
    return EnergyResult(
        T,
        kin,
        pot,
        kin + pot,
        ref,
        cons,
        potential_exact=V_exact,
        potential_work=V_work,
        nonpotential_loads=list(nm.eq.nonpotential_loads),
        exact=not _has_work(nm.eq),
    )


__all__ = [
    "EnergyResult",
    "energy",
    "kinetic_energy",
    "potential_energy",
    "exact_potential_energy",
    "is_conservative",
]
