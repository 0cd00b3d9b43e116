"""Forward dynamics of models with unilateral contacts: :func:`simulate_events`.

:func:`symbody.numeric.simulate` calls it for every model with contacts (same arguments); the
event logic is described in :mod:`symbody.numeric.events`.

Example (a pendulum released at 60 degrees hits a wall at its lowest point, e = 0.5):
    >>> import math, symbody as sb
    >>> s = sb.System("pend"); th = s.coordinate("th", math.pi / 3)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> _ = s.particle("b", s.point("P", s.origin, sb.Vector(B, 0, -1, 0)), 1.0); s.gravity((0, -9.81, 0))
    >>> _ = s.unilateral("wall", th, restitution=0.5)
    >>> res = simulate_events(s.derive(), 1.5, dt=0.01)
    >>> [e.kind for e in res.events]
    ['impact']
    >>> rebound = res["th"].max(initial=0.0, where=res.t > res.events[0].time)
    >>> round(1 - math.cos(rebound), 3)          # e^2 (1 - cos 60 deg): a quarter of the energy is left
    0.125
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .contact_dynamics import ContactDynamics
from .dynamics import SimulationResult, _times, check_consistency, start_state
from .event_records import EventResult
from .events import EVENT_METHODS, EventLog, integrate_events
from .inputs import input_function
from .integrators import Stretches
from .model import as_numeric

if TYPE_CHECKING:
    from ..equations import Equations
    from .model import NumericModel

#: the options of :func:`symbody.numeric.simulate` that :func:`simulate_events` takes
SIMULATE_OPTIONS = (
    "t_eval", "dt", "q0", "dq0", "x0", "inputs", "formulation", "method", "rtol", "atol", "max_step", "first_step",
    "baumgarte", "projection_tol", "consistency_tol", "p",
)  # fmt: skip


def handles_events(eq: Equations, formulation: str, method: str) -> bool:
    """Whether :func:`symbody.numeric.simulate` hands ``eq`` to :func:`simulate_events`: always with unilateral
    contacts or stick-slip friction; with switching loads only (``Equations.switches``) when the formulation and
    method can locate events (otherwise the step-size control alone meets their kinks, as before)."""
    if eq.contacts or eq.frictions:
        return True
    locatable = formulation in ("baumgarte", "projection") and method in EVENT_METHODS
    return bool(eq.switches) and locatable


@dataclass(repr=False)
class ContactSimulationResult(EventResult, SimulationResult):
    """Result of a simulation with unilateral contacts: a :class:`~symbody.numeric.SimulationResult`
    with ``events``, ``contact_force`` (also ``res[contact name]``) and ``closed``."""


def simulate_events(
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
    baumgarte: tuple[float, float] | None = (1.0, 10.0),
    projection_tol: float = 1e-10,
    consistency_tol: float = 1e-8,
    gap_tol: float = 1e-8,
    rest_velocity: float | None = None,
    max_events: int = 10000,
    p: Any = None,
) -> ContactSimulationResult:
    """Forward dynamics with unilateral contacts (arguments as :func:`symbody.numeric.simulate`).

    Args:
        gap_tol: gaps within this distance of zero touch (a contact can close or take an impulse).
        rest_velocity: approach rates below it close the contact plastically instead of bouncing
            (ends accumulations of impacts); default ``sqrt(atol)``, the rate at which a gap moves
            by ``atol`` in ``sqrt(atol)`` seconds.
        max_events: a simulation meeting more events fails (a NumericalError naming the last).

    Raises:
        ModelError: a restitution outside ``[0, 1]``, a friction coefficient below zero or a static one below
            the sliding one at the parameter values ``p``.
        ValueError: the formulation is ``"independent"`` or the method cannot locate events.
        NumericalError: inconsistent or penetrating initial state, integrator failure, too many events.
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    if formulation not in ("baumgarte", "projection"):
        raise ValueError(
            "models with unilateral contacts simulate with formulation 'baumgarte' or 'projection', "
            f"not {formulation!r}"
        )
    if method not in EVENT_METHODS:
        raise ValueError(
            f"models with unilateral contacts need a variable-step method with dense output to locate their events "
            f"({', '.join(EVENT_METHODS)}), not {method!r}"
        )
    t0, tf, te = _times(t_span, t_eval, dt)
    if not tf > t0:
        raise ValueError(f"the final time ({tf}) must be greater than the initial time ({t0})")
    q, dq, x = start_state(eq, q0, dq0, x0)
    u = input_function(eq, inputs)
    check_consistency(nm, t0, q, dq, consistency_tol, u(t0, q, dq))
    form = ContactDynamics(nm, u, baumgarte, formulation == "projection", projection_tol)
    form.x_held = x.copy()
    form.check_coefficients(t0, q, dq)
    log = EventLog(form, gap_tol, float(np.sqrt(atol)) if rest_velocity is None else rest_velocity, max_events)
    opts: dict[str, Any] = {"rtol": rtol, "atol": atol, "max_step": max_step}
    if first_step is not None:
        opts["first_step"] = first_step
    rec = integrate_events(form, log, t0, tf, np.concatenate([q, dq, x]), method, te, opts, Stretches(t0, tf, u))
    return _postprocess(nm, form, log, rec, formulation, method)


