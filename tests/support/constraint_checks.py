"""Checks of a model's constraint blocks against SymPy and finite differences (shared by the tests of
the constraint machinery and of the constrained examples)."""

from __future__ import annotations

import numpy as np
import sympy as sm

from symbody.numeric import NumericModel

T = sm.Symbol("t", real=True)


def check_time_derivatives(eq, params: dict, rng: np.random.Generator, q_center: np.ndarray, velocity_rows=None):
    """``D dq - beta`` and ``D ddq - gamma`` against the exact time derivatives of the constraints along a motion.

    Only ``q, dq, ddq`` at the instant matter, so the motion is the parabola
    ``q(t0 + s) = q + dq s + ddq s^2 / 2`` with random ``dq, ddq``; SymPy
    differentiates the constraints along it with respect to ``s`` at ``s = 0``.
    ``velocity_rows(q_syms, dq_syms, params)`` gives the non-holonomic rows (SymPy), in the order of the model.
    """
    s = sm.Symbol("s", real=True)
    psubs = {sm.Symbol(p.name, real=True): params.get(p.name, p.value) for p in eq.parameters}
    t0 = float(rng.uniform(0.0, 1.0))
    q = q_center + rng.normal(0, 0.1, eq.nq)
    dq, ddq = rng.uniform(-1, 1, eq.nq), rng.uniform(-1, 1, eq.nq)
    q_syms = [sm.Symbol(c.name, real=True) for c in eq.coordinates]
    dq_syms = [sm.Symbol(c.dq.name, real=True) for c in eq.coordinates]
    motion = {qs: float(a) + float(b) * s + float(c) / 2 * s**2 for qs, a, b, c in zip(q_syms, q, dq, ddq)}
    motion[T] = t0 + s
    rows = list(eq.sympy("Phi")) if eq.nh else []
    if velocity_rows is not None:
        rows += [
            r.subs(dict(zip(dq_syms, [motion[x].diff(s) for x in q_syms])))
            for r in velocity_rows(q_syms, dq_syms, psubs)
        ]
    rows = [sm.sympify(r).subs(psubs).subs(motion) for r in rows]
    value = np.array([float(r.subs(s, 0)) for r in rows])
    d1 = np.array([float(r.diff(s).subs(s, 0)) for r in rows])
    d2 = np.array([float(r.diff(s, 2).subs(s, 0)) for r in rows])
    nm = NumericModel(eq, params)
    D, beta, gamma = nm.D(q, t=t0), nm.beta(q, t=t0), nm.gamma(q, dq, t=t0)
    nh = eq.nh
    # holonomic rows: d/dt Phi = Phi_q dq + Phi_t = D dq - beta and d2/dt2 Phi = D ddq - gamma
    # velocity rows: the row itself is D dq - beta, its derivative D ddq - gamma
    np.testing.assert_allclose((D @ dq - beta), np.concatenate([d1[:nh], value[nh:]]), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(D @ ddq - gamma, np.concatenate([d2[:nh], d1[nh:]]), rtol=1e-8, atol=1e-8)


def check_jacobian(eq, params: dict, q: np.ndarray, t: float = 0.0, h: float = 1e-6) -> None:
    nm = NumericModel(eq, params)
    J = nm.Phi_q(q, t=t)
    fd = np.column_stack([(nm.Phi(q + h * e, t=t) - nm.Phi(q - h * e, t=t)) / (2 * h) for e in np.eye(eq.nq)])
    np.testing.assert_allclose(J, fd, rtol=1e-7, atol=1e-7 * max(1.0, np.abs(fd).max()))
