"""Linearization in independent coordinates: ``M dz'' + C dz' + K dz = B du`` and state space ``(A, B, C, D)``.

About an operating point ``(q, dq, u, t)`` (an equilibrium or any point of a
trajectory) the equations ``M ddq + D^T lam = delta``, ``D ddq = gamma`` are
differentiated exactly, with symbolic Jacobians (:mod:`symbody.numeric.blocks`),
never by finite differences:

* full coordinates (Gil Soto, 2005, eq. 4.83)::

      K = d(M ddq)/dq + d(D^T lam)/dq - d delta/dq      C = -d delta/d dq      B = d delta/du

* independent coordinates ``z`` (chosen by QR with column pivoting, or given):
  on the constraint manifold ``dq = S dz`` with ``D S = 0``, ``S[z] = I``
  (the dynamics chapter's matrix R).  Perturbing positions, velocities and inputs and
  solving the linearized ``[M D^T; D 0][d ddq; d lam] = ...`` gives the exact
  linearization of the reduced ODE ``z'' = f(z, z', u)``::

      x = (dz, dz'),  x' = A x + B du,  dy = C x + D du

  and its second-order form ``Mr dz'' + Cr dz' + Kr dz = Br du`` with
  ``Mr = S^T M S`` (``lin.second_order``; the full-coordinate matrices are
  ``lin.full``).  At an equilibrium ``Kr = S^T K S``, ``Cr = S^T C S`` and
  ``Br = S^T B`` (the chapter's ``K_i, C_i, B_i``); elsewhere the velocity
  dependence of the constraint manifold is included too.

With non-holonomic constraints the state holds the position-independent
coordinates and only the independent velocities (``Kr`` is then rectangular).

Outputs can be model outputs, coordinates (``"theta"``), velocities
(``"dtheta"``), accelerations (``"ddtheta"``), multipliers and inputs, by name.
The matrices are plain numpy arrays: ``scipy.signal.StateSpace(*lin.ss)``,
``control.ss(lin.A, lin.B, lin.C, lin.D)`` or :meth:`LinearModel.to_control` (named signals).

Example (simple pendulum about the bottom: omega = sqrt(g / l)):
    >>> import numpy as np, symbody as sb
    >>> s = sb.System("p"); th = s.coordinate("theta"); T = s.input("T")
    >>> _ = s.particle("m", s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -2.0, 0)), 1.0)
    >>> s.gravity((0, -9.81, 0)); _ = s.generalized_force("motor", th, T)
    >>> lin = linearize(s.derive(), [0.0], outputs=["theta"])
    >>> lin.states, lin.inputs, lin.outputs
    (['theta', 'dtheta'], ['T'], ['theta'])
    >>> np.round(lin.A, 6).tolist(), np.round(lin.B, 6).tolist()
    ([[0.0, 1.0], [-4.905, 0.0]], [[0.0], [0.25]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import NumericalError
from .blocks import evaluator
from .contact_checks import require_smooth
from .kinematics import CoordinateSplit, split_coordinates
from .linalg import null_space_basis, solve_saddle
from .model import as_numeric


@dataclass
class StateSpace:
    """``x' = A x + B u``, ``y = C x + D u`` with names."""

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    states: list[str]
    inputs: list[str]
    outputs: list[str]

    def __iter__(self):
        return iter((self.A, self.B, self.C, self.D))

    def poles(self) -> np.ndarray:
        """Eigenvalues of ``A``."""
        return np.linalg.eigvals(self.A) if self.A.size else np.zeros(0, complex)

    def to_scipy(self):
        """A ``scipy.signal.StateSpace``."""
        import scipy.signal

        return scipy.signal.StateSpace(self.A, self.B, self.C, self.D)

    def to_control(self):
        """A python-control ``StateSpace`` with named states, inputs and outputs."""
        try:
            import control
        except ImportError:  # pragma: no cover - control is an optional dependency
            raise ImportError("python-control is not installed: pip install 'symbody[control]'") from None
        return control.ss(self.A, self.B, self.C, self.D, states=self.states, inputs=self.inputs, outputs=self.outputs)


