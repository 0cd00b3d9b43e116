"""Static equilibrium (Gil Soto, 2005, annex A.3, ``solve_equilibrium_position``).

At rest (``dq = ddq = 0``) with the inputs held, the equations of motion reduce to::

    delta(q, 0, u, x, t) - Phi_q(q, t)^T lam - E^T mu = 0
    Phi(q, t) = 0
    E q - q_held = 0          (coordinates held, optional)
    rates(q, 0, u, x, lam, t) = 0   (first-order states at rest)

solved by Newton-Raphson in ``(q, lam, mu, x)`` with the exact Jacobian
``[[d delta/dq - d(Phi_q^T lam)/dq, -Phi_q^T, -E^T], [Phi_q, 0, 0], [E, 0, 0]]``
built from symbolic derivatives.  Non-holonomic rows play no role at rest
(as in Gil Soto, 2005).  ``mu`` are the generalized forces the holds take; the
result reports ``holding`` = the effort that must be applied along each
held coordinate (``-mu``), e.g. the actuator torque that keeps an arm still.

Example (a pendulum with a torsional spring, ``k theta = -m g l sin(theta)`` at equilibrium):
    >>> import math, symbody as sb
    >>> s = sb.System("p"); th = s.coordinate("theta", 0.5)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> _ = s.particle("m", s.point("P", s.origin, sb.Vector(B, 0, -1, 0)), 1.0)
    >>> s.gravity((0, -9.81, 0))
    >>> _ = s.torsion_spring_damper("spring", th, k=20.0, rest_angle=1.0)
    >>> res = static_equilibrium(s.derive())
    >>> x = res["theta"]; abs(20.0 * (x - 1.0) + 9.81 * math.sin(x)) < 1e-10
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import NumericalError
from .assembly import _as_fixed, newton_least_squares, warn_overridden_guess
from .blocks import evaluator
from .contact_checks import require_smooth
from .inverse import JointReaction, joint_reactions
from .model import as_numeric
from .scaling import mass_weights, scaled_lstsq

if TYPE_CHECKING:
    from ..equations import Equations
    from .model import NumericModel


@dataclass
class EquilibriumResult:
    """Result of :func:`static_equilibrium`.

    Attributes:
        q: equilibrium coordinates.
        lam: multipliers (one per row of ``D``; non-holonomic rows are zero).
        holding: ``{name: effort}`` generalized effort to apply along each held
            coordinate (or initial-position condition) to keep the equilibrium.
        u: inputs held.
        t: time.
        iterations: Newton iterations.
        residual: ``max |delta - Phi_q^T lam|`` at the solution.
        coordinate_names: coordinate names (``res["theta"]`` gives one value).
        x: the first-order states at rest (their rates vanish; ``res["i"]`` gives one).
    """

    q: np.ndarray
    lam: np.ndarray
    holding: dict[str, float]
    u: np.ndarray
    t: float
    iterations: int
    residual: float
    coordinate_names: list[str] = field(default_factory=list)
    eq: Equations | None = field(default=None, repr=False)
    p: np.ndarray | None = field(default=None, repr=False)
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __getitem__(self, name: str) -> float:
        states = [x.name for x in self.eq.states] if self.eq is not None else []
        if name in states:
            return float(self.x[states.index(name)])
        return float(self.q[self.coordinate_names.index(name)])

    @property
    def reactions(self) -> dict[str, JointReaction]:
        """Joint reaction components at the equilibrium (see :func:`symbody.numeric.joint_reactions`)."""
        if self.eq is None:
            raise ValueError("joint reactions need the equations of the equilibrium (EquilibriumResult.eq)")
        return joint_reactions(self.eq, self.lam, self.p)


def static_equilibrium(
    model: Equations | NumericModel,
    q: Any = None,
    *,
    u: Any = None,
    x: Any = None,
    t: float = 0.0,
    fixed: Sequence[str] | dict[str, float] | None = None,
    use_initial: bool = False,
    tol: float = 1e-12,
    max_iter: int = 100,
    relax: float | None = None,
    p: Any = None,
) -> EquilibriumResult:
    """Solve for the static equilibrium from a guess (see the module docstring).

    Args:
        model: ``Equations`` or :class:`NumericModel`.
        q: guess (default: the model's initial coordinates).
        u: inputs held (dict by name or array; default: the model's values).
        x: guess of the first-order states (default: their start values); they are solved with
            their rates zero.
        t: time.
        fixed: coordinates held: names (at the guess) or ``{name: value}``.
        use_initial: also hold the model's initial-position conditions (``Phi_init``); a
            coordinate they hold takes the held value, not the guess (a
            :class:`~symbody.numeric.HeldCoordinateWarning` names those whose guess differs).
        tol: tolerance on the residual, relative to the largest static force at the guess.
        max_iter, relax: Newton iterations and fixed relaxation (``None``: line search).

    Raises:
        ModelError: the equilibrium found penetrates a unilateral contact (contacts exert no force
            here; hold the coordinate that closes one, ``fixed=...``, to rest on it).
        NumericalError: no convergence (no equilibrium near the guess, or an unbounded
            direction such as a free rigid-body motion with a net force).

    Warns:
        NonIsolatedEquilibriumWarning: the stiffness in the free directions is singular at
            the solution (a neutral direction, e.g. a rope length held by a force equal to the
            weight): other configurations nearby are equilibria too and the result depends on
            the guess; hold those coordinates with ``fixed``.
    """
    nm = as_numeric(model, p)
    eq = nm.eq
    n, nh = eq.nq, eq.nh
    q0 = np.array(eq.q0 if q is None else q, dtype=float).reshape(-1)
    xg = np.array(eq.x0 if x is None else x, dtype=float).reshape(-1)
    if xg.size != eq.nx:
        raise ValueError(f"expected {eq.nx} first-order states, got {xg.size}")
    uu = nm.input_vector(u)
    zero = np.zeros(n)
    fx = _as_fixed(eq, fixed, q0)
    if q is not None and use_initial:
        warn_overridden_guess(nm, q0, t, fx, 1e-10, "static_equilibrium", u=uu)
    fixed_items = sorted(fx.items())
    hold_names = [r.name for r in eq.initial_rows] if use_initial else []
    hold_names += [eq.coordinates[i].name for i, _ in fixed_items]
    ni = len(eq.initial_rows) if use_initial else 0
    nf = len(fixed_items)
    nm_ = nh + ni + nf  # rows with multipliers
    E = np.zeros((nf, n))
    for k, (i, _) in enumerate(fixed_items):
        E[k, i] = 1.0
    fvals = np.array([v for _, v in fixed_items])
    names = ("delta", "delta_q", "Phi_init", "Phi_init_q", "PhiTlam_q") + (("Phi_init_qq",) if ni else ())
    fstat = evaluator(eq, *names)
    nx = eq.nx
    fstates = evaluator(eq, "delta_x", "rates", "rates_q", "rates_x", "rates_lam") if nx else None
    lam_full = np.zeros(eq.nc)
    rscale = 1.0

    def parts(x: np.ndarray):
        qq, mult, xs = x[:n], x[n : n + nm_], x[n + nm_ :]
        lam_full[:nh] = mult[:nh]
        d, dq_, Pi, Pi_q, PTl, *H = fstat(t, qq, zero, uu, nm.p, None, lam_full, xs)
        rows = [Pi[: nh + ni]] if nh + ni else []
        J = [Pi_q[: nh + ni]] if nh + ni else []
        # multipliers of the initial rows act through their own Jacobian rows
        if ni:
            PTl = PTl + np.einsum("k,kij->ij", mult[nh : nh + ni], H[0])
        if nf:
            rows.append(qq[[i for i, _ in fixed_items]] - fvals)
            J.append(E)
        G = np.vstack(J) if J else np.zeros((0, n))
        return d, dq_, PTl, G, (np.concatenate(rows) if rows else np.zeros(0))

    def state_parts(x: np.ndarray):
        """The first-order states' blocks: ``delta_x``, ``rates``, ``rates_q``, ``rates_x``, ``rates_lam``."""
        lam_full[:nh] = x[n : n + nh]
        return fstates(t, x[:n], zero, uu, nm.p, None, lam_full, x[n + nm_ :])  # type: ignore[misc]

    def fun(x: np.ndarray) -> np.ndarray:
        d, _, _, G, c = parts(x)
        r = [(d - G.T @ x[n : n + nm_]) / fscale, c]
        if nx:
            r.append(state_parts(x)[1] / rscale)
        return np.concatenate(r)

    def jac(x: np.ndarray) -> np.ndarray:
        _, dq_, PTl, G, _ = parts(x)
        top = np.hstack([(dq_ - PTl) / fscale, -G.T / fscale])
        bottom = np.hstack([G, np.zeros((nm_, nm_))])
        if not nx:
            return np.vstack([top, bottom])
        d_x, _, r_q, r_x, r_lam = state_parts(x)
        r_mult = np.zeros((nx, nm_))
        r_mult[:, :nh] = r_lam[:, :nh]
        rows = np.hstack([r_q, r_mult, r_x]) / rscale
        return np.vstack([np.hstack([top, d_x / fscale]), np.hstack([bottom, np.zeros((nm_, nx))]), rows])

    d0 = nm.evaluate("delta", q=q0, t=t, u=uu, x=xg)[0]
    fscale = max(1.0, float(np.max(np.abs(d0))) if d0.size else 1.0)
    x0 = np.concatenate([q0, np.zeros(nm_), xg])
    if nm_:
        _, _, _, G, _ = parts(x0)
        x0[n : n + nm_] = np.linalg.lstsq(G.T, d0, rcond=None)[0]  # multipliers that best balance the guess
    if nx:
        r0 = state_parts(x0)[1]
        rscale = max(1.0, float(np.max(np.abs(r0))))

    def scales(J: np.ndarray, q_: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = n + nm_
        rows, columns = _newton_scales(J[:k, :k], nm.M(q_, t=t, u=uu), n, fscale)
        if not nx:
            return rows, columns
        # the rates' rows in a unit of their own; each state in the unit its columns then have
        big = np.max(np.abs(J[k:]), axis=1)
        rows = np.concatenate([rows, np.where(big > 0, 1.0 / np.where(big > 0, big, 1.0), 1.0)])
        scaled = rows[:, None] * J[:, k:]
        col = np.max(np.abs(scaled), axis=0)
        return rows, np.concatenate([columns, np.where(col > 0, col, 1.0)])

    def step(x: np.ndarray, J: np.ndarray, r: np.ndarray) -> np.ndarray:
        rows, columns = scales(J, x[:n])
        return -scaled_lstsq(J, r, rows, columns)

    sol = newton_least_squares(fun, jac, x0, tol, max_iter, relax, step)
    if not sol.converged:
        # a held coordinate's force is balanced by its holding effort: only free ones are named
        held = {i for i, _ in fixed_items}
        free = [i for i in range(n) if i not in held]
        r = np.abs(sol.residual[:n]) * fscale
        if free:
            i = max(free, key=lambda j: r[j])
            worst = f"largest unbalanced force on {eq.coordinates[i].name!r}: {r[i]:.3g}"
        else:
            worst = f"largest residual of the holds: {float(np.max(np.abs(sol.residual[n : n + nm_]))):.3g}"
        raise NumericalError(
            f"static equilibrium of {eq.name!r}: no convergence from the guess ({worst}); "
            "try another guess or hold free coordinates (fixed=...)"
        )
    qe, mult, xe = sol.x[:n], sol.x[n : n + nm_], sol.x[n + nm_ :]
    require_smooth(nm, qe, t, "static equilibrium", at_contact=True, u=uu)
    J = jac(sol.x)[: n + nm_, : n + nm_]
    _warn_if_not_isolated(eq, J, n, *_newton_scales(J, nm.M(qe, t=t, u=uu), n, fscale))
    lam = np.zeros(eq.nc)
    lam[:nh] = mult[:nh]
    holding = {nm2: float(-mu) for nm2, mu in zip(hold_names, mult[nh:])}
    res = float(np.max(np.abs(sol.residual[:n]))) * fscale if n else 0.0
    coordinate_names = [c.name for c in eq.coordinates]
    return EquilibriumResult(qe, lam, holding, uu, t, sol.iterations, res, coordinate_names, eq, nm.p.copy(), xe)


def _newton_scales(J: np.ndarray, M: np.ndarray, n: int, fscale: float) -> tuple[np.ndarray, np.ndarray]:
    """Row weights and column units of the Newton matrix ``[[K, -G^T / fscale], [G, 0]]`` (numeric/scaling.py).

    The coordinates are measured in units of ``1 / sqrt(M_jj)`` and their equations weighted by
    ``1 / sqrt(M_ii)``: the stiffness block becomes ``K_ij / sqrt(M_ii M_jj)``, squares of
    frequencies in one unit (a 20 rad/s servo next to a 0.5 rad/s pendulum, not 5e9 N m/rad next
    to 1 N m/rad), then scaled to a largest entry of 1.  The constraint and hold rows and their
    multipliers are scaled to unit norm: the rank decisions of the step compare like with like.
    """
    w = mass_weights(M)
    K = w[:, None] * J[:n, :n] * w[None, :]
    alpha = 1.0 / float(np.max(np.abs(K))) if K.size and np.max(np.abs(K)) > 0 else 1.0
    g = np.linalg.norm(J[n:, :n] * w[None, :], axis=1)
    g = np.where(g > 0, g, 1.0)
    return np.concatenate([alpha * w, 1.0 / g]), np.concatenate([1.0 / w, alpha * g / fscale])


class NonIsolatedEquilibriumWarning(RuntimeWarning):
    """The equilibrium found is not isolated: neighbouring configurations are equilibria too."""


def _warn_if_not_isolated(eq: Equations, J: np.ndarray, n: int, rows: np.ndarray, columns: np.ndarray) -> None:
    """Warn when the equilibrium Jacobian is singular, naming the coordinates that are free to move.

    A singular Jacobian means a continuum of equilibria (a neutral direction, e.g. a rope length
    under a force equal to the weight) or a degenerate configuration: the point returned depends on
    the guess.  The test runs on the scaled Jacobian (:func:`_newton_scales`): a stiff servo does
    not make a soft pendulum look neutral.
    """
    import warnings

    if J.size == 0:
        return
    Js = rows[:, None] * J / columns[None, :]
    K, G = Js[:n, :n], Js[n:, :n]
    if G.shape[0]:
        _, sg, vg = np.linalg.svd(G)
        rank = int((sg > 1e-9 * max(1.0, float(sg.max()))).sum())
        Z = vg[rank:].T  # free directions: the null space of the constraint and hold rows
    else:
        Z = np.eye(n)
    if Z.shape[1] == 0:
        return
    Kr = Z.T @ K @ Z
    _, sk, vk = np.linalg.svd(Kr)
    if sk.max() == 0.0 or sk.min() > 1e-8 * sk.max():
        return
    direction = (Z @ vk[-1]) / columns[:n]  # back to the coordinates' own units
    direction /= float(np.max(np.abs(direction)))
    free = [eq.coordinates[i].name for i in np.argsort(-np.abs(direction)) if abs(direction[i]) > 1e-3][:4]
    warnings.warn(
        f"static equilibrium of {eq.name!r} is not isolated: {', '.join(repr(f) for f in free)} can move "
        "without unbalancing the forces, so the result depends on the guess; hold them with fixed=... "
        "or change the inputs",
        NonIsolatedEquilibriumWarning,
        stacklevel=3,
    )


__all__ = ["static_equilibrium", "EquilibriumResult", "NonIsolatedEquilibriumWarning"]
