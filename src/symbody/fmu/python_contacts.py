"""Contact modes of symbody's Python (pythonfmu) FMUs: forces of the closed contacts, resolution of an event.

The numpy counterpart of ``fmu_templates/sb_events.c`` and ``sb_events_resolve.c``, copied into the FMU (as
``symbody_python_contacts.py``) next to :mod:`symbody.fmu.python_events`, which locates the events inside
``doStep``; it imports only numpy, math, the laws of events, :mod:`symbody.numeric.event_laws` (copied as
``symbody_event_laws.py``), and those of the constraints, :mod:`symbody.numeric.constraint_laws` (copied as
``symbody_constraint_laws.py``), never the rest of symbody.

* A closed contact is a constraint ``g = 0`` with Baumgarte's terms of the bilateral rows; its force
  ``f >= 0`` solves ``W f = -(G ddq0 - gap_gamma + 2 alpha gdot + beta^2 g)``, ``ddq0`` the accelerations
  without contact forces, ``W = G X`` the Delassus matrix, ``[M D^T; D 0] [X; Y] = [G^T; 0]``.
* An event is resolved as in the C runtime: contacts found inside their surfaces (and closed ones that
  drifted inside) are projected back onto them with the bilateral constraints kept and take the rate at
  which they entered (:func:`symbody.numeric.event_laws.entry_rate`); then Newton's multi-contact impact law
  (F. Pfeiffer and C. Glocker, Multibody Dynamics with Unilateral Contacts, Wiley, 1996, ch. 6), plastic
  where :func:`~symbody.numeric.event_laws.plastic_impact` says so; then the force problem over the contacts
  at rest (or leaving slower than the steps resolve) decides which close; closed contacts without a positive
  force in the new modes open.

Example (a resting ball: the closed contact carries its weight):
    >>> import numpy as np
    >>> class Blocks:  # y'' = -9.81 with the floor y >= 0
    ...     def M_delta(t, q, dq, u, p, x=None): return np.eye(1), np.array([-9.81])
    ...     def contacts(t, q, dq, u, p): return q.copy(), np.eye(1), np.zeros(1), np.zeros(1), np.zeros(1)
    >>> class Model:
    ...     n, nc, nh, b, u, p = 1, 0, 0, Blocks, None, None
    ...     info = dict(nk=1, nsw=0, contact_names=["floor"])
    ...     def u_at(t): return None
    ...     settings = np.array([2, 1e-3, 1e-6, 1e-8, 0.0, 1, 1e-10, 10.0, 10.0, 0])
    >>> c = ContactModes(Model)
    >>> c.closed[:] = True
    >>> ddq, lam = c.accelerations(0.0, np.zeros(2), np.array([-9.81]), np.zeros(0))
    >>> float(ddq[0]), float(c.forces[0])
    (0.0, 9.81)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the runtime that owns these modes (never imported at run time: the FMU copies this file alone)
    from .python_runtime import Model

try:  # copied into the FMU next to this file
    import symbody_constraint_laws as claws  # type: ignore[import-not-found,unused-ignore]
    import symbody_event_laws as laws  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_settings as setting  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # imported from the package (tests, documentation)
    from ..numeric import constraint_laws as claws
    from ..numeric import event_laws as laws
    from . import python_settings as setting

GAP_TOL, REST_VELOCITY, MAX_ENUMERATED = laws.GAP_TOL, laws.REST_VELOCITY, laws.MAX_ENUMERATED
#: at an event, open contacts deeper than this and closed ones that drifted inside by more are projected back
PROJECT_GAP = 5e-11
PROJECT_ITERATIONS = 20


class StepFailure(Exception):
    """A numerical problem during a step, here an event that cannot be resolved (the step is discarded;
    symbody_python_runtime raises it too)."""


def solve_lcp(W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`symbody.numeric.event_laws.solve_lcp`, a failure of which discards the step."""
    try:
        return laws.solve_lcp(W, b)
    except laws.ComplementarityError as e:
        raise StepFailure(str(e)) from None