@dataclass
class SecondOrder:
    """``M x'' + C x' + K x = B du`` in the named coordinates ``x``.

    Attributes:
        M, C, K, B: mass, damping, stiffness and input matrices.
        coordinates: names of the rows/columns (``K`` may have more columns, named
            ``position_coordinates``, for non-holonomic systems).
        position_coordinates: names of the columns of ``K``.
        inputs: names of the columns of ``B``.
    """

    M: np.ndarray
    C: np.ndarray
    K: np.ndarray
    B: np.ndarray
    coordinates: list[str]
    position_coordinates: list[str]
    inputs: list[str]


@dataclass
class LinearModel:
    """Result of :func:`linearize`.

    Attributes:
        A, B, C, D: state-space matrices ``x' = A x + B du``, ``dy = C x + D du``.
        states, inputs, outputs: their names (states: independent coordinates, then
            independent velocities ``d<name>``).
        second_order: ``Mr dz'' + Cr dz' + Kr dz = Br du`` in the independent coordinates.
        full: ``M ddq + C dq + K q = B du`` in all coordinates (before the constraints are
            eliminated; Gil Soto's (2005) eq. 4.83), with ``constraint_jacobian`` the ``D`` at the point.
        constraint_jacobian: ``D`` at the operating point.
        S: ``nq x nz`` velocity transformation ``dq = S dz`` (the dynamics chapter's matrix R).
        Sp: position transformation ``d q = Sp d zp`` (``S`` itself for holonomic systems).
        independent: names of the independent coordinates (velocity level).
        independent_positions: names of the position-independent coordinates.
        q, dq, u, t, ddq, lam: the operating point (accelerations and multipliers consistent with it).
    """

    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    states: list[str]
    inputs: list[str]
    outputs: list[str]
    second_order: SecondOrder
    full: SecondOrder
    constraint_jacobian: np.ndarray
    S: np.ndarray
    Sp: np.ndarray
    independent: list[str]
    independent_positions: list[str]
    q: np.ndarray
    dq: np.ndarray
    u: np.ndarray
    t: float
    ddq: np.ndarray
    lam: np.ndarray

    @property
    def ss(self) -> StateSpace:
        """The state-space model with names (iterable as ``A, B, C, D``)."""
        return StateSpace(self.A, self.B, self.C, self.D, self.states, self.inputs, self.outputs)

    def to_control(self):
        """A python-control ``StateSpace`` (see :meth:`StateSpace.to_control`)."""
        return self.ss.to_control()

    def to_scipy(self):
        """A ``scipy.signal.StateSpace``."""
        return self.ss.to_scipy()

    def poles(self) -> np.ndarray:
        """Eigenvalues of ``A``."""
        return self.ss.poles()


def _output_rows(eq, names: Sequence[str]) -> list[tuple[str, int]]:
    out = []
    for nm in names:
        try:
            out.append(eq.index(nm))
        except KeyError:
            raise KeyError(
                f"{nm!r} is not an output, coordinate, velocity, acceleration, multiplier or input of {eq.name!r}"
            ) from None
    return out


