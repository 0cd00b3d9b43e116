"""Co-Simulation FMUs do not miss a contact whose gap dips below zero and comes back within one internal
solver step (a grazing impact): a ball thrown up that just reaches a ceiling, simulated with one
communication step and an internal step that spans the whole contact, for every embedded solver, FMI 2
and 3, checked against the closed-form impact time and the motion after it."""

from __future__ import annotations

import math

import fmpy
import pytest

import symbody as sb
from symbody.fmu import export_fmu

G = 9.81
V0, H, E = 5.0, 1.2, 0.5  # thrown up at V0 under a ceiling at H (apex V0^2 / 2 G = 1.274 above it)
T_HIT = (V0 - math.sqrt(V0 * V0 - 2 * G * H)) / G  # 0.3867: the gap H - y is below zero until 0.6327
SOLVERS = {"rk4": 1, "dopri5": 2, "rosenbrock23": 3}


def thrown_ball() -> sb.System:
    s = sb.System("graze")
    y = s.coordinate("y", 0.0, dq0=V0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.unilateral("ceiling", H - y, restitution=E)
    return s


def exact(t: float) -> tuple[float, float]:
    """Height and velocity: free flight, then the rebound from the ceiling at T_HIT with -E times the
    approach speed."""
    if t < T_HIT:
        return V0 * t - G * t * t / 2, V0 - G * t
    v = -E * (V0 - G * T_HIT)
    tau = t - T_HIT
    return H + v * tau - G * tau * tau / 2, v - G * tau


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("method", SOLVERS)
def test_grazing_impact_inside_one_internal_step_is_found(tmp_path, version, method):
    fmu = export_fmu(thrown_ball(), tmp_path / f"graze{version}.fmu", fmi_version=version, kind="cs")
    log: list[str] = []

    def logger(*args):
        if args[-2] == b"logEvents":
            log.append(args[-1].decode())

    # rk4 takes one internal step of 1 s; the adaptive solvers meet a quadratic motion (no error to
    # control) and grow their steps to max_step = 1 s: the gap is positive at both ends of the step
    start = {"solver.method": SOLVERS[method], "solver.step": 1.0, "solver.max_step": 1.0,
             "solver.rtol": 1e-10, "solver.atol": 1e-12}  # fmt: skip
    res = fmpy.simulate_fmu(
        str(fmu), fmi_type="CoSimulation", stop_time=1.0, output_interval=1.0, output=["y", "dy"],
        start_values=start, logger=logger, debug_logging=True,
    )  # fmt: skip
    impacts = [float(m.split("t = ")[1].split(":")[0]) for m in log if "impact of contact" in m]
    assert len(impacts) == 1 and abs(impacts[0] - T_HIT) < 1e-6
    y, dy = exact(1.0)
    assert abs(res["y"][-1] - y) < 1e-6 and abs(res["dy"][-1] - dy) < 1e-6
    assert res["y"][-1] < H  # (without the impact the ball would be at 0.095 on its way down: y = 0.095)
