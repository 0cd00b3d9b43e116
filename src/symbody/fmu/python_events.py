"""Events of symbody's Python (pythonfmu) FMUs: unilateral contacts and switching loads inside ``doStep``.

The numpy counterpart of ``fmu_templates/sb_events.c`` and ``sb_events_cs.c``, copied into the FMU
next to :mod:`symbody.fmu.python_runtime` (it imports only numpy and math, never symbody).  The laws
are those of :mod:`symbody.numeric.impacts`:

* A closed contact is a constraint ``g = 0`` with Baumgarte's terms of the bilateral rows; its force
  ``f >= 0`` solves ``W f = -(G ddq0 - gap_gamma + 2 alpha gdot + beta^2 g)``, ``ddq0`` the
  accelerations without contact forces, ``W = G X`` the Delassus matrix and
  ``[M D^T; D 0] [X; Y] = [G^T; 0]`` the response to unit forces along the gap gradients.
* An event (a gap closing, a contact force vanishing) is resolved by Newton's multi-contact impact
  law on the touching contacts (F. Pfeiffer and C. Glocker, Multibody Dynamics with Unilateral
  Contacts, Wiley, 1996, ch. 6: impulses ``P >= 0`` with ``gdot+ = gdot- + W P``,
  ``gdot+ + e gdot- >= 0``, complementary), approach rates below :data:`REST_VELOCITY` plastic (an
  accumulation of impacts ends: a bouncing ball comes to rest), then the force problem over the
  contacts at rest decides which close.  The complementarity problems are solved by enumerating the
  active sets, the smallest first (K. G. Murty, Linear Complementarity, Linear and Nonlinear
  Programming, 1988).
* Inside a communication step the solver runs in chunks of one internal step.  After each chunk the
  event functions are checked (the gap of an open contact, the force of a closed one, the switching
  functions of the loads); a sign change is located by the Illinois variant of regula falsi
  (M. Dowell and P. Jarratt, BIT 11, 1971) on the state re-integrated from the start of the chunk,
  and an event function that decreases at the start of the chunk and increases at its end is checked
  for a dip below zero inside it (the minimum of the cubic Hermite interpolant of its values and rates,
  checked on the re-integrated state).

Example (the complementarity problem of two touching unit masses hit at speed 1, ``e = 1``):
    >>> import numpy as np
    >>> solve_lcp(np.array([[2.0, -1.0], [-1.0, 2.0]]), 2.0 * np.array([-1.0, 0.0])).round(12).tolist()
    [1.333333333333, 0.666666666667]
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np

try:  # the settings' order: copied into the FMU next to this file
    import symbody_python_settings as setting  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # imported from the package (tests, documentation)
    from . import python_settings as setting

GAP_TOL = 1e-8  # gaps within this distance of zero touch (sb_events.h: SB_GAP_TOL)
REST_VELOCITY = 1e-5  # approach rates below this close a contact plastically (SB_REST_VELOCITY)
LCP_TOL = 1e-9
MAX_ENUMERATED = 14  # contacts acting at once that the enumeration handles
MAX_EVENTS = 100000  # events in one communication step: more is an accumulation not ended
MAX_CHUNKS = 1000000  # internal steps in one communication step (as the C runtime)
ROOT_ITERATIONS = 200
DIP_REFINEMENTS = 8


class StepFailure(Exception):
    """A numerical problem during a step, here an event that cannot be resolved (the step is discarded;
    symbody_python_runtime raises it too)."""


def solve_lcp(W: np.ndarray, b: np.ndarray, tol: float = LCP_TOL) -> np.ndarray:
    """``z >= 0`` with ``W z + b >= 0`` and ``z (W z + b) = 0``: active sets by increasing size, those of the
    most negative ``b`` first (the basic least-squares solution of each)."""
    m = b.size
    if m == 0 or np.all(b >= 0.0):
        return np.zeros(m)
    if m > MAX_ENUMERATED:
        raise StepFailure(f"{m} contacts act at once: more than the {MAX_ENUMERATED} this FMU handles")
    scale = tol * (1.0 + float(np.max(np.abs(b))))
    order = sorted(range(m), key=lambda i: b[i])
    for size in range(1, m + 1):
        for active in combinations(order, size):
            S = sorted(active)
            z = np.zeros(m)
            z[S] = np.linalg.lstsq(W[np.ix_(S, S)], -b[S], rcond=1e-12)[0]
            w = W @ z + b
            if np.all(z >= -scale) and np.all(w >= -scale) and np.all(np.abs(w[S]) <= scale):
                return np.maximum(z, 0.0)
    raise StepFailure("the contact complementarity problem has no solution (inconsistent contacts?)")


def hermite_minimum(v0: float, d0: float, v1: float, d1: float) -> tuple[float, float]:
    """``(s, value)`` of the minimum over ``[0, 1]`` of the cubic Hermite interpolant with values ``v0, v1``
    and derivatives ``d0 < 0 < d1`` (per unit ``s``): its one interior critical point, by bisection."""
    a2, a3 = -3.0 * v0 - 2.0 * d0 + 3.0 * v1 - d1, 2.0 * v0 + d0 - 2.0 * v1 + d1
    lo, hi = 0.0, 1.0
    for _ in range(60):
        s = 0.5 * (lo + hi)
        if (3.0 * a3 * s + 2.0 * a2) * s + d0 < 0.0:
            lo = s
        else:
            hi = s
    s = 0.5 * (lo + hi)
    return s, ((a3 * s + a2) * s + d0) * s + v0


def difference_jacobian(derivatives, t: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``d f / d x`` and ``d f / d t`` of ``f = derivatives(t, x)`` by central differences (step
    ``eps^(1/3) max(1, |x_j|)``)."""
    nx = x.size
    J, T = np.zeros((nx, nx)), np.zeros(nx)
    for j in range(nx + 1):
        h = np.cbrt(np.finfo(float).eps) * max(1.0, abs(x[j]) if j < nx else abs(t))
        e = np.zeros(nx)
        if j < nx:
            e[j] = h
        dt = h if j == nx else 0.0
        col = (derivatives(t + dt, x + e) - derivatives(t - dt, x - e)) / (2.0 * h)
        if j < nx:
            J[:, j] = col
        else:
            T = col
    return J, T


