"""Co-Simulation FMUs do not miss a contact whose gap dips below zero and comes back within one internal
solver step (a grazing impact): a ball thrown up that just reaches a ceiling, simulated with one
communication step and an internal step that spans the whole contact, for every embedded solver, FMI 2
and 3, checked against the closed-form impact time and the motion after it; nor a load switched on and
off again within one internal step (a soft ceiling)."""

from __future__ import annotations

import math

import fmpy
import pytest

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.run import restore_fmi2_message_proxy

from support.contact_models import T_HIT, V0, G, H, thrown_ball, thrown_ball_motion

SOLVERS = {"rk4": 1, "dopri5": 2, "rosenbrock23": 3}


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
    try:
        res = fmpy.simulate_fmu(
            str(fmu), fmi_type="CoSimulation", stop_time=1.0, output_interval=1.0, output=["y", "dy"],
            start_values=start, logger=logger, debug_logging=True,
        )  # fmt: skip
    finally:  # the logger must not outlive the run in fmpy's process-wide FMI 2 message proxy
        restore_fmi2_message_proxy()
    impacts = [float(m.split("t = ")[1].split(":")[0]) for m in log if "impact of contact" in m]
    assert len(impacts) == 1 and abs(impacts[0] - T_HIT) < 1e-6
    y, dy = thrown_ball_motion(1.0)
    assert abs(res["y"][-1] - y) < 1e-6 and abs(res["dy"][-1] - dy) < 1e-6
    assert res["y"][-1] < H  # (without the impact the ball would be at 0.095 on its way down: y = 0.095)


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("method", ("dopri5", "rosenbrock23"))
def test_load_switched_on_and_off_inside_one_internal_step_is_located(tmp_path, version, method):
    """The thrown ball passes a soft ceiling, a spring -k max(y - H, 0) (a switching load), from T_HIT to
    t2 = T_HIT + 2 atan(v1 w / g) / w (w = sqrt(k / m), v1 the speed at T_HIT) and leaves it with -v1:
    both kinks lie inside one internal step of up to 1 s; the motion at t = 1 is the closed form."""
    k = 4.0
    s = sb.System("soft")
    y = s.coordinate("y", 0.0, dq0=V0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    s.gravity((0, -G, 0))
    s.generalized_force("ceiling", y, -k * sb.positive_part(y - H))
    fmu = export_fmu(s, tmp_path / f"soft{version}.fmu", fmi_version=version, kind="cs")
    v1, w = V0 - G * T_HIT, math.sqrt(k)
    t2 = T_HIT + 2 / w * math.atan(v1 * w / G)
    tau = 1.0 - t2
    start = {"solver.method": SOLVERS[method], "solver.max_step": 1.0, "solver.rtol": 1e-10, "solver.atol": 1e-12}
    end = fmpy.simulate_fmu(
        str(fmu), fmi_type="CoSimulation", stop_time=1.0, output_interval=1.0, output=["y", "dy"],
        start_values=start,
    )[-1]  # fmt: skip
    assert abs(end["y"] - (H - v1 * tau - G * tau * tau / 2)) < 1e-6
    assert abs(end["dy"] - (-v1 - G * tau)) < 1e-6


@pytest.mark.parametrize("backend", ("c", "python"))
def test_a_tiny_rk4_step_is_discarded_at_once_not_a_hang(tmp_path, capfd, backend):
    """solver.step = 1e-12 for a communication step of 1 s: Discard naming the cause, the state kept (the
    chunks of the event loop used to run one by one, 10^12 of them)."""
    from fmpy.fmi2 import FMU2Slave

    restore_fmi2_message_proxy()  # (a logger of an earlier run in this process, if any, is gone)
    fmu = export_fmu(thrown_ball(), tmp_path / f"tiny_{backend}.fmu", fmi_version=2, kind="cs", backend=backend)
    md = fmpy.read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(
        guid=md.guid, unzipDirectory=fmpy.extract(str(fmu)), modelIdentifier=md.coSimulation.modelIdentifier
    )
    slave.instantiate()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.exitInitializationMode()
    slave.setInteger([vr["solver.method"]], [SOLVERS["rk4"]])
    slave.setReal([vr["solver.step"]], [1e-12])
    with pytest.raises(Exception, match="discard"):
        slave.doStep(0.0, 1.0)
    assert slave.getReal([vr["y"], vr["dy"]]) == [0.0, V0]  # the state kept
    if backend == "c":  # (fmpy prints the messages of the C FMU)
        assert "needs more than 1000000 internal steps" in capfd.readouterr().out
