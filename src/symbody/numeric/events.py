"""Simulation with events: location, impacts, contact and friction modes, accumulations.

:func:`symbody.numeric.simulate` hands models with unilateral contacts (``system.unilateral``),
stick-slip friction (``system.stick_slip``) or switching loads (``Equations.switches``) to
:func:`symbody.numeric.event_simulation.simulate_events`.  Between events the motion is that of the
current mode (closed contacts and sticking elements as constraints, slipping elements as forces:
:mod:`symbody.numeric.contact_dynamics`), integrated step by step by scipy's solvers.  After every
step the events inside it are located on the solver's dense output:

- an open contact whose gap crosses zero (the gaps are also sampled inside the step, so that a
  gap dipping below zero and back within one step is not missed; a gap that has just left zero is
  divided by the time since, or its square, so that its root at the start does not count, and
  watched for reaching ``-gap_tol / 2``, so that a gap leaving zero tangentially and turning
  negative at higher order is caught too);
- a closed contact whose force crosses zero;
- a slipping element whose rate reaches zero, a sticking one whose force reaches ``mu_static |N|``
  (sampled inside the step too, at least every ``STICK_SAMPLE`` seconds: the states of a stuck body
  stand still and let the steps grow, while the load may exceed the limit for a moment);
- a switching function of the loads crossing zero (either way).

The earliest one is found by Brent's method to round-off on the dense output of the step that crossed
it; that step is then discarded and the motion integrated again from the step's start up to the event
time, so that no step spans the event (a step across a kink of a load or a switch of the mode is
inaccurate in a way its error estimate does not see, and what it accepts depends on round-off). The
state there is taken from that integration, and the event is resolved (:mod:`symbody.numeric.impacts`):
the contacts at zero gap take the impulses of Newton's law, approach rates below ``rest_velocity`` count
as plastic (the end of an accumulation of impacts: a bouncing ball comes to rest), then the force
problem decides which contacts stay closed, and the friction elements at rest stick unless the force
that holds them exceeds the static limit (they are released one at a time, the most overloaded first: a
heuristic, not a complementarity problem, for several elements that load each other); the solver
restarts from the new state. A step too long for the motion just after an event (a short flight that a
low-order dense output cannot show) is retried shorter. Every change is reported as an :class:`Event`
(``impact``, ``close``, ``open``, ``stick``, ``slip``, ``switch``) in ``result.events``.

Example (a ball dropped from 1 m bounces with e = 0.5 and comes to rest):
    >>> import numpy as np, symbody as sb
    >>> s = sb.System("ball"); y = s.coordinate("y", 1.0)
    >>> _ = s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0); s.gravity((0, -9.81, 0))
    >>> floor = s.unilateral("floor", y, restitution=0.5)
    >>> res = sb.numeric.simulate(s.derive(), 2.0, dt=0.5)
    >>> res.events[0]
    Event(time=0.451524, name='floor', kind='impact')
    >>> round(float(res["floor"][-1]), 6)          # at rest: the floor carries the weight
    9.81
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq, minimize_scalar

from ..errors import NumericalError
from . import event_laws
from .contact_dynamics import ContactDynamics, ContactState
from .event_records import Event, EventResult
from .impacts import contact_forces, contact_response, impact_impulses
from .integrators import SCIPY_METHODS, Stretches
from .integrators import _set_state as set_state

#: methods usable with events (those with a dense output that can be restarted)
EVENT_METHODS = ("RK45", "DOP853", "Radau", "BDF", "RK23")
#: interior samples of the gaps per step
GAP_SAMPLES = 4
#: the largest spacing of the samples of a sticking friction element's margin (s; the FMUs' solver.step)
STICK_SAMPLE = 1e-3
#: the largest number of times an event is reached again because shorter steps found it earlier
MAX_REACH = 50
#: crossings of one switching function within ``CHATTER_SPAN`` (relative time) that end a simulation
CHATTER_EVENTS = 50
CHATTER_SPAN = 1e-6


@dataclass
class _Anchor:
    """An open contact that left zero gap at ``time``: its gap, less ``offset``, is divided by
    ``(t - time)^order`` (a contact that leaves with its gap a hair below zero, rounding or a drift into the
    surface within the gap tolerance, does not cross it again at once)."""

    time: float
    order: int
    start: float  # the limit of the divided gap at ``time``
    offset: float = (
        0.0  # its gap there when below zero (a gap of -1e-15 divided by (t - time)^2 looks like an approach)
    )
    #: opened from closed at rest (its force reached zero): the force problem and the gap's acceleration
    #: are both zero to round-off there, so it closes again only once it is ``gap_tol / 2`` into the surface
    released: bool = False


class EventLog:
    """Resolves events on a :class:`ContactDynamics` and records them."""

    def __init__(self, form: ContactDynamics, gap_tol: float, rest_velocity: float, max_events: int):
        self.form = form
        self.names = [c.name for c in form.contacts]
        self.gap_tol = gap_tol
        self.rest_velocity = rest_velocity
        self.max_events = max_events
        self.friction_names = [f.name for f in form.frictions]
        self.switch_names = [f"switch {k}: {e}"[:80] for k, e in enumerate(form.eq.switches)]
        self.events: list[Event] = []
        self.anchors: dict[int, _Anchor] = {}
        self.t_start = -np.inf  # the initial slip directions are no events
        self._t0 = 0.0  # start of the step being searched
        self.sides: dict[int, float] = {}  # the side of each switching function in the step being searched

    def _add(self, ev: Event) -> None:
        self.events.append(ev)
        if ev.kind == "switch":
            self._check_chattering(ev)
        if len(self.events) > self.max_events:
            raise NumericalError(
                f"more than {self.max_events} events by t = {ev.time:.6g} (last: {ev.kind} of {ev.name!r}); "
                "raise max_events, or rest_velocity if impacts accumulate"
            )

    def _check_chattering(self, ev: Event) -> None:
        """Refuse a switching function that the motion crosses back and forth at once (a sliding mode)."""
        recent = self.events[-CHATTER_EVENTS:]
        span = ev.time - recent[0].time
        if (
            len(recent) == CHATTER_EVENTS
            and all(e.kind == "switch" and e.name == ev.name for e in recent)
            and span <= CHATTER_SPAN * max(1.0, abs(ev.time))
        ):
            raise NumericalError(
                f"the load switching at {ev.name!r} chatters at t = {ev.time:.6g} ({CHATTER_EVENTS} crossings in "
                f"{span:.3g} s): the motion slides along the switching surface, which a load with sign or Abs "
                "does not model; dry friction that sticks is System.stick_slip"
            )

    def resolve(self, t: float, y: np.ndarray, trigger: int | None = None) -> np.ndarray:
        """Impacts and the new mode at ``(t, y)``; returns the state after the impacts.

        ``trigger`` is the key of the located event (see :meth:`locate`): a sticking element whose
        force reached the static limit there slides even if round-off puts it a hair inside.
        """
        form, n = self.form, self.form.n
        q, dq = y[:n].copy(), y[n : 2 * n].copy()
        form.x_held = y[2 * n :].copy()  # the first-order states pass the event unchanged
        u = form.u(t, q, dq)
        s = form.state(t, q, dq, u)
        # (a closed contact's gap is held by the constraint; its small drift is integration error)
        depth = np.where(form.closed, 0.0, -s.gap)
        if np.any(depth > self.gap_tol):
            k = int(np.argmax(depth))
            raise NumericalError(f"contact {self.names[k]!r} penetrates by {depth[k]:.3g} at t = {t:.6g}")
        was_closed = form.closed.copy()
        touching = np.flatnonzero(form.closed | ((s.gap <= self.gap_tol) & (s.gap_rate(dq) <= self.rest_velocity)))
        nk, nf = len(self.names), len(self.friction_names)
        unloading = trigger if trigger is not None and trigger < nk and form.closed[trigger] else None
        dq = self._impact(t, s, dq, touching)
        dq = self._select_mode(t, q, dq, u, s, touching)
        if unloading is not None and form.closed[unloading]:  # its force was located reaching zero: it opens
            form.closed[unloading] = False  # (the force problem found a hair of it: the same event came again)
            self._add(Event(t, self.names[unloading], "open", 0.0))
        released = None if trigger is None or not nk <= trigger < nk + nf else trigger - nk
        if trigger is not None and trigger >= nk + nf:
            self._add(Event(t, self.switch_names[trigger - nk - nf], "switch"))
        held, logged, dq0 = self.form.slip.copy(), len(self.events), dq  # the friction modes the contacts' force
        dq = self._select_friction(t, q, dq, u, released)  # problem held, the events logged before
        if touching.size and np.any(self.form.slip != held):  # (a rod starting to slide: its floor force)
            del self.events[logged:]  # contact modes with these friction modes, then friction again from the start
            dq = self._select_mode(t, q, dq0, u, s, touching)
            self.form.slip[:] = held
            dq = self._select_friction(t, q, dq, u, released)
        while self._open_unloaded(t, q, dq, u):  # (a complementarity problem agrees with the mode to rounding)
            dq = self._select_friction(t, q, dq, u, None)
        self._anchor(t, q, dq, u, was_closed)
        if trigger is not None and trigger >= nk + nf:  # the switching function leaves zero on the other side
            self.anchors[trigger] = _Anchor(t, 1, 1.0)
            self.sides[trigger - nk - nf] *= -1.0
        return np.concatenate([q, dq, form.x_held])

    def _impact(self, t: float, s: ContactState, dq: np.ndarray, touching: np.ndarray) -> np.ndarray:
        """Newton's multi-contact impact law on the touching contacts (:mod:`symbody.numeric.impacts`)."""
        if not touching.size:
            return dq
        rate = s.gap_rate(dq)[touching]
        if not np.any(rate < -self.rest_velocity):
            return dq  # no approach worth an impact; the mode selection zeroes small rates
        G = s.G[touching]
        # friction takes no impulse: a finite normal force bounds the friction impulse by mu N dt = 0, so the
        # sticking elements are not held (the mode selection after the impact decides whether they slide)
        X, W = contact_response(s.M, s.D, G)
        e = np.where(rate < -self.rest_velocity, s.restitution[touching], 0.0)
        P = impact_impulses(W, rate, e)
        for k, i in enumerate(touching):
            if P[k] > 0.0 and rate[k] < -self.rest_velocity:
                self._add(Event(t, self.names[i], "impact", float(rate[k]), float(P[k])))
        return dq + X @ P

    def _select_mode(
        self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, s: ContactState, touching: np.ndarray
    ) -> np.ndarray:
        """The closed contacts: the force problem over the touching contacts at rest relative to their gap."""
        form = self.form
        before = form.closed.copy()
        rate = s.gap_rate(dq)
        cand = np.array([i for i in touching if abs(rate[i]) <= self.rest_velocity], dtype=int)
        closed = np.zeros_like(before)
        if cand.size:
            G = s.G[cand]
            X, W = contact_response(s.M, form.held(s), G)
            # gap accelerations with no contact force (the other rows held, with Baumgarte's terms)
            form.closed[:] = False
            a0 = form.accelerations(t, q, dq, u).ddq
            # (at the rates zeroed: the closing contacts come to rest, and the forces they carry then decide)
            b = G @ a0 - s.gap_gamma[cand] + form.b * s.gap[cand]
            f = contact_forces(W, b)
            kept = f > event_laws.kept_force(f, b, W)
            if form.held(s).shape[0] > s.D.shape[0]:  # a contact whose rate the sticking elements hold already
                free = np.diag(contact_response(s.M, s.D, G)[1])  # (a block stuck against its stop) stays closed:
                kept |= np.diag(W) <= event_laws.LCP_RCOND * free  # the forces of the mode share the load
            keep = cand[kept]
            closed[keep] = True
            # the closing contacts come exactly to rest (a plastic impulse of the size of the rate), and so do those
            # at rest that open while approaching (left open with their approach, they are found inside again)
            stop = cand[kept | (rate[cand] < 0.0)]
            if stop.size:
                dq = self._stop(s.M, form.held(s), s.G[stop], rate[stop], dq)
        form.closed[:] = closed
        for i in np.flatnonzero(closed & ~before):
            self._add(Event(t, self.names[i], "close", float(rate[i])))
        for i in np.flatnonzero(before & ~closed):
            self._add(Event(t, self.names[i], "open", float(rate[i])))
        return dq

    def _open_unloaded(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray) -> bool:
        """Open the closed contacts whose force is not positive in the new modes, above ``FORCE_TOL`` of the
        largest (the force that was located reaching zero stays closed when the complementarity problem finds a
        hair of force the mode does not carry: the same event would come again at once); whether any opened."""
        form = self.form
        if not form.closed.any():
            return False
        f = form.accelerations(t, q, dq, u).contact
        unloaded = form.closed & ~(f > event_laws.FORCE_TOL * (1.0 + float(np.max(np.abs(f[form.closed])))))
        for i in np.flatnonzero(unloaded):
            self._add(Event(t, self.names[i], "open", 0.0))
        form.closed[unloaded] = False
        return bool(unloaded.any())

    @staticmethod
    def _stop(M: np.ndarray, held: np.ndarray, rows: np.ndarray, rate: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """``dq`` with the rates of ``rows`` zeroed by the impulse along them (the ``held`` rows kept)."""
        X, W = contact_response(M, held, rows)
        return dq - X @ np.linalg.lstsq(W, rate, rcond=None)[0]

    def _select_friction(
        self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, released: int | None
    ) -> np.ndarray:
        """Stick or slip: elements at rest stick while the force that holds them stays within ``mu_static |N|``."""
        form = self.form
        if not form.frictions:
            return dq
        before = form.slip.copy()
        s = form.state(t, q, dq, u)
        rate = s.slip_rate(dq)
        moving = np.abs(rate) > self.rest_velocity
        form.slip[moving] = np.sign(rate[moving])
        form.slip[~moving] = 0.0  # try to stick the ones at rest, then release the ones that cannot
        while np.any(form.slip == 0):
            a = form.accelerations(t, q, dq, u)
            excess = np.where(form.slip == 0, np.abs(a.friction) - s.mu_static * a.normal, -np.inf)
            j = int(np.argmax(excess))
            tol = 1e-10 * (1.0 + a.normal[j])
            if released is not None and before[released] == 0 and form.slip[released] == 0:
                j, tol = released, -1e-8 * (1.0 + a.normal[released])  # at the limit: it slides
            if excess[j] <= tol:
                break
            form.slip[j] = -np.sign(a.friction[j])  # it slides against the force that held it
        stick = form.slip == 0
        if np.any(stick & (rate != 0)):
            dq = self._stop(s.M, np.vstack([s.D, s.G[form.closed]]), s.A[stick], rate[stick], dq)
        for k in np.flatnonzero(stick & (before != 0)):
            self._add(Event(t, self.friction_names[k], "stick", float(rate[k])))
        for k in np.flatnonzero(~stick & (before != form.slip) & ((t > self.t_start) | ~moving)):
            self._add(Event(t, self.friction_names[k], "slip", float(rate[k])))
        return dq

    def _anchor(self, t: float, q: np.ndarray, dq: np.ndarray, u: np.ndarray, was_closed: np.ndarray) -> None:
        """Open contacts at zero gap and slipping elements at zero rate start their divided functions; a
        contact that opens from closed measures its gap from the drift into the surface it had when closed."""
        form = self.form
        s = form.state(t, q, dq, u)
        rate = s.gap_rate(dq)
        a = form.accelerations(t, q, dq, u)
        self.anchors = {}
        for i in np.flatnonzero(~form.closed & (np.abs(s.gap) <= self.gap_tol)):
            drift = min(float(s.gap[i]), 0.0) if was_closed[i] else 0.0
            if rate[i] > self.rest_velocity:
                self.anchors[int(i)] = _Anchor(t, 1, float(rate[i]), drift)
            else:
                self.anchors[int(i)] = _Anchor(
                    t, 2, 0.5 * float(s.G[i] @ a.ddq - s.gap_gamma[i]), min(float(s.gap[i]), 0.0), bool(was_closed[i])
                )
        slip = form.slip * s.slip_rate(dq)
        for j in np.flatnonzero((form.slip != 0) & (slip <= self.rest_velocity)):
            self.anchors[len(self.names) + int(j)] = _Anchor(
                t, 1, float(form.slip[j] * (s.A[j] @ a.ddq - s.fr_gamma[j]))
            )

    # -- location ------------------------------------------------------------------
    def _divided(self, key: int, value, dense: Any):
        """``value(t, y)`` on the dense output, divided as its anchor says (:class:`_Anchor`)."""
        a = self.anchors.get(key)

        def g(t: float) -> float:
            val = value(t, dense(t))
            if a is None:
                return val
            return a.start if t <= a.time else (val - a.offset) / (t - a.time) ** a.order

        return g

    def _functions(self, dense: Any) -> list[tuple[int, Any, bool | float]]:
        """The event functions of the mode: ``(key, function, sampled inside the step)`` (a spacing in
        seconds: at least that dense); an event is a crossing from positive to zero or below."""
        form, n, nk = self.form, self.form.n, len(self.names)
        out: list[tuple[int, Any, bool | float]] = []
        for i in np.flatnonzero(~form.closed):

            def gap(t: float, y: np.ndarray, i: int = int(i)) -> float:
                return float(form.watched(t, y)[0][i])

            anchor = self.anchors.get(int(i))
            if anchor is None or not anchor.released:
                out.append((int(i), self._divided(int(i), gap, dense), True))
            if anchor is not None:
                # a gap that leaves zero tangentially (rate and acceleration zero: a rope going slack, a
                # ball grazing the floor) may turn negative at higher order, which the divided gap misses
                def below(t: float, y: np.ndarray, i: int = int(i)) -> float:
                    return gap(t, y, i) + 0.5 * self.gap_tol

                out.append((int(i), self._divided(-1, below, dense), True))
        for i in np.flatnonzero(form.closed):

            def force(t: float, y: np.ndarray, i: int = int(i)) -> float:
                return float(form.at(t, y).contact[i])

            out.append((int(i), self._divided(-1, force, dense), False))
        for j in range(len(form.frictions)):
            if form.slip[j] != 0:

                def rate(t: float, y: np.ndarray, j: int = j) -> float:
                    return float(form.slip[j] * form.watched(t, y)[2][j])

                out.append((nk + j, self._divided(nk + j, rate, dense), True))
            else:

                def margin(t: float, y: np.ndarray, j: int = j) -> float:
                    a = form.at(t, y)
                    return float(form.state(t, y[:n], y[n : 2 * n]).mu_static[j] * a.normal[j] - abs(a.friction[j]))

                out.append((nk + j, self._divided(-1, margin, dense), STICK_SAMPLE))
        for k in range(len(self.switch_names)):

            def switch(t: float, y: np.ndarray, k: int = k) -> float:
                return float(form.watched(t, y)[3][k])

            key = nk + len(form.frictions) + k
            side = self.sides.get(k, 0.0) if key in self.anchors else float(np.sign(switch(self._t0, dense(self._t0))))
            self.sides[k] = side
            if side:  # a kink or jump of a load, crossed in either direction

                def crossing(t: float, y: np.ndarray, k: int = k, side: float = side) -> float:
                    return side * switch(t, y, k)

                out.append((key, self._divided(key, crossing, dense), True))
        return out

    def locate(self, t0: float, t1: float, dense: Any) -> tuple[float, int] | None:
        """The earliest event in ``(t0, t1]`` as ``(time, key)``, or ``None`` (module docstring)."""
        best: tuple[float, int] | None = None
        self._t0 = t0
        for key, g, sampled in self._functions(dense):
            if isinstance(sampled, bool):
                ts = np.linspace(t0, t1, GAP_SAMPLES + 2) if sampled else np.array([t0, t1])
            else:  # at least every `sampled` seconds
                ts = np.linspace(t0, t1, max(GAP_SAMPLES, int(np.ceil((t1 - t0) / sampled))) + 2)
            vals = [g(float(t)) for t in ts]
            if vals[0] <= 0.0 and key not in self.anchors and vals[-1] < 0.0:
                best = (t0, key) if best is None or t0 < best[0] else best  # already crossed: resolve at once
                continue
            for k in range(len(ts) - 1):
                if vals[k] > 0.0 >= vals[k + 1]:
                    te = brentq(g, ts[k], ts[k + 1], xtol=1e-15, rtol=4 * np.finfo(float).eps)
                    if best is None or te < best[0]:
                        best = (te, key)
                    break
            else:
                dip = _dip(g, ts, vals) if sampled else None
                if dip is not None and (best is None or dip < best[0]):
                    best = (dip, key)
        return best


def _dip(g: Any, ts: np.ndarray, vals: list[float]) -> float | None:
    """The first zero of ``g`` when it dips to zero and back between its samples (positive at all of them):
    a gap that closes and reopens within one step (a ball whose apex just reaches a ceiling).  The samples
    next to the smallest one bracket the minimum; if ``g`` is not positive there, the zero before it is
    the event."""
    if not min(vals) > 0.0:
        return None
    m = int(np.argmin(vals))
    lo, hi = max(m - 1, 0), min(m + 1, len(ts) - 1)
    found = minimize_scalar(g, bounds=(float(ts[lo]), float(ts[hi])), method="bounded", options={"xatol": 1e-14})
    t_min = float(found.x)
    if not g(t_min) <= 0.0:
        return None
    return float(brentq(g, float(ts[lo]), t_min, xtol=1e-15, rtol=4 * np.finfo(float).eps))


def integrate_events(
    form: ContactDynamics,
    log: EventLog,
    t0: float,
    tf: float,
    y0: np.ndarray,
    method: str,
    te: np.ndarray | None,
    opts: dict,
    stretches: Stretches | None = None,
) -> dict:
    """Integrate with event location; returns the records (times, states, modes) and statistics.

    ``stretches`` (the breakpoints of the inputs) end the steps, as in :func:`symbody.numeric.integrators.integrate`.
    """
    stretches = stretches or Stretches(t0, tf, None)
    try:
        return _integrate_events(form, log, t0, tf, y0, method, te, opts, stretches)
    finally:
        stretches.done()


def _integrate_events(
    form: ContactDynamics,
    log: EventLog,
    t0: float,
    tf: float,
    y0: np.ndarray,
    method: str,
    te: np.ndarray | None,
    opts: dict,
    stretches: Stretches,
) -> dict:
    cls = SCIPY_METHODS[method]
    rec: dict = {"t": [], "y": [], "mode": [], "slip": [], "nfev": 0, "nsteps": 0, "corrections": 0}

    def record(t: float, y: np.ndarray) -> None:
        rec["t"].append(float(t))
        rec["y"].append(np.array(y, dtype=float))
        rec["mode"].append(form.closed.copy())
        rec["slip"].append(form.slip.copy())

    def solver_at(t: float, y: np.ndarray, h: float | None, force: bool = False):
        o = dict(opts)
        end = stretches.end(t)
        if h is not None and ("first_step" not in o or force) and end - t > 0:
            o["first_step"] = min(h, end - t)
        elif "first_step" in o:
            o["first_step"] = min(o["first_step"], end - t)
        return cls(form.rhs, t, y, end, **o)

    k_eval = 0

    def record_until(t_end: float, dense: Any, include_end: bool) -> None:
        nonlocal k_eval
        if te is None:
            return
        while k_eval < te.size and (te[k_eval] < t_end or (include_end and te[k_eval] <= t_end)):
            record(te[k_eval], dense(te[k_eval]))
            k_eval += 1

    log.t_start = t0
    y = log.resolve(t0, y0)
    repeats = 0  # events resolved at one time
    if te is None or te[0] <= t0:
        record(t0, y)
        k_eval = 1 if te is not None else 0
    solver = solver_at(t0, y, None)
    while solver.status == "running":
        y_old = np.array(solver.y, dtype=float)
        msg = solver.step()
        if solver.status == "failed":
            last = f"; last failure: {form.last_failure}" if form.last_failure else ""
            raise NumericalError(f"{method} failed at t = {solver.t:.6g}: {msg}{last}")
        rec["nsteps"] += 1
        t_old, t_new = solver.t_old, solver.t
        dense = solver.dense_output()
        hit = log.locate(t_old, t_new, dense)
        if hit is None:
            y_new = solver.y
            if form.project:
                y_new = form.project_state(t_new, y_new)
                set_state(solver, y_new)
                rec["corrections"] += 1
            record_until(t_new, dense, include_end=False)
            if te is None:
                record(t_new, y_new)
            elif k_eval < te.size and abs(te[k_eval] - t_new) <= 1e-12 * max(1.0, abs(t_new)):
                record(te[k_eval], y_new)
                k_eval += 1
            if solver.status == "finished" and t_new < tf:  # a breakpoint of the inputs: the next stretch
                rec["nfev"] += solver.nfev
                solver = solver_at(t_new, y_new, t_new - t_old)
            continue
        t_e = hit[0]
        h = t_new - t_old
        if t_e == t_old and hit[1] in log.anchors and h > 1e-13 * max(1.0, abs(t_old)):
            # the step is too long for the motion that just left an event (a low-order dense output
            # cannot show a short flight): the same start with a shorter step
            rec["nfev"] += solver.nfev
            solver = solver_at(t_old, dense(t_old), h / 16, force=True)
            continue
        repeats = repeats + 1 if t_e == t_old else 0
        if repeats > 100:
            raise NumericalError(f"the events at t = {t_e:.6g} do not settle (a mode that changes again at once)")
        rec["nfev"] += solver.nfev
        if t_e > t_old:  # the step across the event discarded: integrated again up to it
            t_e, y_e, key, nfev = _reach(cls, form.rhs, t_old, y_old, hit, h, opts, log, record_until)
            rec["nfev"] += nfev
        else:
            y_e, key = dense(t_e), hit[1]
            record_until(t_e, dense, include_end=True)
        if te is None:
            record(t_e, y_e)
        y_e = log.resolve(t_e, y_e, key)
        if te is None:
            record(t_e, y_e)
        if t_e >= tf:
            y_final = y_e
            break
        solver = solver_at(t_e, y_e, t_new - t_old)
    else:
        y_final = solver.y
        rec["nfev"] += solver.nfev
    if te is not None and k_eval < te.size:  # the last output time, at the end
        record_until(tf, lambda t: y_final, include_end=True)
    return rec


def _reach(
    cls: Any, rhs: Any, t0: float, y0: np.ndarray, hit: tuple[float, int], h: float, opts: dict, log: Any, record: Any
) -> tuple[float, np.ndarray, int, int]:
    """Integrate from ``(t0, y0)`` exactly up to the event ``hit = (time, key)`` that a step across it located,
    the output times on the way recorded by ``record``.  An event that these shorter steps find earlier (the
    step across it misplaced it) is reached in turn.  Returns the event's time, state and key, and the
    number of evaluations."""
    nfev = 0
    t_e, key = hit
    for _ in range(MAX_REACH):
        sub = cls(rhs, t0, y0, t_e, **{**opts, "first_step": min(h, t_e - t0)})
        earlier = None
        while sub.status == "running":
            ts, ys = sub.t, np.array(sub.y, dtype=float)
            msg = sub.step()
            if sub.status == "failed":
                raise NumericalError(f"the integration up to the event at t = {t_e:.6g} failed: {msg}")
            dense = sub.dense_output()
            found = log.locate(ts, sub.t, dense)
            if found is not None and found[0] < sub.t - 1e-14 * max(1.0, abs(sub.t)):
                earlier = (ts, ys, found)
                break
            record(sub.t, dense, include_end=sub.status == "finished")
        nfev += sub.nfev
        if earlier is None:
            return t_e, np.array(sub.y, dtype=float), key, nfev
        ts, ys, (t_e, key) = earlier
        if t_e <= ts:
            return ts, ys, key, nfev
        t0, y0 = ts, ys
    raise NumericalError(f"the event at t = {t_e:.6g} could not be reached without stepping across it")


__all__ = ["Event", "EventLog", "EventResult", "integrate_events", "EVENT_METHODS"]
