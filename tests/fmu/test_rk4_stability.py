"""rk4's stability guard judges a step by the spectral radius of the Jacobian, not by its norm.

A chain of relative coordinates has a strongly non-normal Jacobian: ``|J v| / |v|`` (bounded by the norm of
``J``) exceeds the largest ``|lambda|`` by orders of magnitude, and a guard built on it refused rk4 steps that
are stable.  Two oscillators, the first driven by the second through a huge coupling ``K``,

    q1'' = -w1^2 q1 + K q2,    q2'' = -w2^2 q2,

have the eigenvalues ``+-i w1``, ``+-i w2`` whatever ``K`` (the Jacobian is block triangular) and, from rest
at ``q2 = a`` with the first in equilibrium, ``q1 = K a / w1^2``, the closed form ``q2 = a cos(w2 t)``,
``q1 = K a (cos(w2 t) / (w1^2 - w2^2) + (1 / w1^2 - 1 / (w1^2 - w2^2)) cos(w1 t))``: the stages then see the
second's acceleration through ``K``.  rk4 at ``h w2 = 0.02`` is accepted and follows it; a
stiff motion (``|h lambda| = 10``) is still refused with the advice (C runtime:
``test_robustness_fmu.test_rk4_beyond_its_stability_limit_is_discarded_with_advice``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_robustness_fmu import OK, Instance, Unit

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu import python_settings as setting
from symbody.fmu.python_solvers import Solvers, StepFailure

W1, W2, K, A = 10.0, 20.0, 1e8, 1e-6  # 1/s, 1/s, 1/s^2, m: |J v| / |v| up to 1e8 1/s, spectral radius 20 1/s
Q1 = K * A / W1**2  # the first in equilibrium under the second's pull


def driven_oscillator() -> sb.System:
    s = sb.System("driven_oscillator")
    q1, q2 = s.coordinate("q1", Q1, unit="m"), s.coordinate("q2", A, unit="m")
    s.particle("first", s.point("P1", s.origin, (q1, 0, 0)), 1.0)
    s.particle("second", s.point("P2", s.origin, (0, q2, 0)), 1.0)
    s.generalized_force("driven", q1, -(W1**2) * q1 + K * q2)
    s.generalized_force("spring", q2, -(W2**2) * q2)
    return s


def closed_form(t: float) -> tuple[float, float]:
    d = W1**2 - W2**2
    return K * A * (math.cos(W2 * t) / d + (1 / W1**2 - 1 / d) * math.cos(W1 * t)), A * math.cos(W2 * t)


@pytest.fixture(scope="module")
def driven_fmus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rk4_stability")
    return {v: export_fmu(driven_oscillator(), folder / f"driven{v}.fmu", fmi_version=v, kind="cs") for v in (2, 3)}


@pytest.mark.parametrize("version", [2, 3])
def test_rk4_accepts_stable_steps_of_a_non_normal_model(driven_fmus, version):
    inst = Instance(Unit.open(driven_fmus[version]), "cs")
    try:
        inst.initialize(**{"solver.method": 1, "solver.step": 1e-3})
        H = 0.01
        for k in range(100):
            assert inst.do_step(k * H, H)[0] == OK, inst.text()[-2000:]
        q1, q2 = inst.get("q1", "q2")
        e1, e2 = closed_form(1.0)
        amplitude = Q1
        # rk4's global error at h w2 = 0.02 is ~ (h w)^4 w t, far below 1e-6 of the amplitude
        assert abs(q1 - e1) < 1e-6 * amplitude and abs(q2 - e2) < 1e-6 * A, (q1, e1, q2, e2)
    finally:
        inst.free()


class Linear(Solvers):
    """x' = J x under the Python FMUs' rk4."""

    def __init__(self, jacobian: np.ndarray, x0: np.ndarray, step: float):
        self.settings = [0.0] * 10
        self.settings[setting.METHOD], self.settings[setting.STEP] = setting.RK4, step
        self.J, self.x = jacobian, x0.astype(float)

    def derivatives(self, t, x):
        return self.J @ x

    def project(self, t, x):
        pass


def first_order(stiffness: np.ndarray) -> np.ndarray:
    """The Jacobian of q'' = -stiffness q in the state [q; dq]."""
    n = len(stiffness)
    return np.block([[np.zeros((n, n)), np.eye(n)], [-stiffness, np.zeros((n, n))]])


def test_python_rk4_accepts_stable_steps_of_a_non_normal_model():
    J = first_order(np.array([[W1**2, -K], [0.0, W2**2]]))
    assert np.linalg.norm(J, 2) > 1e5 * max(abs(np.linalg.eigvals(J)))
    m = Linear(J, np.array([Q1, A, 0.0, 0.0]), 1e-3)
    for k in range(100):
        m._rk4_left = 0  # as each communication step of the FMU
        m.integrate(k * 0.01, (k + 1) * 0.01)
    e1, e2 = closed_form(1.0)
    amplitude = Q1
    assert abs(m.x[0] - e1) < 1e-6 * amplitude and abs(m.x[1] - e2) < 1e-6 * A


def test_python_rk4_accepts_a_chain_with_a_huge_coupling():
    """An upper triangular chain (eigenvalues -100..-1000 1/s, couplings 3e5 1/s) at h |lambda| <= 0.5."""
    n = 6
    J = np.diag(-np.linspace(100.0, 1000.0, n)) + np.diag(np.full(n - 1, 3e5), 1)
    x0 = np.ones(n)
    m = Linear(J, x0, 5e-4)
    m.integrate(0.0, 0.02)
    w, V = np.linalg.eig(J)
    exact = (V @ (np.exp(w * 0.02) * np.linalg.solve(V, x0))).real
    assert np.max(np.abs(m.x - exact)) < 1e-4 * np.max(np.abs(exact))


@pytest.mark.parametrize("stiffness", [np.array([[1e8]]), np.array([[1e8, -K], [0.0, W2**2]])])
def test_python_rk4_still_refuses_an_unstable_step(stiffness):
    """|h lambda| = 1e4 * 1e-3 = 10, beyond rk4's 2.8 (alone, and driving a non-normal chain)."""
    n = len(stiffness)
    m = Linear(first_order(stiffness), np.r_[np.ones(n), np.zeros(n)], 1e-3)
    with pytest.raises(StepFailure, match=r"rk4 is unstable .*\|lambda\| ~ 1e\+04 .*solver.step"):
        m.integrate(0.0, 0.01)