def _postprocess(nm: NumericModel, form: ContactDynamics, log: EventLog, rec: dict, formulation: str, method: str):
    eq = nm.eq
    T = np.array(rec["t"])
    nt, n, k = len(T), eq.nq, len(form.contacts)
    Y = np.array(rec["y"]).reshape(nt, 2 * n + eq.nx)
    X, DX = Y[:, 2 * n :], np.zeros((nt, eq.nx))
    modes = np.array(rec["mode"], dtype=bool).reshape(nt, k)
    nf = len(form.frictions)
    slips = np.array(rec["slip"], dtype=float).reshape(nt, nf)
    FR = np.zeros((nt, nf))
    DDQ, LAM = np.zeros((nt, n)), np.zeros((nt, eq.nc))
    U, OUT = np.zeros((nt, eq.nu)), np.zeros((nt, len(eq.outputs)))
    F, pv, vv = np.zeros((nt, k)), np.zeros(nt), np.zeros(nt)
    saved = form.closed.copy(), form.slip.copy()
    for j in range(nt):
        t, q, dq, x = T[j], Y[j, :n], Y[j, n : 2 * n], X[j]
        form.closed[:], form.slip[:] = modes[j], slips[j]
        U[j] = form.u(t, q, dq)
        a = form.accelerations(t, q, dq, U[j], x)
        DDQ[j], LAM[j], F[j], FR[j] = a.ddq, a.lam, a.contact, a.friction
        DX[j] = form.rates(t, q, dq, U[j], a, x)
        if eq.outputs:
            OUT[j] = nm.outputs(q, dq, t=t, u=U[j], ddq=DDQ[j], lam=np.concatenate([LAM[j], F[j], FR[j]]), x=x)
        if eq.nh:
            pv[j] = np.max(np.abs(nm.Phi(q, t=t, u=U[j])))
        if eq.nc:
            vv[j] = np.max(np.abs(nm.D(q, t=t, u=U[j]) @ dq - nm.beta(q, t=t, u=U[j])))
    form.closed[:], form.slip[:] = saved
    return ContactSimulationResult(
        eq,
        T,
        Y[:, :n],
        Y[:, n : 2 * n],
        DDQ,
        LAM,
        U,
        OUT,
        X,
        DX,
        events=list(log.events),
        contact_force=F,
        closed=modes,
        friction_force=FR,
        slip=slips,
        formulation=formulation,
        method=method,
        position_violation=pv,
        velocity_violation=vv,
        nfev=rec["nfev"],
        nsteps=rec["nsteps"],
        corrections=rec["corrections"],
        p=nm.p.copy(),
    )


__all__ = ["simulate_events", "ContactSimulationResult", "handles_events", "SIMULATE_OPTIONS"]
