"""The adaptive solvers of the C runtime follow solver.rtol in a model without events.

The driven oscillator of ``test_rk4_stability.py`` (closed form, no switching function): rosenbrock23, a
second-order method with error control per step, takes about ``rtol^(-1/3)`` steps and keeps the error of
the position to a modest multiple of ``rtol`` times the step count; a tighter tolerance is more accurate
and costs more steps.  (Models with contacts or stick-slip friction hold at least rtol 1e-9 whatever solver.rtol says:
``SB_EVENT_RTOL``, docs/reference/fmu-export.md.)
"""

from __future__ import annotations

from test_rk4_stability import Q1, closed_form, driven_oscillator

from symbody.fmu import export_fmu

from support.solver_log import logged_solver


def run(fmu, method: int, rtol: float) -> tuple[int, float]:
    """(accepted steps, error of q1 relative to its amplitude at t = 1 s)."""
    with logged_solver(fmu, method, rtol) as (s, messages):
        for _ in range(100):
            s.step(0.01)
        q1 = s.get("q1")[0]
    return sum("accepted step" in m for m in messages), abs(q1 - closed_form(1.0)[0]) / Q1


def test_rosenbrock23_follows_its_tolerance(tmp_path):
    fmu = export_fmu(driven_oscillator(), tmp_path / "driven.fmu", fmi_version=2, kind="cs")
    (n_loose, e_loose), (n_tight, e_tight) = run(fmu, 3, 1e-3), run(fmu, 3, 1e-8)
    # order 2 with a third-order error estimate: steps ~ rtol^(-1/3), a factor of 46 here
    assert 15 < n_tight / n_loose < 150, (n_loose, n_tight)
    # the global error: at most the local tolerance summed over the steps, and far below for the tight one
    assert e_loose < 10 * 1e-3 * n_loose and e_tight < 10 * 1e-8 * n_tight, (e_loose, e_tight)
    assert e_tight < 1e-2 * e_loose
