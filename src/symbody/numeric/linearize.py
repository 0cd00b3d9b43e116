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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NumericalError
from ..symbolic.atoms import symbol_name
from .blocks import evaluator
from .contact_checks import require_smooth
from .kinematics import CoordinateSplit, split_coordinates
from .linalg import null_space_basis
from .model import as_numeric
from .saddle import solve_saddle

if TYPE_CHECKING:
    from ..equations import Equations
    from .model import NumericModel


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
            independent velocities ``d<name>``, then the first-order states).
        second_order: ``Mr dz'' + Cr dz' + Kr dz = Br du`` in the independent coordinates.
        full: ``M ddq + C dq + K q = B du`` in all coordinates (before the constraints are
            eliminated; Gil Soto's (2005) eq. 4.83), with ``constraint_jacobian`` the ``D`` at the point.
        constraint_jacobian: ``D`` at the operating point.
        S: ``nq x nz`` velocity transformation ``dq = S dz`` (the dynamics chapter's matrix R).
        Sp: position transformation ``d q = Sp d zp`` (``S`` itself for holonomic systems).
        independent: names of the independent coordinates (velocity level).
        independent_positions: names of the position-independent coordinates.
        q, dq, u, t, ddq, lam: the operating point (accelerations and multipliers consistent with it).
        x: the first-order states of the operating point.
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
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))

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


def _output_rows(eq: Equations, names: Sequence[str]) -> list[tuple[str, int]]:
    out = []
    for nm in names:
        try:
            out.append(eq.index(nm))
        except KeyError:
            raise KeyError(
                f"{nm!r} is not an output, coordinate, velocity, acceleration, multiplier, input or state "
                f"of {eq.name!r}"
            ) from None
    return out