class ContactModes:
    """Contact modes and forces of one FMU instance (``model``: its ``symbody_python_runtime.Model``, whose
    blocks module has ``contacts``)."""

    def __init__(self, model: Model) -> None:
        self.m = model
        self.nk = int(model.info["nk"])
        self.names = list(model.info["contact_names"])
        self.closed = np.zeros(self.nk, dtype=bool)
        self.forces = np.zeros(self.nk)
        self.messages: list[str] = []  # impacts and mode changes since the slave last logged them

    # -- blocks ------------------------------------------------------------------------------------
    def blocks(self, t: float, x: np.ndarray):
        """``gap, G, gap_beta, gap_gamma, restitution, rate`` at ``(t, x)``."""
        m = self.m
        n = m.n
        gap, G, gbeta, ggamma, e = m.b.contacts(t, x[:n], x[n : 2 * n], m.u_at(t), m.p)
        G = np.asarray(G, dtype=float).reshape(self.nk, n)
        return gap, G, gbeta, ggamma, e, G @ x[n : 2 * n] - gbeta

    def response(self, t: float, x: np.ndarray, G: np.ndarray) -> np.ndarray:
        """``[X; Y]`` with ``[M D^T; D 0] [X; Y] = [G^T; 0]`` (columns per row of ``G``)."""
        m = self.m
        n, nc = m.n, m.nc
        q, dq, u = x[:n], x[n : 2 * n], m.u_at(t)
        M, _ = m.b.M_delta(t, q, dq, u, m.p, x=x[2 * n :])
        A = np.zeros((n + nc, n + nc))
        A[:n, :n] = M
        if nc:
            D = m.b.constraints(t, q, dq, u, m.p)[0]
            A[:n, n:] = D.T
            A[n:, :n] = D
        rhs = np.zeros((n + nc, G.shape[0]))
        rhs[:n] = G.T
        return np.linalg.lstsq(A, rhs, rcond=1e-13)[0]

    @staticmethod
    def delassus(G: np.ndarray, Z: np.ndarray) -> np.ndarray:
        W = G @ Z[: G.shape[1]]
        return 0.5 * (W + W.T)

    def baumgarte(self, gap, rate) -> np.ndarray:
        s = self.m.settings
        return claws.baumgarte_terms(rate, gap, 2.0 * s[setting.ALPHA], s[setting.BETA] ** 2)

    # -- accelerations of the mode -----------------------------------------------------------------
    def accelerations(self, t: float, x: np.ndarray, ddq: np.ndarray, lam: np.ndarray):
        """The accelerations and multipliers with the forces of the closed contacts (``forces`` set)."""
        self.forces = np.zeros(self.nk)
        C = np.flatnonzero(self.closed)
        if C.size == 0:
            return ddq, lam
        gap, G, _, ggamma, _, rate = self.blocks(t, x)
        G = G[C]
        Z = self.response(t, x, G)
        b = G @ ddq - ggamma[C] + self.baumgarte(gap[C], rate[C])
        f = laws.sym_solve(self.delassus(G, Z), list(range(C.size)), -b)
        if not np.all(np.isfinite(f)):
            raise StepFailure(f"the force of contact '{self.names[C[0]]}' is not finite")
        self.forces[C] = f
        sol = Z @ f
        return ddq + sol[: self.m.n], lam + sol[self.m.n :]

    def open_accelerations(self, t: float, x: np.ndarray) -> np.ndarray:
        """The accelerations with every contact open."""
        saved = self.closed.copy()
        self.closed[:] = False
        try:
            return self.m.accelerations(t, x)[0]
        finally:
            self.closed = saved
            self.m.changed()

    def coefficient_problem(self) -> str | None:
        """Why the restitutions at the current state are refused (outside [0, 1], as symbody.numeric refuses
        them), or None."""
        m = self.m
        if self.nk == 0:
            return None
        e = self.blocks(m.t, m.x)[4]
        for name, ei in zip(self.names, np.atleast_1d(e)):
            if not 0.0 <= float(ei) <= 1.0:
                return f"unilateral contact '{name}': the restitution is {float(ei):g}; it must lie in [0, 1]"
        return None

    # -- resolution of an event ----------------------------------------------------------------------
    def resolve(self, t: float, x: np.ndarray) -> None:
        """Contacts found late, impacts, then the contact modes, at ``(t, x)`` (``x`` changed in place)."""
        if self.nk == 0:
            return
        before = self.closed.copy()
        rate0 = self.blocks(t, x)[5]
        depth, late = self.found_late(t, x)
        gap, G, _, _, e, rate = self.blocks(t, x)
        touching = [
            i
            for i in range(self.nk)
            if self.closed[i] or (gap[i] <= GAP_TOL and (rate[i] <= REST_VELOCITY or (depth[i] > 0 and rate0[i] > 0)))
        ]  # (a closed contact's gap is held by its constraint: a drift out of its surface is the importer's error)
        if len(touching) > MAX_ENUMERATED:
            raise StepFailure(f"{len(touching)} contacts touch at once at t = {t!r}: more than {MAX_ENUMERATED}")
        if touching and np.any(rate[touching] < -REST_VELOCITY):
            self._impact(t, x, np.array(touching), late)
        self.closed = self._modes(t, x, touching, np.where(rate0 > 0, depth, 0.0), late)
        while self._open_unloaded(t, x):
            pass
        for j in np.flatnonzero(self.closed != before):
            mode = "closes" if self.closed[j] else "opens"
            self.messages.append(f"DoStep: t = {t!r}: contact '{self.names[j]}' {mode}")
        self.m.changed()

    def found_late(self, t: float, x: np.ndarray) -> tuple[np.ndarray, float]:
        """Open contacts found inside their surfaces and closed ones that drifted inside: projected back with
        the bilateral constraints kept; those found inside take the rates at which they entered, the other
        touching contacts held as they move.  Returns the depths at which they were found and the largest."""
        m, n = self.m, self.m.n
        gap, G, _, ggamma, _, rate = self.blocks(t, x)
        inside = ~self.closed & (gap < -PROJECT_GAP)
        S = np.flatnonzero(inside | (self.closed & (gap < -PROJECT_GAP)))
        depth = np.where(inside, -gap, 0.0)
        if not S.size:
            return depth, 0.0
        target = rate.copy()
        if inside.any():
            alpha = G @ self.open_accelerations(t, x) - ggamma
            for i in np.flatnonzero(inside):
                target[i] = laws.entry_rate(float(rate[i]), float(alpha[i]), float(depth[i]))
                self.messages.append(
                    f"DoStep: t = {t!r}: contact '{self.names[i]}' found {depth[i]:g} inside its surface (rate "
                    f"{rate[i]:g}): projected onto it, rate at entry {target[i]:g}"
                )
        self._project_positions(t, x, S, 1e-3 * PROJECT_GAP)
        if m.nc:
            D, beta = m.b.D_beta(t, x[:n], x[n : 2 * n], m.u_at(t), m.p)
            x[n : 2 * n] += claws.min_norm_step(D, beta - D @ x[n : 2 * n])
        m.changed()
        if inside.any():  # the rates at entry, the other touching contacts held
            gap, G, _, _, _, rate = self.blocks(t, x)
            held = np.flatnonzero(inside | self.closed | ((gap <= GAP_TOL) & (np.abs(rate) <= REST_VELOCITY)))
            Z = self.response(t, x, G[held])
            change = np.where(inside, target - rate, 0.0)[held]
            dP = laws.sym_solve(self.delassus(G[held], Z), list(range(held.size)), change)
            x[n : 2 * n] += Z[:n] @ dP
            m.changed()
        return depth, float(depth.max())

    def _project_positions(self, t: float, x: np.ndarray, S: np.ndarray, tol: float) -> None:
        """Newton on ``[Phi; g_S] = 0`` for the positions: a first step in the metric of the masses (the bodies
        move back as impulses along the gaps would move them, the bilateral constraints held: as the C runtime),
        then minimum-norm steps for what is left."""
        m, n = self.m, self.m.n
        gap, G = self.blocks(t, x)[:2]
        Z = self.response(t, x, G[S])
        x[:n] -= Z[:n] @ laws.sym_solve(self.delassus(G[S], Z), list(range(S.size)), gap[S])
        gap, G = self.blocks(t, x)[:2]
        for _ in range(PROJECT_ITERATIONS):
            J, r = G[S], gap[S]
            if m.nh:
                Phi_q, Phi = m.b.Phi_Phi_q(t, x[:n], x[n : 2 * n], m.u_at(t), m.p)
                J, r = np.vstack([Phi_q, J]), np.concatenate([Phi, r])
            if np.max(np.abs(r)) <= tol:
                break
            x[:n] -= claws.min_norm_step(J, r)
            gap, G = self.blocks(t, x)[:2]
        if not np.max(np.abs(gap[S])) <= max(tol, PROJECT_GAP):
            raise StepFailure(f"the positions cannot be projected onto the surface of contact '{self.names[S[0]]}'")
        m.changed()

    def hold_closed(self, t: float, x: np.ndarray) -> None:
        """The gaps of the closed contacts back to zero after a step (positions only: their rates are left to
        Baumgarte's terms, as in the C runtime)."""
        S = np.flatnonzero(self.closed)
        if S.size and self.m.settings[setting.PROJECTION]:
            if np.max(np.abs(self.blocks(t, x)[0][S])) > self.m.settings[setting.PROJ_TOL]:
                self._project_positions(t, x, S, self.m.settings[setting.PROJ_TOL])

    def _impact(self, t: float, x: np.ndarray, S: np.ndarray, late: float) -> None:
        """Newton's multi-contact impact law on the touching contacts ``S``, plastic where the laws say so."""
        n = self.m.n
        gap, G, _, ggamma, e, rate = self.blocks(t, x)
        alpha = G @ self.open_accelerations(t, x) - ggamma
        r = rate[S]
        plastic = [laws.plastic_impact(float(r[a]), float(e[i]), float(alpha[i]), late) for a, i in enumerate(S)]
        Z = self.response(t, x, G[S])
        P = solve_lcp(self.delassus(G[S], Z), (1.0 + np.where(plastic, 0.0, e[S])) * r)
        for a, i in enumerate(S):
            if P[a] > 0.0 and r[a] < -REST_VELOCITY:
                kind = ", plastic" if plastic[a] else ""
                self.messages.append(
                    f"DoStep: t = {t!r}: impact of contact '{self.names[i]}' (rate {r[a]:g}, impulse {P[a]:g}{kind})"
                )
        x[n : 2 * n] += Z[:n] @ P
        self.m.changed()

    def _modes(self, t: float, x: np.ndarray, touching: list[int], leaving: np.ndarray, late: float) -> np.ndarray:
        """The closed contacts among the touching ones: the force problem over those at rest or leaving slower
        than the steps resolve (``leaving``: the depths of those found inside while leaving); the closing ones
        are brought exactly to rest."""
        n = self.m.n
        closed = np.zeros(self.nk, dtype=bool)
        if not touching:
            return closed
        # an open contact leaving comes back under its gap acceleration with the closed contacts held (not with
        # them all released: a payload lifting off while the trolley rests pressed against its stop)
        self.m.changed()
        gap, G, _, ggamma, _, rate = self.blocks(t, x)
        coming = G @ self.m.accelerations(t, x)[0] - ggamma
        was_closed = self.closed.copy()
        self.closed = closed.copy()
        self.m.changed()
        ddq0 = self.open_accelerations(t, x)
        alpha = np.where(was_closed, G @ ddq0 - ggamma, coming)
        S = np.array(
            [
                i
                for i in touching
                if abs(rate[i]) <= REST_VELOCITY
                or laws.unresolved_flight(float(rate[i]), float(alpha[i]), float(leaving[i]), late)
            ],
            dtype=int,
        )
        if S.size == 0:
            return closed
        Z = self.response(t, x, G[S])
        W = self.delassus(G[S], Z)
        b = G[S] @ ddq0 - ggamma[S] + self.baumgarte(gap[S], np.zeros(S.size))  # (at the rates zeroed)
        f = solve_lcp(W, b)
        kept = f > laws.kept_force(f, b, W)
        keep = np.flatnonzero(kept)
        # the closing contacts come exactly to rest, and so do those at rest that open while approaching (slower
        # than REST_VELOCITY: plastic; left open with their approach, they are found inside again at once)
        stop = np.flatnonzero(kept | ((rate[S] < 0.0) & (np.abs(rate[S]) <= REST_VELOCITY)))
        if stop.size and np.any(rate[S[stop]] != 0.0):
            x[n : 2 * n] -= Z[:n, stop] @ laws.sym_solve(W, list(stop), rate[S[stop]])
        closed[S[keep]] = True
        return closed

    def _open_unloaded(self, t: float, x: np.ndarray) -> bool:
        """Closed contacts without a positive force in the new modes open; whether any did."""
        if not self.closed.any():
            return False
        self.m.changed()
        self.m.accelerations(t, x)
        largest = float(np.max(np.abs(self.forces[self.closed])))
        unloaded = self.closed & ~(self.forces > laws.FORCE_TOL * (1.0 + largest))
        self.closed = self.closed & ~unloaded
        self.m.changed()
        return bool(unloaded.any())