def linearize(
    model: Any,
    q: Any = None,
    dq: Any = None,
    *,
    u: Any = None,
    t: float = 0.0,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    independent: Sequence[str] | None = None,
    ddq: Any = None,
    lam: Any = None,
    check: float = 1e-8,
    p: Any = None,
) -> LinearModel:
    """Linearize the equations of motion about ``(q, dq, u, t)`` (see the module docstring).

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        q, dq: operating point (default: the model's initial state; ``dq`` default zero);
            must satisfy the constraints.
        u: input values at the operating point (dict or array; default: the model's).
        t: time.
        inputs: names of the inputs of ``B`` (default: every input).
        outputs: names for ``C, D`` (model outputs, coordinates, velocities,
            accelerations, multipliers or inputs; default: the model outputs, or the
            state when the model has none).
        independent: names of the independent coordinates (default: chosen by QR with
            column pivoting, held and ordinary coordinates before auxiliary ones).
        ddq, lam: accelerations and multipliers of the operating point (default: solved).
        check: relative tolerance on the constraint residuals of the operating point.

    Raises:
        ModelError: the operating point is at or inside a unilateral contact, or the model has
            stick-slip friction (:mod:`symbody.numeric.contact_checks`).
        NumericalError: inconsistent operating point, singular matrices, or an
            independent set that does not determine the other coordinates.
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    n, nc = eq.nq, eq.nc
    q = np.array(eq.q0 if q is None else q, dtype=float).reshape(-1)
    dq = np.zeros(n) if dq is None else np.array(dq, dtype=float).reshape(-1)
    require_smooth(nm, q, t, "linearization")
    uu = nm.input_vector(u)
    in_names = [x.name for x in eq.inputs]
    sel_in = list(in_names) if inputs is None else list(inputs)
    for nme in sel_in:
        if nme not in in_names:
            raise KeyError(f"{nme!r} is not an input of {eq.name!r}; inputs are: {', '.join(in_names) or 'none'}")
    iu = [in_names.index(x) for x in sel_in]
    if nc:
        from .dynamics import check_consistency

        check_consistency(nm, t, q, dq, check)
    if ddq is None or lam is None:
        a, lm = nm.accelerations(q, dq, t, uu)
        ddq = a if ddq is None else np.asarray(ddq, dtype=float)
        lam = lm if lam is None else np.asarray(lam, dtype=float)
    ddq = np.asarray(ddq, dtype=float)
    lam = np.asarray(lam, dtype=float)

    names = ["M", "delta_q", "delta_dq", "delta_u", "Mddq_q"]
    if nc:
        names += ["D", "DTlam_q", "Ddq_q", "Dddq_q", "gamma_q", "gamma_dq"]
    vals = dict(zip(names, evaluator(eq, *names)(t, q, dq, uu, nm.p, ddq, lam)))
    M = vals["M"]
    Dm = vals["D"] if nc else np.zeros((0, n))
    DTlam_q = vals["DTlam_q"] if nc else np.zeros((n, n))
    Kfull = vals["Mddq_q"] + DTlam_q - vals["delta_q"]
    Cfull = -vals["delta_dq"]
    Bfull = vals["delta_u"][:, iu]

    split: CoordinateSplit = split_coordinates(nm, q, t, independent)
    pv, ph = split.velocity, split.position
    S = null_space_basis(Dm, pv) if nc else np.eye(n)
    Sp = null_space_basis(Dm[: eq.nh], ph) if eq.nh else np.eye(n)
    ip, iv = ph.independent, pv.independent
    nzp, nzv = len(ip), len(iv)

    # velocity perturbation: d dq = S d dz + W d zp, with D W = -d(D dq - beta)/dq Sp and W[iv] = 0
    W = np.zeros((n, nzp))
    if nc and pv.dependent:
        Dr = Dm[pv.rows]
        rhs = -(vals["Ddq_q"] @ Sp)[pv.rows]
        W[pv.dependent] = np.linalg.solve(Dr[:, pv.dependent], rhs)
    # linear maps of the perturbations (columns: d zp, d dz, d u)
    dq_map = np.hstack([Sp, np.zeros((n, nzv)), np.zeros((n, len(iu)))])
    ddq_vel = np.hstack([W, S, np.zeros((n, len(iu)))])
    r1 = -Kfull @ dq_map - Cfull @ ddq_vel
    r1[:, nzp + nzv :] += Bfull
    if nc:
        r2 = (vals["gamma_q"] - vals["Dddq_q"]) @ dq_map + vals["gamma_dq"] @ ddq_vel
    else:
        r2 = np.zeros((0, dq_map.shape[1]))
    try:
        dddq, dlam = solve_saddle(M, Dm, r1, r2)
    except NumericalError as e:
        raise NumericalError(f"linearization of {eq.name!r}: {e}") from None

    nx = nzp + nzv
    A = np.zeros((nx, nx))
    Bss = np.zeros((nx, len(iu)))
    A[:nzp] = ddq_vel[ip][:, :nx]  # d zp' = (d dq)[ip]
    A[nzp:] = dddq[iv][:, :nx]
    Bss[nzp:] = dddq[iv][:, nx:]

    # second-order form in the independent coordinates
    Mr = S.T @ M @ S
    Kr = -Mr @ A[nzp:, :nzp]
    Cr = -Mr @ A[nzp:, nzp:]
    Br = Mr @ Bss[nzp:]

    zp_names = [eq.coordinates[i].name for i in ip]
    zv_names = [eq.coordinates[i].dq.name for i in iv]
    states = zp_names + zv_names

    # outputs
    if outputs is None:
        out_names = [o.name for o in eq.outputs] or list(states)
    else:
        out_names = list(outputs)
    if outputs is None and not eq.outputs:
        Css, Dss = np.eye(nx), np.zeros((nx, len(iu)))
    else:
        Css, Dss = _output_matrices(eq, nm, out_names, t, q, dq, uu, ddq, lam, dq_map, ddq_vel, dddq, dlam, iu, nx)
    all_names = [c.name for c in eq.coordinates]
    iv_names = [all_names[i] for i in iv]
    return LinearModel(
        A,
        Bss,
        Css,
        Dss,
        states,
        sel_in,
        out_names,
        SecondOrder(Mr, Cr, Kr, Br, iv_names, zp_names, sel_in),
        SecondOrder(M, Cfull, Kfull, Bfull, all_names, all_names, sel_in),
        Dm,
        S,
        Sp,
        iv_names,
        zp_names,
        q,
        dq,
        uu,
        t,
        ddq,
        lam,
    )


def _output_matrices(eq, nm, out_names, t, q, dq, uu, ddq, lam, dq_map, ddq_vel, dddq, dlam, iu, nx):
    rows = _output_rows(eq, out_names)
    n = eq.nq
    ny = len(rows)
    maps = np.zeros((ny, nx + len(iu)))
    uses_y = any(w == "y" for w, _ in rows)
    if uses_y:
        names = ["y_q", "y_dq", "y_ddq", "y_u"] + (["y_lam"] if eq.nc else [])
        vals = dict(zip(names, evaluator(eq, *names)(t, q, dq, uu, nm.p, ddq, lam)))
        Y = vals["y_q"] @ dq_map + vals["y_dq"] @ ddq_vel + vals["y_ddq"] @ dddq
        if eq.nc:
            Y = Y + vals["y_lam"] @ dlam
        Y[:, nx:] += vals["y_u"][:, iu]
    for k, (where, i) in enumerate(rows):
        if where == "q":
            maps[k] = dq_map[i]
        elif where == "dq":
            maps[k] = ddq_vel[i]
        elif where == "ddq":
            maps[k] = dddq[i]
        elif where == "lam":
            maps[k] = dlam[i]
        elif where == "u":
            if i not in iu:
                continue  # an input held constant: no perturbation
            maps[k, nx + iu.index(i)] = 1.0
        elif where == "y":
            maps[k] = Y[i]
        else:  # pragma: no cover - eq.index returns only these kinds
            raise KeyError(out_names[k])
    if n == 0:  # pragma: no cover - models always have coordinates
        raise NumericalError("model without coordinates")
    return maps[:, :nx], maps[:, nx:]


__all__ = ["linearize", "LinearModel", "StateSpace"]
