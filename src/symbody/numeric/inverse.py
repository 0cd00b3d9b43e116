"""Inverse dynamics and joint reactions.

Inverse dynamics (Problemas dinámicos, "problema dinámico inverso"): given a motion
``q(t), dq(t), ddq(t)`` (for example from :func:`symbody.numeric.kinematic_simulation`),
find the actuator efforts ``u`` and the multipliers ``lam`` that produce it::

    M(q) ddq + D(q)^T lam - delta(q, dq, u, t) = 0

solved by Newton's method in ``(u_actuators, lam)`` with the symbolic
Jacobian ``d delta / d u`` (one step when the inputs enter linearly).  Motions
prescribed by rheonomic constraints (``s.prescribe``, by a law of time or a motion
input) need no actuator: their driving effort is the multiplier of the prescription row.
Motion inputs are motions, not efforts: they are never actuators, and their values
(like those of the first-order states) come with the motion, one row per time.

Reactions: the multipliers are the constraint efforts (the constraint
generalized force is ``-D^T lam``).  Joints created with the helpers
(``s.revolute_joint``, ``s.spherical_joint``, ...) know their own force and
moment components: :func:`joint_reactions` maps the multipliers onto them
(``component = sign * lambda_row``, as recorded in ``eq.joints[k].reactions``).

Example (a crank driven by a torque, moving at constant speed):
    >>> import numpy as np, symbody as sb
    >>> s = sb.System("crank"); a = s.coordinate("a"); T = s.input("T")
    >>> _ = s.particle("m", s.point("P", s.origin, (sb.cos(a), sb.sin(a), 0)), 2.0)
    >>> s.gravity((0, -9.81, 0)); _ = s.generalized_force("motor", a, T)
    >>> eq = s.derive()
    >>> res = inverse_dynamics(eq, [0.0], [[np.pi / 2]], [[1.0]], [[0.0]])
    >>> res.actuators, np.round(res["T"], 12).tolist()      # holds the weight: T = m g cos(a) = 0 at the top
    (['T'], [0.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NumericalError
from ..symbolic.evaluate import evaluate
from ..symbolic.expr import Expr
from .blocks import evaluator
from .inputs import Sampled
from .linalg import independent_rows
from .model import NumericModel, as_numeric
from .results import TimeHistory
from .scaling import mass_weights, scaled_lstsq, scaled_rank

if TYPE_CHECKING:
    from ..equations import Equations

# ---------------------------------------------------------------------------
# joint reactions
# ---------------------------------------------------------------------------


@dataclass
class JointReaction:
    """Reaction components of one joint.

    Attributes:
        name: joint name.
        kind: joint kind (``"revolute"``, ``"spherical"``, ...).
        components: ``{component: values}`` (``"Fx"``, ``"My"``, ``"tension"``, ...), one value
            per time (or a scalar for a single state).
        bases: ``{component: base name}`` the components are expressed in (``None`` if scalar).
    """

    name: str
    kind: str
    components: dict[str, np.ndarray]
    bases: dict[str, str | None]

    def __getitem__(self, component: str) -> np.ndarray:
        try:
            return self.components[component]
        except KeyError:
            raise KeyError(
                f"joint {self.name!r} has no reaction component {component!r}; it has: {', '.join(self.components)}"
            ) from None


def joint_reactions(model: Equations | NumericModel, lam: Any, p: Any = None) -> dict[str, JointReaction]:
    """Reaction components of every helper-made joint from multipliers ``lam`` (``nc`` or ``nt x nc``).

    The factor of a component may be a number or an expression of parameters
    (evaluated with the parameter values of ``model``, or ``p``).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("bar"); x, y = s.coordinate("x", 1.0), s.coordinate("y")
        >>> _ = s.particle("m", s.point("P", s.origin, (x, y, 0)), 2.0)
        >>> s.gravity((0, -9.81, 0))
        >>> _ = s.spherical_joint("pin", s.point("A", s.origin, (1.0, 0, 0)), "P")
        >>> eq = s.derive()
        >>> ddq, lam = NumericModel(eq).accelerations([1.0, 0.0], [0.0, 0.0])
        >>> r = joint_reactions(eq, lam)["pin"]
        >>> sorted(r.components), round(float(r["Fy"]), 10)      # the pin holds the weight
        (['Fx', 'Fy'], 19.62)
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    L = np.asarray(lam, dtype=float)
    rows = {r.name: i for i, r in enumerate(eq.constraint_rows)}
    values = None
    out: dict[str, JointReaction] = {}
    for j in eq.joints:
        comps: dict[str, np.ndarray] = {}
        bases: dict[str, str | None] = {}
        for comp, (row, sign, base) in j.reactions.items():
            if row not in rows:
                continue
            if isinstance(sign, Expr):
                if values is None:
                    values = {x.symbol: v for x, v in zip(eq.parameters, nm.p)}
                sign = evaluate(sign, values)
            comps[comp] = float(sign) * L[..., rows[row]]
            bases[comp] = base
        out[j.name] = JointReaction(j.name, j.kind, comps, bases)
    return out


