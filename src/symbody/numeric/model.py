"""Numeric evaluation of the blocks of an :class:`~symbody.Equations` object.

A :class:`NumericModel` binds parameter values to the compiled blocks; every
analysis of :mod:`symbody.numeric` accepts one (or an ``Equations``, bound to
its default parameters), and the analyses are also reachable as methods
(``nm.assemble()``, ``nm.simulate(...)``, ``nm.linearize(...)``, ...).

Example:
    >>> import math
    >>> import symbody as sb
    >>> s = sb.System("pendulum")
    >>> g, l, m = s.parameter("g", 9.81), s.parameter("l", 2.0), s.parameter("m", 1.0)
    >>> th = s.coordinate("theta", 0.3)
    >>> _ = s.particle("bob", s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -l, 0)), m)
    >>> s.gravity((0, -g, 0))
    >>> nm = NumericModel(s.derive(), {"l": 1.0})
    >>> nm.M([0.3])
    array([[1.]])
    >>> ddq, lam = nm.accelerations([0.5], [0.0])
    >>> bool(abs(ddq[0] + 9.81 * math.sin(0.5)) < 1e-12)
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from ..codegen.evaluators import evaluator as compiled_evaluator
from ..equations import Equations
from ..errors import NumericalError
from ..model.contacts import event_force_symbols
from ..model.deprecation import formerly_positional
from .blocks import evaluator as _block_evaluator
from .saddle import solve_saddle


class NumericModel:
    """Blocks of an :class:`~symbody.Equations` as numpy functions with bound parameters.

    Args:
        eq: the derived equations.
        p: parameter values (array in ``eq.parameters`` order or dict by name); defaults otherwise.
    """

    def __init__(self, eq: Equations, p: Any = None):
        self.eq = eq
        self.p = self._params(p)
        self._f: dict[tuple[str, ...], Any] = {}

    def _params(self, p: Any) -> np.ndarray:
        p0 = self.eq.p0.copy()
        if p is None:
            return p0
        if isinstance(p, dict):
            names = [x.name for x in self.eq.parameters]
            for k, v in p.items():
                if k not in names:
                    raise KeyError(f"unknown parameter {k!r}")
                p0[names.index(k)] = float(v)
            return p0
        arr = np.asarray(p, dtype=float)
        if arr.shape != p0.shape:
            raise ValueError(f"expected {p0.size} parameter values, got {arr.size}")
        return arr

    def with_parameters(self, **values: float) -> NumericModel:
        """A copy with some parameters changed by name."""
        nm = NumericModel(self.eq, self.p)
        names = [x.name for x in self.eq.parameters]
        for k, v in values.items():
            if k not in names:
                raise KeyError(f"unknown parameter {k!r}")
            nm.p[names.index(k)] = float(v)
        nm._f = self._f
        return nm

    @property
    def q0(self) -> np.ndarray:
        return self.eq.q0

    @property
    def dq0(self) -> np.ndarray:
        return self.eq.dq0

    @property
    def u0(self) -> np.ndarray:
        return self.eq.u0

    def _fn(self, *names: str):
        f = self._f.get(names)
        if f is None:
            f = self._f[names] = compiled_evaluator(self.eq, *names)
        return f

    @property
    def x0(self) -> np.ndarray:
        """Start values of the first-order states."""
        return self.eq.x0

    def _args(self, q, dq=None, t=0.0, u=None):
        n = self.eq.nq
        q = np.asarray(q, dtype=float)
        dq = np.zeros(n) if dq is None else np.asarray(dq, dtype=float)
        u = self.eq.u0 if u is None else np.asarray(u, dtype=float)
        return float(t), q, dq, u, self.p

    def _states(self, x) -> np.ndarray:
        return self.eq.x0 if x is None else np.asarray(x, dtype=float)

    @formerly_positional("t", "u", where="NumericModel")
    def M(self, q, *, t: float = 0.0, u=None) -> np.ndarray:
        """Mass matrix (``u``: the inputs, which motion inputs make part of the geometry)."""
        return self._fn("M")(*self._args(q, None, t, u))[0]

    @formerly_positional("t", "u", "x", where="NumericModel")
    def delta(self, q, dq, *, t: float = 0.0, u=None, x=None) -> np.ndarray:
        """Generalized forces (``x``: the first-order states, default their start values)."""
        return self._fn("delta")(*self._args(q, dq, t, u), None, None, self._states(x))[0]

    @formerly_positional("t", "u", "x", where="NumericModel")
    def M_delta(self, q, dq, *, t: float = 0.0, u=None, x=None) -> tuple[np.ndarray, np.ndarray]:
        """Mass matrix and generalized forces evaluated jointly."""
        return self._fn("M", "delta")(*self._args(q, dq, t, u), None, None, self._states(x))

    @formerly_positional("t", "u", where="NumericModel")
    def Phi(self, q, *, t: float = 0.0, u=None) -> np.ndarray:
        return self._fn("Phi")(*self._args(q, None, t, u))[0]

    @formerly_positional("t", "u", where="NumericModel")
    def Phi_q(self, q, *, t: float = 0.0, u=None) -> np.ndarray:
        return self._fn("Phi_q")(*self._args(q, None, t, u))[0]

    @formerly_positional("t", "u", where="NumericModel")
    def Phi_init(self, q, *, t: float = 0.0, u=None) -> np.ndarray:
        return self._fn("Phi_init")(*self._args(q, None, t, u))[0]

    @formerly_positional("t", "u", where="NumericModel")
    def Phi_init_q(self, q, *, t: float = 0.0, u=None) -> np.ndarray:
        return self._fn("Phi_init_q")(*self._args(q, None, t, u))[0]

    @formerly_positional("t", "u", where="NumericModel")
    def D(self, q, *, t: float = 0.0, u=None) -> np.ndarray:
        """Velocity-level constraint Jacobian ``[Phi_q; A_nh]``."""
        return self._fn("D")(*self._args(q, None, t, u))[0]

    @formerly_positional("t", "u", where="NumericModel")
    def beta(self, q, *, t: float = 0.0, u=None) -> np.ndarray:
        return self._fn("beta")(*self._args(q, None, t, u))[0]

    @formerly_positional("t", "u", where="NumericModel")
    def gamma(self, q, dq, *, t: float = 0.0, u=None) -> np.ndarray:
        return self._fn("gamma")(*self._args(q, dq, t, u))[0]

    def _lam_with_forces(self, lam) -> np.ndarray:
        lam = np.zeros(self.eq.nc) if lam is None else np.asarray(lam, dtype=float)
        n_forces = len(event_force_symbols(self.eq))
        if n_forces and lam.size == self.eq.nc:  # contact and friction forces: only the simulation knows them
            lam = np.concatenate([lam, np.full(n_forces, np.nan)])
        return lam

    @formerly_positional("t", "u", "ddq", "lam", "x", where="NumericModel")
    def outputs(self, q, dq, *, t: float = 0.0, u=None, ddq=None, lam=None, x=None) -> np.ndarray:
        t_, q_, dq_, u_, p_ = self._args(q, dq, t, u)
        ddq = np.zeros(self.eq.nq) if ddq is None else np.asarray(ddq, dtype=float)
        return self._fn("outputs")(t_, q_, dq_, u_, p_, ddq, self._lam_with_forces(lam), self._states(x))[0]

    @formerly_positional("t", "u", "lam", "x", where="NumericModel")
    def rates(self, q, dq, *, t: float = 0.0, u=None, lam=None, x=None) -> np.ndarray:
        """Rates ``dx/dt`` of the first-order states (``lam``: the multipliers, then the contact and
        friction forces where the rates use them)."""
        t_, q_, dq_, u_, p_ = self._args(q, dq, t, u)
        return self._fn("rates")(t_, q_, dq_, u_, p_, None, self._lam_with_forces(lam), self._states(x))[0]

    @formerly_positional("t", "u", "x", where="NumericModel")
    def accelerations(self, q, dq, *, t: float = 0.0, u=None, x=None) -> tuple[np.ndarray, np.ndarray]:
        """Accelerations and multipliers from ``[M D^T; D 0][ddq; lam] = [delta; gamma]``.

        Redundant constraint rows are handled: only a maximal independent set of
        rows of ``D`` enters the solve and the multipliers of the others are zero.

        Raises:
            NumericalError: the system matrix is singular.
        """
        t_, q_, dq_, u_, p_ = self._args(q, dq, t, u)
        xs = self._states(x)
        if self.eq.nc == 0:
            M, d = self._fn("M", "delta")(t_, q_, dq_, u_, p_, None, None, xs)
            try:
                return np.linalg.solve(M, d), np.zeros(0)
            except np.linalg.LinAlgError:
                raise NumericalError(f"singular mass matrix at q = {q_}") from None
        M, d, D, g = self._fn("M", "delta", "D", "gamma")(t_, q_, dq_, u_, p_, None, None, xs)
        try:
            return solve_saddle(M, D, d, g)
        except NumericalError as e:
            raise NumericalError(f"{e} at q = {q_}") from None

    # -- generic evaluation -------------------------------------------------------
    def evaluate(self, *names: str, q, dq=None, t: float = 0.0, u=None, ddq=None, lam=None, x=None) -> tuple:
        """Evaluate standard blocks and analysis blocks (see :mod:`symbody.numeric.blocks`) jointly.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("p"); th = s.coordinate("th", 0.5)
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> _ = s.particle("b", s.point("P", s.origin, sb.Vector(B, 0, -1, 0)), 1.0)
            >>> s.gravity((0, -9.81, 0))
            >>> M, K = NumericModel(s.derive()).evaluate("M", "delta_q", q=[0.0])
            >>> M.tolist(), K.tolist()                 # d delta / d theta = -m g l cos(theta)
            ([[1.0]], [[-9.81]])
        """
        t_, q_, dq_, u_, p_ = self._args(q, dq, t, u)
        f = self._fn(*names) if all(n in self._standard for n in names) else _block_evaluator(self.eq, *names)
        ddq_ = np.zeros(self.eq.nq) if ddq is None else np.asarray(ddq, dtype=float)
        lam_ = np.zeros(self.eq.nc) if lam is None else np.asarray(lam, dtype=float)
        return f(t_, q_, dq_, u_, p_, ddq_, lam_, self._states(x))

    @property
    def _standard(self) -> set:
        return {"M", "delta", "Phi", "Phi_q", "D", "beta", "gamma", "Phi_init", "Phi_init_q", "outputs", "rates"}

    @formerly_positional("t", where="NumericModel")
    def kinetic_energy(self, q, dq, *, t: float = 0.0) -> float:
        """Kinetic energy ``T(q, dq, t)`` (rheonomic terms included); see :func:`symbody.numeric.kinetic_energy`."""
        from .energy import kinetic_energy

        return float(kinetic_energy(self, [q], [dq], t=t)[0])

    def input_vector(self, u=None) -> np.ndarray:
        """Input values as an array: ``None`` (defaults), an array, or a dict by name (others default)."""
        base = self.eq.u0.copy()
        if u is None:
            return base
        if isinstance(u, dict):
            names = [x.name for x in self.eq.inputs]
            for k, v in u.items():
                if k not in names:
                    raise KeyError(f"unknown input {k!r}; inputs are: {', '.join(names) or 'none'}")
                base[names.index(k)] = float(v)
            return base
        arr = np.asarray(u, dtype=float).reshape(-1)
        if arr.shape != base.shape:
            raise ValueError(f"expected {base.size} input values, got {arr.size}")
        return arr

    # -- analyses as methods --------------------------------------------------------
    @formerly_positional("t", where="NumericModel")
    def assemble(self, q=None, *, t: float = 0.0, **options):
        """Solve the position problem; see :func:`symbody.numeric.assemble`."""
        from .assembly import assemble

        return assemble(self, q, t=t, **options)

    @formerly_positional("t", where="NumericModel")
    def solve_velocities(self, q, *, t: float = 0.0, **options):
        """Solve the velocity problem; see :func:`symbody.numeric.solve_velocities`."""
        from .kinematics import solve_velocities

        return solve_velocities(self, q, t=t, **options)

    @formerly_positional("t", where="NumericModel")
    def solve_accelerations(self, q, dq, *, t: float = 0.0, **options):
        """Solve the acceleration problem; see :func:`symbody.numeric.solve_accelerations`."""
        from .kinematics import solve_accelerations

        return solve_accelerations(self, q, dq, t=t, **options)

    def kinematic_simulation(self, times, drivers=None, **options):
        """Kinematic simulation; see :func:`symbody.numeric.kinematic_simulation`."""
        from .kinematics import kinematic_simulation

        return kinematic_simulation(self, times, drivers, **options)

    def simulate(self, t_span, **options):
        """Forward dynamics; see :func:`symbody.numeric.simulate`."""
        from .dynamics import simulate

        return simulate(self, t_span, **options)

    def inverse_dynamics(self, t, q, dq, ddq, **options):
        """Inverse dynamics; see :func:`symbody.numeric.inverse_dynamics`."""
        from .inverse import inverse_dynamics

        return inverse_dynamics(self, t, q, dq, ddq, **options)

    def static_equilibrium(self, q=None, **options):
        """Static equilibrium; see :func:`symbody.numeric.static_equilibrium`."""
        from .equilibrium import static_equilibrium

        return static_equilibrium(self, q, **options)

    def linearize(self, q=None, dq=None, **options):
        """Linearization; see :func:`symbody.numeric.linearize`."""
        from .linearize import linearize

        return linearize(self, q, dq, **options)

    def modal_analysis(self, q=None, **options):
        """Natural frequencies and modes; see :func:`symbody.numeric.modal_analysis`."""
        from .modes import modal_analysis

        return modal_analysis(self, q, **options)


@overload
def coordinate_indices(eq: Equations, names: Sequence[str | int]) -> list[int]: ...
@overload
def coordinate_indices(eq: Equations, names: None) -> None: ...
def coordinate_indices(eq: Equations, names: Sequence[str | int] | None) -> list[int] | None:
    """Indices of coordinates given by name (or index).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("xy"); x, y = s.coordinate("x"), s.coordinate("y")
        >>> _ = s.particle("m", s.point("P", s.origin, (x, y, 0)), 1.0)
        >>> coordinate_indices(s.derive(), ["y", 0])
        [1, 0]
    """
    if names is None:
        return None
    if isinstance(names, str):
        names = [names]
    out = []
    cn = [c.name for c in eq.coordinates]
    for nm in names:
        if isinstance(nm, (int, np.integer)):
            if not 0 <= int(nm) < len(cn):
                raise KeyError(f"coordinate index {nm} out of range (model has {len(cn)} coordinates)")
            out.append(int(nm))
            continue
        if nm not in cn:
            raise KeyError(f"{nm!r} is not a coordinate of {eq.name!r}; coordinates are: {', '.join(cn)}")
        out.append(cn.index(nm))
    return out


def as_numeric(model: Equations | NumericModel, p: Any = None) -> NumericModel:
    """A :class:`NumericModel` from a ``NumericModel`` or an ``Equations``.

    ``p`` (array, or dict of changes by name) overrides the parameters: a dict
    applies on top of the values the ``NumericModel`` already holds.
    """
    if isinstance(model, NumericModel):
        if p is None:
            return model
        if isinstance(p, dict):
            return model.with_parameters(**p)
        return NumericModel(model.eq, p)
    if isinstance(model, Equations):
        return NumericModel(model, p)
    raise TypeError(f"expected symbody.Equations or NumericModel, got {type(model).__name__}")
