"""Forward dynamics with unilateral contacts in a given mode: :class:`ContactDynamics`.

In a mode, the closed contacts are constraints ``g(q, t) = 0`` stacked under the bilateral rows
(``[M D^T G_C^T; D 0 0; G_C 0 0]``), with Baumgarte's terms like the other rows; their multipliers
are minus the contact forces.  The open contacts exert nothing.  The sticking friction elements
add their rate ``A dq - beta = 0`` as rows too (minus their multipliers are the friction forces);
the slipping ones add ``-mu |N| s A^T`` to the generalized forces, ``s`` the slip direction held
through the mode.  A normal force that depends on multipliers or contact forces (a block pressed by
its weight on a contact, a rod sliding on its end) is found with the slip forces by
:func:`symbody.numeric.event_laws.sliding_forces`, up to the Painleve limit.  The mode changes, the impacts and
the event location are the work of :mod:`symbody.numeric.events`; the impact and mode laws are in
:mod:`symbody.numeric.impacts`.

Example (a ball resting on the floor: the closed contact carries its weight):
    >>> import numpy as np, symbody as sb
    >>> from symbody.numeric import NumericModel
    >>> from symbody.numeric.inputs import input_function
    >>> s = sb.System("ball"); y = s.coordinate("y", 0.0)
    >>> _ = s.particle("b", s.point("P", s.origin, (0, y, 0)), 2.0); s.gravity((0, -9.81, 0))
    >>> _ = s.unilateral("floor", y)
    >>> eq = s.derive()
    >>> cd = ContactDynamics(NumericModel(eq), input_function(eq, None), (1.0, 10.0), False, 1e-10)
    >>> cd.closed[:] = True
    >>> a = cd.accelerations(0.0, np.zeros(1), np.zeros(1), np.zeros(0))
    >>> float(a.ddq[0]), float(a.contact[0])
    (0.0, 19.62)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..codegen.evaluators import evaluator
from ..errors import ModelError, NumericalError
from ..model.contacts import contact_blocks, event_force_symbols
from ..model.friction import friction_blocks
from . import constraint_laws, event_laws
from .inputs import InputFunction
from .model import NumericModel
from .saddle import regularized_correction, solve_saddle

BLOCKS = ("M", "delta", "D", "gamma", "Phi", "beta", "gap", "gap_q", "gap_beta", "gap_gamma", "restitution")
FRICTION_BLOCKS = ("fr_A", "fr_beta", "fr_gamma", "fr_mu", "fr_mu_static", "switch")
#: the blocks the event location watches (cheap: no mass matrix)
WATCHED = ("gap", "gap_beta", "gap_q", "fr_A", "fr_beta", "switch")


@dataclass
class ContactState:
    """The blocks of the dynamics, of the contacts and of the friction elements at one state."""

    M: np.ndarray
    delta: np.ndarray
    D: np.ndarray
    gamma: np.ndarray
    Phi: np.ndarray
    beta: np.ndarray
    gap: np.ndarray
    G: np.ndarray  # gap Jacobian rows
    gap_beta: np.ndarray
    gap_gamma: np.ndarray
    restitution: np.ndarray
    A: np.ndarray  # friction rate rows
    fr_beta: np.ndarray
    fr_gamma: np.ndarray
    mu: np.ndarray
    mu_static: np.ndarray
    switch: np.ndarray  # the switching functions of the loads

    def gap_rate(self, dq: np.ndarray) -> np.ndarray:
        return self.G @ dq - self.gap_beta

    def slip_rate(self, dq: np.ndarray) -> np.ndarray:
        return self.A @ dq - self.fr_beta


@dataclass
class Accelerations:
    """Accelerations of a mode: bilateral multipliers, contact forces (0 when open), friction forces
    along their rates and normal forces."""

    ddq: np.ndarray
    lam: np.ndarray
    contact: np.ndarray
    friction: np.ndarray
    normal: np.ndarray


class ContactDynamics:
    """State ``y = (q, dq, x)``; index-1 accelerations of the current mode (module docstring).

    Attributes:
        closed: which contacts are closed (a boolean array, changed by the event logic).
        slip: per friction element, the slip direction (+1 or -1), 0 while it sticks.
        x_held: the first-order states used where a call gives none (those of the event being
            resolved: impacts and mode changes leave them as they are).
    """

    def __init__(
        self, nm: NumericModel, u: InputFunction, baumgarte: tuple[float, float] | None, project: bool, tol: float
    ):
        self.nm = nm
        self.eq = eq = nm.eq
        self.n = eq.nq
        self.nx = eq.nx
        self.x_held = eq.x0.copy()
        self._frates = nm._fn("rates") if eq.nx else None
        self.u = u
        self.project = project
        self.tol = tol
        self.a, self.b = (0.0, 0.0) if baumgarte is None else (2.0 * baumgarte[0] * baumgarte[1], baumgarte[1] ** 2)
        self.contacts = list(eq.contacts)
        self.frictions = list(eq.frictions)
        self.closed = np.zeros(len(self.contacts), dtype=bool)
        self.slip = np.zeros(len(self.frictions))
        extra = contact_blocks(self.contacts, eq.nq) | friction_blocks(self.frictions, eq.nq)
        switches = list(eq.switches)
        extra["switch"] = (switches, (len(switches),))
        self._f = evaluator(eq, *BLOCKS, *FRICTION_BLOCKS, extra=extra)
        self._fw = evaluator(eq, *WATCHED, extra={k: extra[k] for k in WATCHED})
        normals = [f.normal for f in self.frictions]
        self._normal = evaluator(eq, "fr_normal", extra={"fr_normal": (normals, (len(normals),))})
        mask = 0
        for sym in list(eq.lam) + event_force_symbols(eq):
            mask |= sym.mask
        self._implicit = any(nrm.mask & mask for nrm in normals)
        self.last_failure: str | None = None

    def split(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(q, dq, x)`` of a state vector."""
        n = self.n
        return y[:n], y[n : 2 * n], y[2 * n :]

    def state(
        self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray | None = None, x: np.ndarray | None = None
    ) -> ContactState:
        """All blocks at a state (the inputs' signals at ``t`` when ``u`` is not given, the states ``x_held``
        when ``x`` is not)."""
        u = self.u(t, q, dq) if u is None else u
        return ContactState(*self._f(t, q, dq, u, self.nm.p, None, None, self.x_held if x is None else x))

    def watched(self, t: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Gaps, gap rates, slip rates and switching functions at a state (for the event location)."""
        q, dq, x = self.split(y)
        gap, gap_beta, G, A, fr_beta, switch = self._fw(t, q, dq, self.u(t, q, dq), self.nm.p, None, None, x)
        return gap, G @ dq - gap_beta, A @ dq - fr_beta, switch

    def held(self, s: ContactState) -> np.ndarray:
        """The rows an impulse must respect: the bilateral ones and the sticking friction elements."""
        return np.vstack([s.D, s.A[self.slip == 0]])

    def _rows(self, s: ContactState, dq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The stacked constraint rows and their right-hand sides (with Baumgarte's terms)."""
        C, S = self.closed, self.slip == 0
        D = np.vstack([s.D, s.G[C], s.A[S]])
        g = np.concatenate([s.gamma, s.gap_gamma[C], s.fr_gamma[S]])
        if self.a or self.b:
            rate = D @ dq - np.concatenate([s.beta, s.gap_beta[C], s.fr_beta[S]])
            n_vel = s.D.shape[0] - s.Phi.size
            position = np.concatenate([s.Phi, np.zeros(n_vel), s.gap[C]])  # the friction rows have none
            g = g - constraint_laws.baumgarte_terms(rate, position, self.a, self.b)
        return D, g

    def accelerations(
        self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, x: np.ndarray | None = None
    ) -> Accelerations:
        """Accelerations and forces of the current mode (see :class:`Accelerations`)."""
        x = self.x_held if x is None else x
        s = self.state(t, q, dq, u, x)
        D, g = self._rows(s, dq)
        nc, nC = s.D.shape[0], int(self.closed.sum())
        stick, slipping = self.slip == 0, self.slip != 0
        contact, friction = np.zeros(len(self.contacts)), np.zeros(len(self.frictions))
        names = [f.name for f in self.frictions]

        def solve(F_slip: np.ndarray):
            """The accelerations and forces with the slip forces ``F_slip`` (slipping elements)."""
            friction[:] = 0.0
            friction[slipping] = F_slip
            try:
                ddq, lam = solve_saddle(s.M, D, s.delta + s.A.T @ friction, g)
            except NumericalError as e:
                raise NumericalError(f"{e} at t = {t:.6g}, q = {q}") from None
            contact[self.closed] = -lam[nc : nc + nC]
            friction[stick] = -lam[nc + nC :]
            lam_all = np.concatenate([lam[:nc], contact, friction])
            return ddq, lam, self._normal(t, q, dq, u, self.nm.p, None, lam_all, x)[0]

        lam0 = np.zeros(len(self.eq.lam) + contact.size + friction.size)
        N = self._normal(t, q, dq, u, self.nm.p, None, lam0, x)[0]
        F = -s.mu[slipping] * np.abs(N[slipping]) * self.slip[slipping]
        if self._implicit and slipping.any():  # normal forces that depend on the friction forces
            try:
                F = event_laws.sliding_forces(
                    lambda F: solve(F)[2][slipping], F, s.mu[slipping], self.slip[slipping],
                    [n for n, sl in zip(names, slipping) if sl],
                )  # fmt: skip
            except event_laws.ComplementarityError as e:
                raise NumericalError(f"{e} (t = {t:.6g})") from None
        ddq, lam, N = solve(F)
        N = np.abs(N)
        return Accelerations(ddq, lam[:nc], contact, friction, N)

    def rates(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, a: Accelerations, x: np.ndarray):
        """Rates of the first-order states (they may use the multipliers and the contact and friction forces)."""
        if self._frates is None:
            return np.zeros(0)
        lam = np.concatenate([a.lam, a.contact, a.friction])
        return self._frates(t, q, dq, u, self.nm.p, None, lam, x)[0]

    def rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        q, dq, x = self.split(y)
        if not np.all(np.isfinite(y)):
            return np.full(y.shape, np.nan)
        try:
            u = self.u(t, q, dq)
            a = self.accelerations(t, q, dq, u, x)
            dx = self.rates(t, q, dq, u, a, x)
        except (NumericalError, np.linalg.LinAlgError) as e:
            self.last_failure = str(e)  # a trial stage the step-size control rejects
            return np.full(y.shape, np.nan)
        return np.concatenate([dq, a.ddq, dx])

    def at(self, t: float, y: np.ndarray) -> Accelerations:
        """The accelerations and forces at a state (for locating mode changes)."""
        q, dq, x = self.split(y)
        return self.accelerations(t, q, dq, self.u(t, q, dq), x)

    def check_coefficients(self, t: float, q: np.ndarray, dq: np.ndarray) -> None:
        """Refuse restitutions outside ``[0, 1]`` and friction coefficients with ``mu < 0`` or
        ``mu_static < mu`` at the parameter values of the simulation (the model checks only the defaults).

        Raises:
            ModelError: naming the contact or friction element and the offending value.
        """
        s = self.state(t, q, dq)
        for c, e in zip(self.contacts, s.restitution):
            if not 0.0 <= e <= 1.0:
                raise ModelError(f"unilateral contact {c.name!r}: the restitution is {e:g}; it must lie in [0, 1]")
        for f, mu, mus in zip(self.frictions, s.mu, s.mu_static):
            if not mu >= 0.0:
                raise ModelError(f"friction {f.name!r}: the coefficient mu is {mu:g}; it must not be negative")
            if not mus >= mu:
                raise ModelError(
                    f"friction {f.name!r}: the static coefficient ({mus:g}) is below the sliding one ({mu:g})"
                )

    def project_state(self, t: float, y: np.ndarray) -> np.ndarray:
        """Positions onto ``Phi = 0`` and the closed gaps, then velocities onto the rows (``"projection"``)."""
        n = self.n
        q, dq = y[:n].copy(), y[n : 2 * n].copy()
        nh = self.eq.nh
        if nh or self.closed.any():
            for _ in range(20):
                s = self.state(t, q, dq)
                r = np.concatenate([s.Phi, s.gap[self.closed]])
                if float(np.max(np.abs(r))) <= self.tol:
                    break
                q -= regularized_correction(np.vstack([s.D[:nh], s.G[self.closed]]), r)
            else:
                raise NumericalError(f"position projection did not reach {self.tol:g} at t = {t:.6g}")
        s = self.state(t, q, dq)
        S = self.slip == 0
        D = np.vstack([s.D, s.G[self.closed], s.A[S]])
        if D.shape[0]:
            rhs = np.concatenate([s.beta, s.gap_beta[self.closed], s.fr_beta[S]])
            dq -= regularized_correction(D, D @ dq - rhs)
        return np.concatenate([q, dq, y[2 * n :]])


__all__ = ["ContactDynamics", "ContactState", "Accelerations", "BLOCKS"]