# ---------------------------------------------------------------------------
# inverse dynamics
# ---------------------------------------------------------------------------


@dataclass(repr=False)
class InverseDynamicsResult(TimeHistory):
    """Result of :func:`inverse_dynamics`: the motion, the inputs (actuator efforts filled in),
    the multipliers and the outputs (see :class:`~symbody.numeric.results.TimeHistory`).

    Attributes:
        actuators: names of the inputs solved for.
        residual: ``max |M ddq + D^T lam - delta|`` at each time.
    """

    actuators: list[str] = field(default_factory=list)
    residual: np.ndarray | None = None
    p: np.ndarray | None = None

    @property
    def reactions(self) -> dict[str, JointReaction]:
        """Joint reaction components over time (see :func:`joint_reactions`)."""
        return joint_reactions(self.eq, self.lam, self.p)

    def input_signals(self, kind: str = "linear") -> dict[str, Sampled]:
        """The actuator efforts as sampled signals, ready for ``simulate(..., inputs=...)``."""
        return {a: Sampled(self.t, self[a], kind) for a in self.actuators}


def _motion_arrays(t: Any, q: Any, dq: Any, ddq: Any, n: int):
    if isinstance(t, TimeHistory):
        h = t
        if h.ddq is None:
            raise ValueError("the motion has no accelerations")
        return h.t, h.q, h.dq, h.ddq
    T = np.atleast_1d(np.asarray(t, dtype=float))
    arrs = []
    for nm_, a in (("q", q), ("dq", dq), ("ddq", ddq)):
        if a is None:
            raise ValueError(f"inverse_dynamics needs {nm_} (or a motion result as first argument)")
        A = np.asarray(a, dtype=float)
        A = A.reshape(1, -1) if A.ndim == 1 else A
        if A.shape != (T.size, n):
            raise ValueError(f"{nm_} must have shape ({T.size}, {n}), got {A.shape}")
        arrs.append(A)
    return T, arrs[0], arrs[1], arrs[2]


