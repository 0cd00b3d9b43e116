"""Forward dynamics of constrained multibody systems: :func:`simulate`.

The equations are ``M ddq + D^T lam = delta``, ``Phi(q, t) = 0`` and
``D dq = beta`` (holonomic and non-holonomic rows).  Three formulations:

``"baumgarte"``
    Index-1: the constraints differentiated to acceleration level and solved
    with the dynamics, ``[M D^T; D 0][ddq; lam] = [delta; gamma - 2 xi w dPhi - w^2 Phi]``
    (Problemas dinámicos, eq. 91; ``dPhi = D dq - beta``).  The state is ``(q, dq)``;
    Baumgarte's terms keep the drift bounded.  ``baumgarte=None`` drops them
    (plain index-1, the drift grows).
``"projection"``
    The same, and after every accepted step the state is projected back onto
    the constraints: positions by minimum-norm Newton corrections until
    ``max |Phi| <= projection_tol``, then velocities onto ``D dq = beta``
    (3D_MEC_MATLAB's "integrador ... con corrección de posición y velocidad").
``"independent"``
    Velocity transformation (the dynamics chapter's matrix R): the state holds only the
    independent coordinates ``z`` and velocities ``dz``; at every evaluation
    the position problem gives the dependent coordinates, ``dq = R dz + ...``,
    and ``R^T M R ddz = R^T (delta - M (dR dz))``.  The constraints hold to the
    position tolerance.  The independent coordinates are chosen by QR with
    column pivoting and changed automatically when they become ill-conditioned
    (unless given explicitly).  Non-holonomic systems keep the position
    coordinates the holonomic constraints leave free and only the independent
    velocities.

Integrators: ``"RK45"``, ``"DOP853"``, ``"Radau"``, ``"BDF"`` (and ``"RK23"``,
``"LSODA"`` without projection) from scipy, stepped one by one, and
``"RK4"`` with a fixed ``step``.  Inputs: see :mod:`symbody.numeric.inputs`.

Example (a pendulum written in Cartesian coordinates with a distance constraint):
    >>> import numpy as np, symbody as sb
    >>> s = sb.System("pend")
    >>> x, y = s.coordinate("x", 1.0), s.coordinate("y", 0.0)
    >>> _ = s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
    >>> s.gravity((0, -9.81, 0))
    >>> _ = s.constraint("rod", x**2 + y**2 - 1)
    >>> res = simulate(s.derive(), 2.0, formulation="projection", dt=0.5)
    >>> res.t.tolist()
    [0.0, 0.5, 1.0, 1.5, 2.0]
    >>> bool(res.position_violation.max() < 1e-10)
    True
    >>> bool(abs(res.energy.total - res.energy.total[0]).max() < 1e-6)
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NumericalError
from .dependent import DependentCoordinates
from .energy import EnergyResult, energy
from .independent import IndependentCoordinates
from .inputs import InputFunction, input_function
from .integrators import METHODS, integrate
from .model import NumericModel, as_numeric
from .results import TimeHistory

if TYPE_CHECKING:
    from ..equations import Equations

FORMULATIONS = ("baumgarte", "projection", "independent")


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------


@dataclass(repr=False)
class SimulationResult(TimeHistory):
    """Result of :func:`simulate` (see :class:`~symbody.numeric.results.TimeHistory` for the arrays).

    Attributes:
        formulation: ``"baumgarte"``, ``"projection"`` or ``"independent"``.
        method: integration method.
        position_violation: ``max |Phi|`` at each output time.
        velocity_violation: ``max |D dq - beta|`` at each output time.
        independent: for the ``"independent"`` formulation, ``(time, names)`` of each
            choice of independent coordinates.
        nfev: number of right-hand-side evaluations.
        nsteps: number of accepted steps.
        corrections: number of projections applied after steps.
        p: parameter values used.
    """

    formulation: str = ""
    method: str = ""
    position_violation: np.ndarray | None = None
    velocity_violation: np.ndarray | None = None
    independent: list = field(default_factory=list)
    nfev: int = 0
    nsteps: int = 0
    corrections: int = 0
    p: np.ndarray | None = None

    @property
    def reactions(self) -> dict:
        """Joint reaction components over time (see :func:`symbody.numeric.joint_reactions`)."""
        from .inverse import joint_reactions

        return joint_reactions(self.eq, self.lam, self.p)

    @cached_property
    def energy(self) -> EnergyResult:
        """Kinetic, potential and total energy (see :func:`symbody.numeric.energy`), computed on first use
        (with the inputs of each sample where the model has motion inputs)."""
        u = self.u if self.eq.motion_inputs and self.u is not None else None
        return energy(NumericModel(self.eq, self.p), self.t, self.q, self.dq, u=u)


# ---------------------------------------------------------------------------
# simulate
# ---------------------------------------------------------------------------


def _times(t_span: Any, t_eval: Any, dt: float | None) -> tuple[float, float, np.ndarray | None]:
    if np.isscalar(t_span):
        t0, tf = 0.0, float(t_span)  # type: ignore[arg-type]
    else:
        t0, tf = (float(x) for x in t_span)
    if t_eval is not None and dt is not None:
        raise ValueError("give t_eval or dt, not both")
    if dt is not None:
        if not dt > 0:
            raise ValueError("dt must be positive")
        eps = 1e-9 * dt
        te = t0 + dt * np.arange(int(np.floor((tf - t0) / dt + 1e-9)) + 1)
        te = te[te <= tf + eps]
        if tf - te[-1] > eps:
            te = np.append(te, tf)  # the final time is always an output
        te[-1] = tf
        return t0, tf, te
    return t0, tf, None if t_eval is None else np.asarray(t_eval, dtype=float)


def check_consistency(nm: NumericModel, t: float, q: np.ndarray, dq: np.ndarray, tol: float, u: Any = None) -> None:
    """Raise :class:`NumericalError` if ``(q, dq)`` violates the constraints by more than ``tol`` (``u``: the
    inputs, whose motion inputs move the constraints)."""
    eq = nm.eq
    names = [r.name for r in eq.constraint_rows]
    if eq.nh:
        Phi = nm.Phi(q, t=t, u=u)
        k = int(np.argmax(np.abs(Phi)))
        if abs(Phi[k]) > tol:
            raise NumericalError(
                f"the initial coordinates violate constraint {names[k]!r} by {abs(Phi[k]):.3g}: assemble them first "
                f"(symbody.numeric.assemble) or pass consistent q0"
            )
    if eq.nc:
        r = nm.D(q, t=t, u=u) @ dq - nm.beta(q, t=t, u=u)
        k = int(np.argmax(np.abs(r)))
        if abs(r[k]) > tol:
            raise NumericalError(
                f"the initial velocities violate constraint {names[k]!r} by {abs(r[k]):.3g}: solve them first "
                f"(symbody.numeric.solve_velocities) or pass consistent dq0"
            )


def simulate(
    model: Equations | NumericModel,
    t_span: float | tuple[float, float],
    *,
    t_eval: Sequence[float] | None = None,
    dt: float | None = None,
    q0: Any = None,
    dq0: Any = None,
    x0: Any = None,
    inputs: Any = None,
    formulation: str = "baumgarte",
    method: str = "DOP853",
    rtol: float = 1e-8,
    atol: float = 1e-10,
    max_step: float = np.inf,
    first_step: float | None = None,
    step: float | None = None,
    baumgarte: tuple[float, float] | None = (1.0, 10.0),
    projection_tol: float = 1e-10,
    position_tol: float = 1e-12,
    independent: Sequence[str] | None = None,
    switch_ratio: float = 1.2,
    consistency_tol: float = 1e-8,
    p: Any = None,
) -> SimulationResult:
    """Forward dynamics: integrate the equations of motion (see the module docstring).

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        t_span: final time, or ``(t0, tf)``.
        t_eval, dt: output times, or a uniform output interval; neither records every step.
        q0, dq0: initial state (default: the model's); must satisfy the constraints
            within ``consistency_tol`` (use :func:`symbody.numeric.assemble` and
            :func:`symbody.numeric.solve_velocities` to make them so).
        x0: start values of the first-order states (default: the model's).
        inputs: constants, functions of time or state, sampled data (:mod:`symbody.numeric.inputs`);
            a motion input takes a signal with its derivatives.
        formulation: ``"baumgarte"``, ``"projection"`` or ``"independent"``.
        method: ``"RK45"``, ``"DOP853"``, ``"Radau"``, ``"BDF"``, ``"RK23"``, ``"LSODA"`` or ``"RK4"``.
        rtol, atol, max_step, first_step: tolerances and step limits of the variable-step methods.
        step: fixed step of ``"RK4"``.
        baumgarte: ``(xi, omega)`` of Baumgarte's stabilization ``Phi'' + 2 xi omega Phi' + omega^2 Phi = 0``
            (Problemas dinámicos uses ``(1, 10)``); ``None`` disables it.
        projection_tol: ``max |Phi|`` after each projection (``"projection"``).
        position_tol: ``max |Phi|`` of the position problems (``"independent"``).  Both are
            absolute; when round-off of large coordinates keeps ``|Phi|`` just above them
            (at most 1000 times), the Newton iterations stop once their steps stall.
        independent: independent coordinates of the ``"independent"`` formulation
            (default: chosen, and re-chosen when they become ill-conditioned).
        switch_ratio: the choice changes when its condition number, now or at the state
            predicted one step ahead, exceeds this factor times the best one there (a low
            ratio keeps fixed-step integration accurate: each switch costs an adaptive
            method a restart, a poorly conditioned choice costs every method accuracy).
        p: parameter values (when ``model`` is an ``Equations``).

    Returns:
        :class:`SimulationResult` with ``t, q, dq, ddq, lam, u, y``, the first-order states ``x`` and
        their rates ``dx``, constraint violations and, on demand, ``energy``.

    Raises:
        NumericalError: inconsistent initial state, singular matrices, failed
            position problems or integrator failure.
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    if eq.contacts or eq.frictions or eq.switches:
        from .event_simulation import SIMULATE_OPTIONS, handles_events, simulate_events  # (imports this module)

        if handles_events(eq, formulation, method):  # impacts, contact and friction modes, switching loads
            options = {k: v for k, v in locals().items() if k in SIMULATE_OPTIONS}
            return simulate_events(nm, t_span, **options)
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of {', '.join(FORMULATIONS)}")
    if method not in METHODS:
        raise ValueError(f"unknown integration method {method!r}; choose one of {', '.join(METHODS)}")
    if method == "LSODA" and formulation != "baumgarte" and eq.nc:
        raise ValueError("LSODA cannot be combined with projection or independent coordinates; use BDF or Radau")
    t0, tf, te = _times(t_span, t_eval, dt)
    q, dq, x = start_state(eq, q0, dq0, x0)
    u = input_function(eq, inputs)
    check_consistency(nm, t0, q, dq, consistency_tol, u(t0, q, dq))
    if formulation == "independent" and eq.nc:
        form: Any = IndependentCoordinates(nm, u, independent, position_tol, switch_ratio)
        form.choose(t0, q)
    else:
        form = DependentCoordinates(nm, u, baumgarte, formulation == "projection", projection_tol)
        form.seed_row_reference(t0, q)
    y0 = form.state0(q, dq, x)
    tr = integrate(
        form,
        t0,
        tf,
        y0,
        method,
        t_eval=None if te is None else te.tolist(),
        rtol=rtol,
        atol=atol,
        max_step=max_step,
        first_step=first_step,
        step=step,
        inputs=u,
    )
    return _postprocess(nm, form, u, tr, formulation, method)


def start_state(eq: Equations, q0: Any, dq0: Any, x0: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The start coordinates, velocities and first-order states of a simulation (the model's by default)."""
    q = np.array(eq.q0 if q0 is None else q0, dtype=float).reshape(-1)
    dq = np.array(eq.dq0 if dq0 is None else dq0, dtype=float).reshape(-1)
    x = np.array(eq.x0 if x0 is None else x0, dtype=float).reshape(-1)
    if q.size != eq.nq or dq.size != eq.nq:
        raise ValueError(f"expected {eq.nq} coordinates and velocities, got {q.size} and {dq.size}")
    if x.size != eq.nx:
        raise ValueError(f"expected {eq.nx} first-order states, got {x.size}")
    if not (np.all(np.isfinite(q)) and np.all(np.isfinite(dq)) and np.all(np.isfinite(x))):
        raise ValueError("the start state must be finite")
    return q, dq, x


def _postprocess(nm: NumericModel, form: Any, u: InputFunction, tr, formulation: str, method: str) -> SimulationResult:
    eq = nm.eq
    T = np.array(tr.t)
    Q = np.array(tr.q).reshape(len(T), eq.nq)
    DQ = np.array(tr.dq).reshape(len(T), eq.nq)
    nt = len(T)
    X = np.array(tr.x).reshape(nt, eq.nx)
    DX = np.zeros_like(X)
    DDQ = np.zeros_like(Q)
    LAM = np.zeros((nt, eq.nc))
    U = np.zeros((nt, eq.nu))
    Y = np.zeros((nt, len(eq.outputs)))
    pv = np.zeros(nt)
    vv = np.zeros(nt)
    for k in range(nt):
        t, q, dq, x = T[k], Q[k], DQ[k], X[k]
        U[k] = u(t, q, dq)
        DDQ[k], LAM[k] = form.output_accelerations(t, q, dq, U[k], x)
        if eq.nx:
            DX[k] = nm.rates(q, dq, t=t, u=U[k], lam=LAM[k], x=x)
        if eq.outputs:
            Y[k] = nm.outputs(q, dq, t=t, u=U[k], ddq=DDQ[k], lam=LAM[k], x=x)
        if eq.nh:
            pv[k] = np.max(np.abs(nm.Phi(q, t=t, u=U[k])))
        if eq.nc:
            vv[k] = np.max(np.abs(nm.D(q, t=t, u=U[k]) @ dq - nm.beta(q, t=t, u=U[k])))
    return SimulationResult(
        eq,
        T,
        Q,
        DQ,
        DDQ,
        LAM,
        U,
        Y,
        X,
        DX,
        formulation=formulation,
        method=method,
        position_violation=pv,
        velocity_violation=vv,
        independent=form.describe(),
        nfev=tr.nfev,
        nsteps=tr.nsteps,
        corrections=tr.corrections,
        p=nm.p.copy(),
    )


__all__ = ["simulate", "SimulationResult", "FORMULATIONS", "check_consistency", "start_state"]
