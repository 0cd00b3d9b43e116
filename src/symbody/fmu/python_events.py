"""Events of symbody's Python (pythonfmu) FMUs: unilateral contacts and switching loads inside ``doStep``.

The numpy counterpart of ``fmu_templates/sb_events_cs.c``, copied into the FMU next to
:mod:`symbody.fmu.python_runtime` (it imports only numpy, math and the files copied with it, never symbody).
The contact modes, their forces and the resolution of an event are :mod:`symbody.fmu.python_contacts`, the
laws :mod:`symbody.numeric.event_laws`.

Inside a communication step the solver runs in chunks of one internal step; a chunk on the way to a contact's
switching runs at least at the event tolerance (rtol 1e-9, atol 1e-11: a contact's mode changes at events only,
and a gap that comes within the error of the motion from zero is a guess, whatever tolerance the importer passes;
said once in ``solver_messages``), the others at the tolerance asked for (:func:`on_the_way`, as
``sb_events_cs.c``).  The switching functions of the loads hold no mode (every evaluation of the forces takes the
side the state is on): they never tighten the tolerance.

After each chunk the event functions are checked (the gap of an open contact, the force of a closed one, the
switching functions of the loads); a sign change is located by the Illinois variant of regula falsi (M. Dowell and
P. Jarratt, BIT 11, 1971) on the state re-integrated from the start of the chunk, and an event function that
decreases at the start of the chunk and increases at its end is checked for a dip below zero inside it (the minimum
of the cubic Hermite interpolant of its values and rates, checked on the re-integrated state). The gaps of the
closed contacts are projected back onto their surfaces after each chunk.

Example (the minimum of the cubic through (0, 1) and (1, 1) with slopes -2 and 2):
    >>> s, v = hermite_minimum(1.0, -2.0, 1.0, 2.0)
    >>> round(s, 6), round(v, 6)
    (0.5, 0.5)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the runtime that owns these events (never imported at run time: the FMU copies this file alone)
    from .python_runtime import Model

try:  # the settings' order, the contact modes: copied into the FMU next to this file
    import symbody_python_contacts as contacts  # type: ignore[import-not-found,unused-ignore]
    import symbody_python_settings as setting  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # imported from the package (tests, documentation)
    from . import python_contacts as contacts
    from . import python_settings as setting

GAP_TOL, REST_VELOCITY = contacts.GAP_TOL, contacts.REST_VELOCITY
StepFailure = contacts.StepFailure
MAX_EVENTS = 100000  # events in one communication step: more is an accumulation not ended
MAX_CHUNKS = 1000000  # internal steps in one communication step (as the C runtime)
ROOT_ITERATIONS = 200
DIP_REFINEMENTS = 8
EVENT_RTOL, EVENT_ATOL = 1e-9, 1e-11  # the adaptive solvers hold at least these on the way to a switching
TURN_SHARE = 0.5  # an approach that turns before it has used up this share of its gap is not on its way
NEAR_BAND = 10.0  # a gap within this many times the error a step at the tolerance asked for could hide is near


def least_ahead(g: float, v: float, a: float, H: float) -> float:
    """The least value of ``g + v s + a s^2 / 2`` over ``s`` in ``[0, H]``."""
    least = min(g, g + (v + 0.5 * a * H) * H)
    if a > 0.0 and v < 0.0 and -v / a < H:
        least = min(least, g - 0.5 * v * v / a)
    return least


def turning_value(g: float, v: float, a: float, jerk: float) -> float:
    """The value of ``g + v s + a s^2 / 2 + jerk s^3 / 6``, closing at ``s = 0`` (``v < 0``), where it first turns
    (its rate back at zero) for ``s > 0``; inf when it does not turn, or turns only where the cubic term has
    outgrown the rate term (``|jerk| s^3 / 6 > |v| s``: the polynomial says nothing there; as
    ``sb_events_cs.c``)."""
    disc = a * a - 2.0 * jerk * v
    if not disc >= 0.0:
        return math.inf
    q = -0.5 * (a + math.copysign(math.sqrt(disc), a))  # the roots q / (jerk / 2) and v / q, without cancellation
    roots = [r for r in ((q / (0.5 * jerk)) if jerk != 0.0 else -1.0, (v / q) if q != 0.0 else -1.0) if r > 0.0]
    if not roots or abs(jerk) * min(roots) ** 2 > 6.0 * abs(v):
        return math.inf
    s = min(roots)
    return g + s * (v + s * (0.5 * a + s * jerk / 6.0))


def on_the_way(g: float, v: float, a: float, jerk: float, H: float, rtol: float, atol: float) -> bool:
    """Whether the gap ``g`` (rate ``v``, acceleration ``a``, ``jerk``) is on its way to zero where the error of
    the motion decides whether it reaches zero: closing, and turning on its cubic Taylor polynomial within
    ``TURN_SHARE`` of itself of zero, on either side; or within ``NEAR_BAND`` times the error a step at
    ``rtol, atol`` could hide of zero over ``H`` (as ``sb_events_cs.c``).  One that turns with most of itself
    left is a miss, one that passes zero at speed before it turns an impact at any tolerance.

    Example (x = sin t towards a wall at 1 from t = 0: on its way; x = 0.2 sin t: not):
        >>> on_the_way(1.0, -1.0, 0.0, 1.0, 0.1, 1e-3, 1e-6), on_the_way(1.0, -0.2, 0.0, 0.2, 0.1, 1e-3, 1e-6)
        (True, False)
    """
    if v < 0.0 and abs(turning_value(g, v, a, jerk)) <= TURN_SHARE * g:
        return True
    travel = abs(g) + abs(v) * H + 0.5 * abs(a) * H * H
    return least_ahead(g, v, a, H) <= NEAR_BAND * (rtol * travel + atol)


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


class Events(contacts.ContactModes):
    """Contact modes, contact forces and event location of one FMU instance (``model``: its
    ``symbody_python_runtime.Model``, whose blocks module has ``contacts`` and ``switches``)."""

    def __init__(self, model: Model) -> None:
        super().__init__(model)
        self.nsw = int(model.info["nsw"])
        self.solver_messages: list[str] = []  # the event tolerance replacing the importer's (logSolver)
        self._told = (0.0, 0.0)  # the solver.rtol and solver.atol it last replaced in a message
        self._asked = (0.0, 0.0)  # the solver.rtol and solver.atol of the step
        self._gacc: np.ndarray = np.zeros(0)  # the gap accelerations at the start of the last chunk ...
        self._gacc_t: float | None = None  # ... and its time (None: none since the step or the event began)

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
                v = (z[i] - self.off[i]) / (t - self.ta) if t > self.ta else self.rate0[i]
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
            # a separating contact's divided gap counts from its start where rounding left that below zero (a
            # rebound flying less than |z| / rate has no other root to locate: the C runtime's sb_events_cs.c)
            self.off[i] = (min(z[i], 0.0) if self.divided[i] else 0.5 * GAP_TOL - min(z[i], 0.0)) if leaving else 0.0
            self.watched[i] = self.divided[i] or z[i] + self.off[i] > 0.0
        for j in range(k, nz):  # a switching function exactly at zero is watched from the next chunk
            self.off[j] = float(np.sign(z[j]))
            self.watched[j] = self.off[j] != 0.0
        self.z0 = z

    def _locate(self, a: float, fa: float, b: float, fb: float) -> float:
        """The time in (a, b] where the smallest watched function reaches zero (Illinois); the state there."""
        t_end, side = b, 0  # (the function is not positive at the chunk's end)
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
        return self._past_root(a, b, t_end)

    def _past_root(self, a: float, b: float, t_end: float) -> float:
        """The state strictly past the root found in (a, b], the state at ``a`` given: a function still on its side
        would be found again at once.  One that crosses so slowly that some ulps of time leave the state's bits as
        they were is taken further, the step doubling, up to ``t_end`` where it was not positive (as
        sb_events_cs.c)."""
        m = self.m
        start, tries = (m.x.copy(), m.h_next), 0
        while True:
            if b > a:
                m.integrate(a, b)
            if self._smallest(b, m.x) < 0.0 or b >= t_end:
                return b
            tries += 1
            m.x[:], m.h_next = start[0], start[1]
            m.changed()
            b = min(b + math.ldexp(math.nextafter(b, math.inf) - b, tries), t_end)

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
        return float(z + (0.0 if self.divided[i] else self.off[i])) if i < self.nk else float(self.off[i] * z)

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
        saved = self._asked = m.settings[setting.RTOL], m.settings[setting.ATOL]
        if int(m.settings[setting.METHOD]) == setting.RK4:  # (rk4: atol floors its trust check)
            m.settings[setting.RTOL], m.settings[setting.ATOL] = min(saved[0], EVENT_RTOL), min(saved[1], EVENT_ATOL)
        try:
            self._step(t0, tend)
        finally:
            m.settings[setting.RTOL], m.settings[setting.ATOL] = saved

    def _tolerance(self, t: float, h: float) -> None:
        """The tolerance of the chunk of length ``h`` from ``t`` (adaptive solvers): the event tolerance on the way
        to a contact's switching, else the one asked for."""
        m, (rtol, atol) = self.m, self._asked
        if int(m.settings[setting.METHOD]) == setting.RK4 or not self.nk:
            return
        which = self._switching_ahead(t, m.x, 2.0 * h)
        tight = which is not None
        m.settings[setting.RTOL] = min(rtol, EVENT_RTOL) if tight else rtol
        m.settings[setting.ATOL] = min(atol, EVENT_ATOL) if tight else atol
        if which is not None:
            self._tell_event_tolerance(rtol, atol, t, which)

    def _switching_ahead(self, t: float, x: np.ndarray, H: float) -> int | None:
        """The first contact closed or on its way to its surface over the horizon ``H`` (None: none); the gap
        accelerations are kept for the next chunk's jerks (the first chunk of a step or a mode: a forward
        difference along the motion)."""
        rate, acc = self.blocks(t, x)[5], self._gap_accelerations(t, x)
        if self._gacc_t is not None and t > self._gacc_t:
            jerk = (acc - self._gacc) / (t - self._gacc_t)
        else:
            xdot, row_ref = self.m.derivatives(t, x), self.m.row_ref.copy()
            h = np.cbrt(np.finfo(float).eps) * max(1.0, float(np.max(np.abs(x))))
            h /= max(1.0, float(np.max(np.abs(xdot))))
            jerk = (self._gap_accelerations(t + h, x + h * xdot) - acc) / h
            self.m.row_ref = row_ref  # (the evaluation ahead may have raised the rows' largest norms)
        self._gacc, self._gacc_t = acc, t
        rtol, atol = self._asked
        for i in range(self.nk):  # (a closed contact is at its switching: its force decides it)
            if (
                self.closed[i]
                or self.divided[i]
                or on_the_way(float(self.z0[i]), float(rate[i]), float(acc[i]), float(jerk[i]), H, rtol, atol)
            ):
                return i
        return None

    def _gap_accelerations(self, t: float, x: np.ndarray) -> np.ndarray:
        """``G ddq - gap_gamma`` of the contacts in their current modes at ``(t, x)``."""
        _, G, _, ggamma, _, _ = self.blocks(t, x)
        return G @ self.m.accelerations(t, x)[0] - ggamma

    def _tell_event_tolerance(self, rtol: float, atol: float, t: float, which: int) -> None:
        """Say, once for each pair of tolerances, that the adaptive solver runs tighter than asked from ``t``, and
        why."""
        if rtol <= EVENT_RTOL and atol <= EVENT_ATOL:
            return
        if self._told == (rtol, atol):
            return
        self._told = (rtol, atol)
        whose = "importer's tolerance" if self.m.rtol_experiment else "solver.rtol"
        self.solver_messages.append(
            f"DoStep: t = {t!r}: the solver runs at rtol {min(rtol, EVENT_RTOL):g}, atol {min(atol, EVENT_ATOL):g}, "
            f"not at the {whose} {rtol:g} and solver.atol {atol:g} asked for, while contact "
            f"'{self.names[which]}' is on its way to a switching: on the way to the switching of a unilateral "
            f"contact the events hold at least rtol {EVENT_RTOL:g}, atol {EVENT_ATOL:g} in Co-Simulation (a "
            "grazing impact within the error of the motion would be a guess); elsewhere the solver runs at the "
            "tolerance asked for (said once)"
        )

    def _step(self, t0: float, tend: float) -> None:
        m = self.m
        self.resolve(t0, m.x)
        self._gacc_t = None
        t, events, chunks = t0, 0, 0
        while t < tend:
            chunks += 1
            if chunks > MAX_CHUNKS:
                raise StepFailure(f"more than {MAX_CHUNKS} internal steps in the communication step (t = {t!r})")
            h = self._chunk(t0, tend)
            tb = tend if tend - t <= h * (1.0 + 1e-12) else t + h
            self._watch(t, m.x)
            self._tolerance(t, tb - t)
            fa = self._smallest(t, m.x)
            self.S0 = (m.x.copy(), m.h_next)
            m.integrate(t, tb)
            fb = self._smallest(tb, m.x)
            if fb > 0.0:
                tb, fb = self._dip(tb, fb)
            if fb > 0.0:
                self.hold_closed(tb, m.x)
                t = tb
                continue
            te = self._locate(t, fa, tb, fb)
            events += 1
            if events > MAX_EVENTS:
                raise StepFailure(f"more than {MAX_EVENTS} events in the step (t = {te!r}): impacts accumulate")
            self.resolve(te, m.x)
            self._gacc_t = None
            t = te

    def jacobian(self, t: float, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The state Jacobian of the current mode and its time derivative by central differences of the
        state derivatives (for rosenbrock23 while contacts are closed)."""
        return difference_jacobian(self.m.derivatives, t, x)