def inverse_dynamics(
    model: Equations | NumericModel,
    t: Any,
    q: Any = None,
    dq: Any = None,
    ddq: Any = None,
    *,
    actuators: Sequence[str] | None = None,
    u: Any = None,
    x: Any = None,
    check: float = 1e-8,
    max_iter: int = 20,
    p: Any = None,
) -> InverseDynamicsResult:
    """Actuator efforts and multipliers that produce a prescribed motion.

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        t: times (or a single time), or a motion result (kinematic or simulation) holding
            ``t, q, dq, ddq`` (then ``q, dq, ddq`` are not given).
        q, dq, ddq: the motion (``nt x nq``).
        actuators: names of the inputs to solve for (default: every input that is not part of a motion input).
        u: values of the other inputs (dict by name or array, or one row per time; default: those of the
            motion result given as ``t``, else the model's).
        x: values of the first-order states (an array, or one row per time; default: those of the motion
            result, else their start values).
        check: relative tolerance on the residual of the dynamics and on the
            consistency of the motion with the constraints.

    Raises:
        NumericalError: the motion violates the constraints; the actuators cannot
            produce it (too few, or acting along constrained directions only); or the
            actuator efforts cannot be told apart from the constraint reactions.
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    n, nc = eq.nq, eq.nc
    T, Q, DQ, DDQ = _motion_arrays(t, q, dq, ddq, n)
    names = [i.name for i in eq.inputs]
    act = [i.name for i in eq.inputs if not i.motion] if actuators is None else list(actuators)
    for a in act:
        if a not in names:
            raise KeyError(f"{a!r} is not an input of {eq.name!r}; inputs are: {', '.join(names) or 'none'}")
        if eq.inputs[names.index(a)].motion:
            raise ValueError(
                f"{a!r} belongs to motion input {eq.inputs[names.index(a)].signal!r}: a motion, not an effort"
            )
    ia = [names.index(a) for a in act]
    f = evaluator(eq, "M", "delta", "D", "beta", "gamma", "delta_u") if nc else evaluator(eq, "M", "delta", "delta_u")
    nt = T.size
    U = _rows(nm, u, t, "u", nt)
    X = _rows(nm, x, t, "x", nt)
    LAM = np.zeros((nt, nc))
    RES = np.zeros(nt)
    # the rank test and the solve see every unknown in a unit of its own (numeric/scaling.py)
    reference = _column_reference(f, T, Q, DQ, U, X, nm.p, ia, nc)
    for k in range(nt):
        tk, qk, dqk, ddqk = float(T[k]), Q[k], DQ[k], DDQ[k]
        if nc:
            _check_motion(nm, tk, qk, dqk, ddqk, check, U[k])
        uk = U[k].copy()
        lam_k = np.zeros(nc)
        for _ in range(max_iter):
            M, d, D, du = _dynamics(f, tk, qk, dqk, uk, X[k], nm.p, nc, n)
            w = mass_weights(M)
            rows = independent_rows(D * w[None, :] / reference[len(ia) :, None]) if nc else []
            r = M @ ddqk + D.T @ lam_k - d
            J = np.hstack([-du[:, ia], D[rows].T])
            columns = np.concatenate([reference[: len(ia)], reference[len(ia) :][rows]])
            if scaled_rank(J, w, columns) < J.shape[1]:
                raise NumericalError(
                    f"inverse dynamics of {eq.name!r} at t = {tk:g}: the efforts of actuators "
                    f"{', '.join(act) or '(none)'} cannot be told apart from the constraint reactions "
                    "(an actuator acts only along constrained directions, or two actuators act alike)"
                )
            scale = max(1.0, float(np.max(np.abs(M @ ddqk))), float(np.max(np.abs(d))))
            if np.max(np.abs(r)) <= 1e-13 * scale:
                break
            x = scaled_lstsq(J, -r, w, columns)
            uk[ia] += x[: len(ia)]
            lam_k[rows] += x[len(ia) :]
        out = f(tk, qk, dqk, uk, nm.p, None, None, X[k])
        M, d = out[0], out[1]
        D = out[2] if nc else np.zeros((0, n))
        res = M @ ddqk + D.T @ lam_k - d
        err = float(np.max(np.abs(res)))
        scale = max(1.0, float(np.max(np.abs(M @ ddqk))), float(np.max(np.abs(d))))
        if err > check * scale:
            i = int(np.argmax(np.abs(res)))
            raise NumericalError(
                f"inverse dynamics of {eq.name!r} at t = {tk:g}: actuators {', '.join(act) or '(none)'} cannot "
                f"produce the prescribed motion (equation of {eq.coordinates[i].name!r} off by {err:.3g}); "
                "drive every degree of freedom"
            )
        U[k], LAM[k], RES[k] = uk, lam_k, err
    Y = np.zeros((nt, len(eq.outputs)))
    if eq.outputs:
        for k in range(nt):
            Y[k] = nm.outputs(Q[k], DQ[k], t=T[k], u=U[k], ddq=DDQ[k], lam=LAM[k], x=X[k])
    X_out = X if eq.nx else None
    return InverseDynamicsResult(eq, T, Q, DQ, DDQ, LAM, U, Y, X_out, None, actuators=act, residual=RES, p=nm.p.copy())


def _rows(nm: NumericModel, given: Any, motion: Any, what: str, nt: int) -> np.ndarray:
    """Inputs (``what="u"``) or first-order states (``"x"``) at each time: given (one vector or one row per
    time), else those of the motion result, else the model's."""
    eq = nm.eq
    size = eq.nu if what == "u" else eq.nx
    if given is None:
        recorded = getattr(motion, what, None) if isinstance(motion, TimeHistory) else None
        if recorded is not None and np.shape(recorded) == (nt, size):
            return np.array(recorded, dtype=float)
        return np.tile(eq.u0 if what == "u" else eq.x0, (nt, 1))
    arr = None if isinstance(given, dict) else np.asarray(given, dtype=float)
    if arr is not None and arr.ndim == 2:
        if arr.shape != (nt, size):
            raise ValueError(f"{what} must have shape ({nt}, {size}), got {arr.shape}")
        return arr.copy()
    if what == "u":
        return np.tile(nm.input_vector(given), (nt, 1))
    vec = np.asarray(given, dtype=float).reshape(-1)
    if vec.size != size:
        raise ValueError(f"expected {size} first-order states, got {vec.size}")
    return np.tile(vec, (nt, 1))