class Events:
    """Contact modes, contact forces and event location of one FMU instance (``model``: its
    ``symbody_python_runtime.Model``, whose blocks module has ``contacts`` and ``switches``)."""

    def __init__(self, model) -> None:
        self.m = model
        self.nk = int(model.info["nk"])
        self.nsw = int(model.info["nsw"])
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
        return 2.0 * s[setting.ALPHA] * rate + s[setting.BETA] ** 2 * gap

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
        f = np.linalg.lstsq(self.delassus(G, Z), -b, rcond=1e-12)[0]
        if not np.all(np.isfinite(f)):
            raise StepFailure(f"the force of contact '{self.names[C[0]]}' is not finite")
        self.forces[C] = f
        sol = Z @ f
        return ddq + sol[: self.m.n], lam + sol[self.m.n :]

    # -- event functions ---------------------------------------------------------------------------
    def indicators(self, t: float, x: np.ndarray) -> np.ndarray:
        """The gap of each open contact, the force of each closed one, then the switching functions."""
        m = self.m
        if self.closed.any():
            m.accelerations(t, x)
        z = np.zeros(self.nk + self.nsw)
        if self.nk:
            z[: self.nk] = np.where(self.closed, self.forces, self.blocks(t, x)[0])
        if self.nsw:
            z[self.nk :] = m.b.switches(t, x[: m.n], x[m.n : 2 * m.n], m.u_at(t), m.p, x=x[2 * m.n :])[0]
        if not np.all(np.isfinite(z)):
            raise StepFailure(f"an event function is not finite at t = {t!r}")
        return z

    # -- resolution of an event ----------------------------------------------------------------------
    def resolve(self, t: float, x: np.ndarray) -> None:
        """Impacts, then the contact modes, at ``(t, x)`` (``x`` changed in place)."""
        if self.nk == 0:
            return
        before = self.closed.copy()
        gap, G, _, _, e, rate = self.blocks(t, x)
        for i in range(self.nk):
            if not self.closed[i] and -gap[i] > GAP_TOL:
                raise StepFailure(
                    f"contact '{self.names[i]}' penetrates by {-gap[i]:g} at t = {t!r} (an event was missed)"
                )
        touching = [i for i in range(self.nk) if self.closed[i] or (gap[i] <= GAP_TOL and rate[i] <= REST_VELOCITY)]
        if len(touching) > MAX_ENUMERATED:
            raise StepFailure(f"{len(touching)} contacts touch at once at t = {t!r}: more than {MAX_ENUMERATED}")
        n = self.m.n
        if touching and np.any(rate[touching] < -REST_VELOCITY):  # Newton's impact law
            S = np.array(touching)
            Z = self.response(t, x, G[S])
            r = rate[S]
            P = solve_lcp(self.delassus(G[S], Z), (1.0 + np.where(r < -REST_VELOCITY, e[S], 0.0)) * r)
            for a, i in enumerate(S):
                if P[a] > 0.0 and r[a] < -REST_VELOCITY:
                    self.messages.append(
                        f"DoStep: t = {t!r}: impact of contact '{self.names[i]}' (rate {r[a]:g}, impulse {P[a]:g})"
                    )
            x[n : 2 * n] += Z[:n] @ P
        self.closed = self._modes(t, x, touching)
        for j in np.flatnonzero(self.closed != before):
            mode = "closes" if self.closed[j] else "opens"
            self.messages.append(f"DoStep: t = {t!r}: contact '{self.names[j]}' {mode}")
        self.m.changed()

    def _modes(self, t: float, x: np.ndarray, touching: list[int]) -> np.ndarray:
        """The closed contacts among the touching ones: the force problem over those at rest (the closing
        ones are brought exactly to rest)."""
        n = self.m.n
        closed = np.zeros(self.nk, dtype=bool)
        if not touching:
            return closed
        self.closed = closed.copy()
        ddq0, _ = self.m.accelerations(t, x)  # every contact open
        gap, G, _, ggamma, _, rate = self.blocks(t, x)
        S = np.array([i for i in touching if abs(rate[i]) <= REST_VELOCITY], dtype=int)
        if S.size == 0:
            return closed
        Z = self.response(t, x, G[S])
        W = self.delassus(G[S], Z)
        b = G[S] @ ddq0 - ggamma[S] + self.baumgarte(gap[S], rate[S])
        f = solve_lcp(W, b)
        wmax = max(float(np.max(np.diag(W))), 1e-300)
        keep = np.flatnonzero(f > 1e-10 * (1.0 + float(np.max(np.abs(b))) / wmax))
        if keep.size and np.any(rate[S[keep]] != 0.0):
            P = np.linalg.lstsq(W[np.ix_(keep, keep)], rate[S[keep]], rcond=1e-12)[0]
            x[n : 2 * n] -= Z[:n, keep] @ P
        closed[S[keep]] = True
        return closed

    # -- a communication step ------------------------------------------------------------------------
    def _chunk(self, t0: float, tend: float) -> float:
        """One internal step of the solver."""
        s, m = self.m.settings, self.m
        if int(s[setting.METHOD]) == setting.RK4:
            return s[setting.STEP]
        h = m.h_next if m.h_next > 0 else (tend - t0) / 64.0
        return min(h, s[setting.MAX_STEP]) if s[setting.MAX_STEP] > 0 else h

    def _smallest(self, t: float, x: np.ndarray) -> float:
        """The smallest watched event function at (t, x) (inf: none watched); ``self.z`` the functions."""
        self.z = z = self.indicators(t, x)
        phi = math.inf
        for i in np.flatnonzero(self.watched):
            if i >= self.nk:
                v = self.off[i] * z[i]
            elif self.divided[i]:
                v = z[i] / (t - self.ta) if t > self.ta else self.rate0[i]
            else:
                v = z[i] + self.off[i]
            phi = min(phi, float(v))
        return phi

    def _reach(self, tau: float) -> float:
        """The state at ``tau`` integrated from the start of the chunk, and the smallest watched function."""
        m = self.m
        m.x[:] = self.S0[0]
        m.h_next = self.S0[1]
        m.changed()
        if tau > self.ta:
            m.integrate(self.ta, tau)
        return self._smallest(tau, m.x)

    def _watch(self, t: float, x: np.ndarray) -> None:
        """Which event functions the chunk from ``t`` watches (as sb_events_cs.c)."""
        k, nz = self.nk, self.nk + self.nsw
        z = self.indicators(t, x)
        self.rate0 = self.blocks(t, x)[5] if k else np.zeros(0)
        self.ta = t
        self.off = np.zeros(nz)
        self.divided = np.zeros(nz, dtype=bool)
        self.watched = np.zeros(nz, dtype=bool)
        for i in range(k):
            leaving = not self.closed[i] and abs(z[i]) <= GAP_TOL
            self.divided[i] = leaving and self.rate0[i] > REST_VELOCITY
            self.off[i] = 0.5 * GAP_TOL - min(z[i], 0.0) if leaving and not self.divided[i] else 0.0
            self.watched[i] = self.divided[i] or z[i] + self.off[i] > 0.0
        for j in range(k, nz):  # a switching function exactly at zero is watched from the next chunk
            self.off[j] = float(np.sign(z[j]))
            self.watched[j] = self.off[j] != 0.0
        self.z0 = z

    def _locate(self, a: float, fa: float, b: float, fb: float) -> float:
        """The time in (a, b] where the smallest watched function reaches zero (Illinois); the state there."""
        side = 0
        for it in range(ROOT_ITERATIONS):
            if not b - a > 4.0 * np.finfo(float).eps * max(1.0, abs(b)):
                break
            c = (a * fb - b * fa) / (fb - fa)
            if not a < c < b or it % 8 == 7:
                c = 0.5 * (a + b)
            fc = self._reach(c)
            if fc > 0.0:
                a, fa = c, fc
                if side == -1:
                    fb *= 0.5
                side = -1
            else:
                b, fb = c, fc
                if side == 1:
                    fa *= 0.5
                side = 1
        self._reach(a)  # the stages up to a lie before the event; a few ulps of time from a to b
        if b > a:
            self.m.integrate(a, b)
        return b

    def _rates(self, t: float, x: np.ndarray) -> np.ndarray:
        """Time derivatives of the raw event functions: the gap rates, then the switching functions' rates
        by a central difference along the motion ``[dq; ddq]``."""
        m, n = self.m, self.m.n
        r = np.zeros(self.nk + self.nsw)
        if self.nk:
            r[: self.nk] = self.blocks(t, x)[5]
        if self.nsw:
            xdot = m.derivatives(t, x)
            h = (
                np.cbrt(np.finfo(float).eps)
                * max(1.0, float(np.max(np.abs(x))))
                / max(1.0, float(np.max(np.abs(xdot))))
            )
            xp, xm = x + h * xdot, x - h * xdot
            sp = m.b.switches(t + h, xp[:n], xp[n : 2 * n], m.u_at(t + h), m.p, x=xp[2 * n :])[0]
            sm = m.b.switches(t - h, xm[:n], xm[n : 2 * n], m.u_at(t - h), m.p, x=xm[2 * n :])[0]
            r[self.nk :] = (np.asarray(sp) - np.asarray(sm)) / (2.0 * h)
        return r

    def _value(self, i: int, z: float) -> float:
        return float(z + self.off[i]) if i < self.nk else float(self.off[i] * z)

    def _rate(self, i: int, r: float) -> float:
        return float(r) if i < self.nk else float(self.off[i] * r)

    def _dip(self, tb: float, fb: float) -> tuple[float, float]:
        """An event function that decreases at the start of the chunk and increases at its end (``tb``,
        every watched function positive there): its minimum inside the chunk, refined on the re-integrated
        state.  Returns a time and value where the smallest watched function is not positive, or
        ``(tb, fb)`` with the state at ``tb``."""
        m = self.m
        open_ = [i for i in range(self.nk + self.nsw) if self.watched[i] and (i >= self.nk or not self.closed[i])]
        if not open_:
            return tb, fb
        z1, r1 = self.z.copy(), self._rates(tb, m.x)
        if not any(self._rate(i, r1[i]) > 0.0 for i in open_):
            return tb, fb
        end = (m.x.copy(), m.h_next)
        self._reach(self.ta)
        z0, r0 = self.z.copy(), self._rates(self.ta, m.x)
        found = (tb, fb)
        for i in open_:
            tl, vl, dl = self.ta, self._value(i, z0[i]), self._rate(i, r0[i])
            tr, vr, dr = tb, self._value(i, z1[i]), self._rate(i, r1[i])
            if not dl < 0.0 < dr:
                continue
            for _ in range(DIP_REFINEMENTS):
                s, pm = hermite_minimum(vl, dl * (tr - tl), vr, dr * (tr - tl))
                tm = tl + s * (tr - tl)
                if pm > 0.5 * min(vl, vr) or not tl < tm < tr:
                    break
                fm = self._reach(tm)
                if fm <= 0.0:
                    found = min(found, (tm, fm))
                    break
                vm, rm = self._value(i, self.z[i]), self._rate(i, self._rates(tm, m.x)[i])
                if abs(vm - pm) <= 0.1 * vm:
                    break
                if rm > 0.0:
                    tr, vr, dr = tm, vm, rm
                else:
                    tl, vl, dl = tm, vm, rm
        if found[0] < tb:
            return found[0], self._reach(found[0])
        m.x[:], m.h_next = end
        m.changed()
        return tb, self._smallest(tb, m.x)

    def step(self, t0: float, tend: float) -> None:
        """Integrate the model from ``t0`` to ``tend``, locating and resolving every event on the way; the
        modes are resolved at ``t0`` first."""
        m = self.m
        if int(m.settings[setting.METHOD]) == setting.RK4 and (tend - t0) / m.settings[setting.STEP] > MAX_CHUNKS:
            raise StepFailure(
                f"solver.step = {m.settings[setting.STEP]:g} needs more than {MAX_CHUNKS} internal steps for a "
                f"communication step of {tend - t0:g}"
            )
        self.resolve(t0, m.x)
        t, events, chunks = t0, 0, 0
        while t < tend:
            chunks += 1
            if chunks > MAX_CHUNKS:
                raise StepFailure(f"more than {MAX_CHUNKS} internal steps in the communication step (t = {t!r})")
            h = self._chunk(t0, tend)
            tb = tend if tend - t <= h * (1.0 + 1e-12) else t + h
            self._watch(t, m.x)
            fa = self._smallest(t, m.x)
            self.S0 = (m.x.copy(), m.h_next)
            m.integrate(t, tb)
            fb = self._smallest(tb, m.x)
            if fb > 0.0:
                tb, fb = self._dip(tb, fb)
            if fb > 0.0:
                t = tb
                continue
            te = self._locate(t, fa, tb, fb)
            events += 1
            if events > MAX_EVENTS:
                raise StepFailure(f"more than {MAX_EVENTS} events in the step (t = {te!r}): impacts accumulate")
            self.resolve(te, m.x)
            t = te

    def jacobian(self, t: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The state Jacobian of the current mode and its time derivative by central differences of the
        state derivatives (for rosenbrock23 while contacts are closed)."""
        return difference_jacobian(self.m.derivatives, t, x)