def linearize(
    model: Equations | NumericModel,
    q: Any = None,
    dq: Any = None,
    *,
    u: Any = None,
    x: Any = None,
    t: float = 0.0,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    independent: Sequence[str] | None = None,
    ddq: Any = None,
    lam: Any = None,
    check: float = 1e-8,
    p: Any = None,
) -> LinearModel:
    """Linearize the equations of motion about ``(q, dq, u, x, t)`` (see the module docstring).

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        q, dq: operating point (default: the model's initial state; ``dq`` default zero);
            must satisfy the constraints.
        u: input values at the operating point (dict or array; default: the model's).  A motion
            input is three inputs ``z, dz, ddz``, each a column of ``B``: where it moves the
            constraints, the dependent coordinates and velocities follow it.
        x: first-order states at the operating point (default: their start values); they follow the
            mechanical states in ``A, B, C, D`` and ``states``.
        t: time.
        inputs: names of the inputs of ``B`` (default: every input).
        outputs: names for ``C, D`` (model outputs, coordinates, velocities,
            accelerations, multipliers, inputs, first-order states or their rates ``der(x)``;
            default: the model outputs, or the state when the model has none).
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
    xs = np.array(eq.x0 if x is None else x, dtype=float).reshape(-1)
    if xs.size != eq.nx:
        raise ValueError(f"expected {eq.nx} first-order states, got {xs.size}")
    uu = nm.input_vector(u)
    require_smooth(nm, q, t, "linearization", u=uu)
    in_names = [i.name for i in eq.inputs]
    sel_in = list(in_names) if inputs is None else list(inputs)
    for nme in sel_in:
        if nme not in in_names:
            raise KeyError(f"{nme!r} is not an input of {eq.name!r}; inputs are: {', '.join(in_names) or 'none'}")
    iu = [in_names.index(i) for i in sel_in]
    if nc:
        from .dynamics import check_consistency

        check_consistency(nm, t, q, dq, check, uu)
    if ddq is None or lam is None:
        a, lm = nm.accelerations(q, dq, t=t, u=uu, x=xs)
        ddq = a if ddq is None else np.asarray(ddq, dtype=float)
        lam = lm if lam is None else np.asarray(lam, dtype=float)
    ddq = np.asarray(ddq, dtype=float)
    lam = np.asarray(lam, dtype=float)
    op = _OperatingPoint(t, q, dq, uu, xs, ddq, lam)
    vals = _jacobians(eq, nm, op)
    M = vals["M"]
    Dm = vals["D"] if nc else np.zeros((0, n))
    DTlam_q = vals["DTlam_q"] if nc else np.zeros((n, n))
    Kfull = vals["Mddq_q"] + DTlam_q - vals["delta_q"]
    Cfull = -vals["delta_dq"]
    Bu = vals["delta_u"] - vals["Mddq_u"] - (vals["DTlam_u"] if nc else 0.0)  # motion inputs move M and D
    Bfull = Bu[:, iu]

    split: CoordinateSplit = split_coordinates(nm, q, t, independent, uu)
    pv, ph = split.velocity, split.position
    S = null_space_basis(Dm, pv) if nc else np.eye(n)
    Sp = null_space_basis(Dm[: eq.nh], ph) if eq.nh else np.eye(n)
    ip, iv = ph.independent, pv.independent
    nzp, nzv, nxs, ni = len(ip), len(iv), eq.nx, len(iu)
    nx = nzp + nzv + nxs  # the states of the linear model: positions, velocities, first-order states

    # position perturbations (columns: d zp, d dz, d x, d u): the dependent coordinates follow the motion inputs
    dq_map = np.zeros((n, nx + ni))
    dq_map[:, :nzp] = Sp
    if eq.nh and ph.dependent:
        rows = ph.rows
        J = Dm[: eq.nh][rows][:, ph.dependent]
        dq_map[ph.dependent, nx:] = -np.linalg.solve(J, vals["Phi_u"][rows][:, iu])
    # velocity perturbations: D d dq = -d(D dq - beta)/dq d q - d(D dq - beta)/du du, with d dq[iv] = d dz
    ddq_vel = np.zeros((n, nx + ni))
    ddq_vel[:, nzp : nzp + nzv] = S
    if nc and pv.dependent:
        Dr = Dm[pv.rows]
        rhs = -(vals["Ddq_q"] @ dq_map)
        rhs[:, nx:] -= vals["Ddq_u"][:, iu]
        rhs[:, nzp : nzp + nzv] = 0.0  # S already satisfies D S = 0
        W = np.linalg.solve(Dr[:, pv.dependent], rhs[pv.rows])
        W[:, nzp : nzp + nzv] = 0.0
        ddq_vel[pv.dependent] += W
    r1 = -Kfull @ dq_map - Cfull @ ddq_vel
    r1[:, nzp + nzv : nx] += vals["delta_x"]
    r1[:, nx:] += Bfull
    if nc:
        r2 = (vals["gamma_q"] - vals["Dddq_q"]) @ dq_map + vals["gamma_dq"] @ ddq_vel
        r2[:, nx:] += (vals["gamma_u"] - vals["Dddq_u"])[:, iu]
    else:
        r2 = np.zeros((0, dq_map.shape[1]))
    try:
        dddq, dlam = solve_saddle(M, Dm, r1, r2)
    except NumericalError as e:
        raise NumericalError(f"linearization of {eq.name!r}: {e}") from None

    full = np.zeros((nx, nx + ni))
    full[:nzp] = ddq_vel[ip]  # d zp' = (d dq)[ip]
    full[nzp : nzp + nzv] = dddq[iv]
    if nxs:  # d x' = rates_q d q + rates_dq d dq + rates_lam d lam + rates_x d x + rates_u d u
        rx = vals["rates_q"] @ dq_map + vals["rates_dq"] @ ddq_vel + (vals["rates_lam"] @ dlam if nc else 0.0)
        rx[:, nzp + nzv : nx] += vals["rates_x"]
        rx[:, nx:] += vals["rates_u"][:, iu]
        full[nzp + nzv :] = rx
    A, Bss = full[:, :nx], full[:, nx:]

    # second-order form in the independent coordinates (the mechanical block only)
    Mr = S.T @ M @ S
    Kr = -Mr @ A[nzp : nzp + nzv, :nzp]
    Cr = -Mr @ A[nzp : nzp + nzv, nzp : nzp + nzv]
    Br = Mr @ Bss[nzp : nzp + nzv]

    zp_names = [eq.coordinates[i].name for i in ip]
    zv_names = [symbol_name(eq.coordinates[i].dq) for i in iv]
    states = zp_names + zv_names + [st.name for st in eq.states]

    # outputs
    if outputs is None:
        out_names = [o.name for o in eq.outputs] or list(states)
    else:
        out_names = list(outputs)
    if outputs is None and not eq.outputs:
        Css, Dss = np.eye(nx), np.zeros((nx, ni))
    else:
        maps = _Perturbations(dq_map, ddq_vel, dddq, dlam, full, iu, nx)
        Css, Dss = _output_matrices(eq, nm, out_names, op, maps)
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
        xs,
    )


@dataclass(frozen=True)
class _OperatingPoint:
    t: float
    q: np.ndarray
    dq: np.ndarray
    u: np.ndarray
    x: np.ndarray
    ddq: np.ndarray
    lam: np.ndarray


@dataclass(frozen=True)
class _Perturbations:
    """Linear maps of the perturbations (columns: the states of the linear model, then the inputs)."""

    q: np.ndarray  # positions
    dq: np.ndarray  # velocities
    ddq: np.ndarray  # accelerations
    lam: np.ndarray  # multipliers
    full: np.ndarray  # the state derivative [A B]
    iu: list[int]
    nx: int


def _jacobians(eq: Equations, nm: NumericModel, op: _OperatingPoint) -> dict[str, np.ndarray]:
    """The blocks of the linearization at the operating point (zeros for those the model lacks)."""
    n, nc, nu, nx = eq.nq, eq.nc, eq.nu, eq.nx
    names = ["M", "delta_q", "delta_dq", "delta_u", "Mddq_q", "Mddq_u"]
    if nc:
        names += ["D", "DTlam_q", "DTlam_u", "Ddq_q", "Ddq_u", "Dddq_q", "Dddq_u", "gamma_q", "gamma_dq", "gamma_u"]
    if eq.nh:
        names += ["Phi_u"]
    if nx:
        names += ["delta_x", "rates_q", "rates_dq", "rates_u", "rates_x"] + (["rates_lam"] if nc else [])
    vals = dict(zip(names, evaluator(eq, *names)(op.t, op.q, op.dq, op.u, nm.p, op.ddq, op.lam, op.x)))
    vals.setdefault("delta_x", np.zeros((n, 0)))
    vals.setdefault("Phi_u", np.zeros((0, nu)))
    return vals


def _output_matrices(eq: Equations, nm: NumericModel, out_names, op: _OperatingPoint, maps: _Perturbations):
    rows = _output_rows(eq, out_names)
    nx, iu = maps.nx, maps.iu
    ny = len(rows)
    C = np.zeros((ny, nx + len(iu)))
    if any(w == "y" for w, _ in rows):
        names = ["y_q", "y_dq", "y_ddq", "y_u"] + (["y_lam"] if eq.nc else []) + (["y_x"] if eq.nx else [])
        vals = dict(zip(names, evaluator(eq, *names)(op.t, op.q, op.dq, op.u, nm.p, op.ddq, op.lam, op.x)))
        Y = vals["y_q"] @ maps.q + vals["y_dq"] @ maps.dq + vals["y_ddq"] @ maps.ddq
        if eq.nc:
            Y = Y + vals["y_lam"] @ maps.lam
        if eq.nx:
            Y[:, nx - eq.nx : nx] += vals["y_x"]
        Y[:, nx:] += vals["y_u"][:, iu]
    for k, (where, i) in enumerate(rows):
        if where == "q":
            C[k] = maps.q[i]
        elif where == "dq":
            C[k] = maps.dq[i]
        elif where == "ddq":
            C[k] = maps.ddq[i]
        elif where == "lam":
            C[k] = maps.lam[i]
        elif where == "x":
            C[k, nx - eq.nx + i] = 1.0
        elif where == "dx":
            C[k] = maps.full[nx - eq.nx + i]
        elif where == "u":
            if i not in iu:
                continue  # an input held constant: no perturbation
            C[k, nx + iu.index(i)] = 1.0
        elif where == "y":
            C[k] = Y[i]
        else:  # pragma: no cover - eq.index returns only these kinds
            raise KeyError(out_names[k])
    return C[:, :nx], C[:, nx:]


__all__ = ["linearize", "LinearModel", "StateSpace"]