def _dynamics(f, t: float, q, dq, u, x, p, nc: int, n: int):
    """``M, delta, D, d delta / du`` at one state (``D`` empty without constraints)."""
    out = f(t, q, dq, u, p, None, None, x)
    if nc:
        M, d, D, _, _, du = out
        return M, d, D, du
    M, d, du = out
    return M, d, np.zeros((0, n)), du


def _column_reference(f, T, Q, DQ, U, X, p, ia: list[int], nc: int) -> np.ndarray:
    """Largest norm over the motion of each column of ``[d delta / du_a, D^T]``, rows weighted by ``1 / sqrt(M_ii)``.

    The unit in which the rank test measures each actuator effort and each multiplier: an
    actuator whose column is small against its own largest one (at a dead point) stays small.
    """
    n = Q.shape[1]
    ref = np.zeros(len(ia) + nc)
    for k in range(T.size):
        M, _, D, du = _dynamics(f, float(T[k]), Q[k], DQ[k], U[k], X[k], p, nc, n)
        ref = np.maximum(ref, np.linalg.norm(mass_weights(M)[:, None] * np.hstack([du[:, ia], D.T]), axis=0))
    return np.where(ref > 0, ref, 1.0)


def _check_motion(nm: NumericModel, t: float, q, dq, ddq, tol: float, u: np.ndarray) -> None:
    eq = nm.eq
    names = [r.name for r in eq.constraint_rows]
    checks = []
    if eq.nh:
        checks.append(("position", nm.Phi(q, t=t, u=u), 1.0))
    D = nm.D(q, t=t, u=u)
    checks.append(("velocity", D @ dq - nm.beta(q, t=t, u=u), max(1.0, float(np.max(np.abs(dq))))))
    g = nm.gamma(q, dq, t=t, u=u)
    checks.append(("acceleration", D @ ddq - g, max(1.0, float(np.max(np.abs(ddq))), float(np.max(np.abs(g))))))
    for what, r, scale in checks:
        if r.size and np.max(np.abs(r)) > max(tol, 1e-6) * scale:
            i = int(np.argmax(np.abs(r)))
            raise NumericalError(
                f"inverse dynamics of {eq.name!r} at t = {t:g}: the prescribed motion violates the {what} "
                f"constraint {names[i]!r} by {abs(r[i]):.3g}"
            )


__all__ = ["inverse_dynamics", "InverseDynamicsResult", "joint_reactions", "JointReaction"]
