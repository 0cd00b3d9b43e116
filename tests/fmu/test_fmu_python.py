"""The pythonfmu backend: same variables and trajectories as the native FMU."""

from __future__ import annotations

import atexit
import ctypes
import functools
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import fmpy
import pytest
from fmpy.validation import validate_fmu

from symbody import ExportError
from symbody.fmu import export_fmu
from symbody.fmu.testing import cached_equations, cached_fmu, fmu_simulation, max_relative_error

ROOT = Path(__file__).resolve().parents[2]
MODELS = [str(ROOT / "examples" / f"{m}.py") for m in ("four_bar", "n_link_pendulum_on_cart")]


@pytest.mark.parametrize(
    "model",
    # the closed loop's Python FMU projects at every step of three solvers: 5 s, in the --slow run
    [pytest.param(MODELS[0], marks=pytest.mark.slow), MODELS[1]],
    ids=lambda p: Path(p).stem,
)
def test_python_fmu_validates_and_matches_native(model):
    eq = cached_equations(model)
    py = cached_fmu(model, 2, "cs", "python")
    c = cached_fmu(model, 2, "cs")
    assert validate_fmu(str(py)) == []
    md_py, md_c = fmpy.read_model_description(str(py)), fmpy.read_model_description(str(c))
    assert [(v.name, v.valueReference) for v in md_py.modelVariables] == [
        (v.name, v.valueReference) for v in md_c.modelVariables
    ]
    assert md_py.coSimulation.needsExecutionTool and not md_py.coSimulation.canGetAndSetFMUstate
    u = {x.name: 0.4 * (i + 1) for i, x in enumerate(eq.inputs)}
    for method in (1, 2, 3):
        sv = dict(u, **{"solver.method": method, "solver.rtol": 1e-9, "solver.atol": 1e-11})
        a = fmu_simulation(py, 0.5, 0.05, start_values=sv)
        b = fmu_simulation(c, 0.5, 0.05, start_values=sv)
        for name in b:
            assert max_relative_error(a[name], b[name]) < 1e-8, (method, name)


def test_python_backend_options_are_checked(tmp_path):
    eq = cached_equations(MODELS[0])
    with pytest.raises(ExportError, match="Co-Simulation"):
        export_fmu(eq, tmp_path / "x.fmu", backend="python", kind="me")
    with pytest.raises(ExportError, match="FMI 2.0"):
        export_fmu(eq, tmp_path / "x.fmu", backend="python", fmi_version=3)
    with pytest.raises(ExportError, match="backend"):
        export_fmu(eq, tmp_path / "x.fmu", backend="fortran")
    assert not (tmp_path / "x.fmu").exists()


def test_a_module_of_the_host_named_like_the_model_does_not_stand_in_for_its_script(tmp_path, monkeypatch):
    """pythonfmu imports the FMU's script by its bare name: a module of that name already imported in
    the host (a test helper, a user's package) made the export fail with "No child class of Fmi2Slave"."""
    import types

    eq = cached_equations(MODELS[0])
    impostor = types.ModuleType(eq.name)
    monkeypatch.setitem(sys.modules, eq.name, impostor)
    fmu = export_fmu(eq, tmp_path / "x.fmu", backend="python")
    assert validate_fmu(str(fmu)) == []
    assert sys.modules[eq.name] is impostor  # the host's module is given back


def test_two_python_fmus_of_models_of_the_same_name_run_each_its_own_model(tmp_path, monkeypatch):
    """Python keeps modules by name: the second Python FMU of a model named like the first (two balls of masses 1
    and 2 kg, the tower crane with two and with four falls) ran the first's model, with OK; a runtime module of
    another FMU (another symbody version) must not stand in for this FMU's either."""
    import types

    from support.contact_models import bouncing_ball

    light = export_fmu(bouncing_ball(1.0, 0.8, 1.0), tmp_path / "light.fmu", backend="python")
    heavy = export_fmu(bouncing_ball(1.0, 0.8, 2.0), tmp_path / "heavy.fmu", backend="python")

    def resting_force(fmu: Path) -> float:
        return float(fmpy.simulate_fmu(str(fmu), stop_time=6.0, output_interval=0.5, output=["N"])["N"][-1])

    assert [resting_force(f) for f in (light, heavy, light)] == pytest.approx([9.81, 19.62, 9.81], rel=1e-9)
    monkeypatch.setitem(sys.modules, "symbody_python_runtime", types.ModuleType("symbody_python_runtime"))
    assert resting_force(heavy) == pytest.approx(19.62, rel=1e-9)


# ---------------------------------------------------------------------------
# refusals and discards of the Python backend (what the C runtime does, within pythonfmu's statuses)
# ---------------------------------------------------------------------------

OK, WARNING, DISCARD, ERROR, FATAL = range(5)


def _root_spring():
    """``x'' = -k sqrt(x)`` from ``x = 1``: the mass reaches ``x = 0`` with a finite speed and the next
    evaluation takes the square root of a negative stretch (a math domain error in Python)."""
    import symbody as sb

    s = sb.System("root_spring")
    k = s.parameter("k", 1.0, min=0.0)
    x = s.coordinate("x", 1.0)
    s.particle("body", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -k * sb.sqrt(x))
    return s


@functools.cache
def _python_fmu(model: str) -> Path:
    if model == "root_spring":
        out = Path(tempfile.mkdtemp(prefix="symbody_pyfmu_test_")) / "root_spring.fmu"
        atexit.register(shutil.rmtree, out.parent, True)
        return export_fmu(_root_spring(), out, backend="python")
    return cached_fmu(model, 2, "cs", "python")


class _Slave:
    """A pythonfmu Co-Simulation instance on fmpy's raw FMI 2 calls: statuses and log messages."""

    def __init__(self, fmu: Path):
        from fmpy import calloc, free
        from fmpy.fmi2 import (
            FMU2Slave,
            fmi2CallbackAllocateMemoryTYPE,
            fmi2CallbackFreeMemoryTYPE,
            fmi2CallbackFunctions,
            fmi2CallbackLoggerTYPE,
        )

        md = fmpy.read_model_description(str(fmu))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.messages: list[tuple[int, str]] = []
        self._dir = fmpy.extract(str(fmu))
        self.fmu = FMU2Slave(guid=md.guid, unzipDirectory=self._dir, modelIdentifier=md.coSimulation.modelIdentifier)
        self.fmu.instantiate()  # loads the library; the instance below has our logger
        self.fmu.freeInstance()

        def log(env, name, status, category, message):
            self.messages.append((int(status), message.decode() if isinstance(message, bytes) else str(message)))

        cb = fmi2CallbackFunctions()
        cb.logger = fmi2CallbackLoggerTYPE(log)
        cb.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        cb.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        self._cb = cb  # kept alive with the instance
        self.c = self.fmu._functions["fmi2Instantiate"](
            b"test", 1, md.guid.encode(), Path(self._dir, "resources").as_uri().encode(), ctypes.byref(cb), 0, 1
        )
        assert self.c

    def call(self, name: str, *args) -> int:
        return self.fmu._functions["fmi2" + name](self.c, *args)

    def set(self, name: str, value: float) -> int:
        return self.call("SetReal", (ctypes.c_uint * 1)(self.vr[name]), 1, (ctypes.c_double * 1)(value))

    def get(self, name: str) -> float:
        v = (ctypes.c_double * 1)()
        assert self.call("GetReal", (ctypes.c_uint * 1)(self.vr[name]), 1, v) == OK
        return v[0]

    def initialize(self, **start) -> int:
        assert self.call("SetupExperiment", 0, 0.0, 0.0, 0, 0.0) == OK
        assert self.call("EnterInitializationMode") == OK
        for name, value in start.items():
            assert self.set(name, value) == OK
        return self.call("ExitInitializationMode")

    def text(self) -> str:
        return "\n".join(m for _, m in self.messages)

    def free(self) -> None:
        self.fmu._functions["fmi2FreeInstance"](self.c)


def _scenario_python_fmu_refuses_steps_from_the_wrong_time_or_past_the_stop_time():
    """A step 1.5 s off the FMU's time at t0 = 1.7e9, or past the defined stop time, changes nothing and is
    logged as an error (pythonfmu returns fmi2Discard: its DoStep has no fmi2Error)."""
    slave = _Slave(_python_fmu(MODELS[0]))
    try:
        t0 = 1.7e9
        assert slave.call("SetupExperiment", 0, 0.0, t0, 1, t0 + 0.05) == OK
        assert slave.call("EnterInitializationMode") == OK and slave.call("ExitInitializationMode") == OK
        theta = slave.get("theta3")
        assert slave.call("DoStep", t0 + 1.5, 0.01, 0) == DISCARD
        assert any(s == ERROR and "currentCommunicationPoint" in m for s, m in slave.messages), slave.text()
        assert slave.get("time") == t0 and slave.get("theta3") == theta
        assert slave.call("DoStep", t0, 0.03, 0) == OK, slave.text()
        assert slave.call("DoStep", t0 + 0.03, 0.03, 0) == DISCARD
        assert any(s == ERROR and "stop time" in m for s, m in slave.messages), slave.text()
        assert slave.call("DoStep", t0 + 0.03, 0.02, 0) == OK, slave.text()
    finally:
        slave.free()


def _isolated(scenario: str, doc: str | None) -> None:
    """Run a scenario of this module in a fresh Python process: pythonfmu keeps process-wide state (the
    slave modules, its embedded interpreter hooks) that breaks when one test process loads, frees and
    loads again the same Python FMU through different hosts."""
    code = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import {Path(__file__).stem} as m; m.{scenario}()"
    code += "; import os; sys.stdout.flush(); sys.stderr.flush(); os._exit(0)"  # see fmu-guarantees: pythonfmu at exit
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{scenario}: {doc}\n{proc.stdout[-4000:]}\n{proc.stderr[-8000:]}"


def _scenario_python_fmu_refuses_a_nan_value_naming_the_variable():
    """SetReal(NaN) is refused as by the C runtime: the value is not stored and an error names the variable.

    pythonfmu 0.7 can return only fmi2OK from a setter (an exception becomes fmi2Fatal, and later
    instantiations in the process crash): so every step is discarded, with the reason, until the host sets
    a valid value; nothing runs with the refused value.
    """
    slave = _Slave(_python_fmu(MODELS[0]))
    try:
        assert slave.initialize() == OK
        before = slave.get("l2")
        slave.set("l2", math.nan)
        assert any(s == ERROR and "'l2'" in m and "not finite" in m for s, m in slave.messages), slave.text()
        assert slave.get("l2") == before
        assert slave.call("DoStep", 0.0, 0.01, 0) == DISCARD
        assert slave.get("time") == 0.0
        slave.set("solver.rtol", -1.0)  # a setting outside its rule, as the native FMU refuses it
        assert "solver.rtol" in slave.text() and "positive" in slave.text()
        assert slave.set("solver.rtol", 1e-6) == OK and slave.set("l2", 2.0) == OK
        assert slave.call("DoStep", 0.0, 0.01, 0) == OK, slave.text()
    finally:
        slave.free()


def _scenario_python_fmu_discards_a_math_domain_error_with_a_message():
    """sqrt of a negative stretch inside a step: Discard with the reason, the state kept, not Fatal."""
    slave = _Slave(_python_fmu("root_spring"))
    try:
        assert slave.initialize() == OK
        t, h = 0.0, 0.25
        # x = 1 - (t^2 ... ) reaches 0 in finite time (energy: dx^2 / 2 = (2 / 3) (1 - x^1.5), T ~ 1.5 s)
        status = OK
        while status == OK and t < 5.0:
            x = slave.get("x")
            status = slave.call("DoStep", t, h, 0)
            t += h if status == OK else 0.0
        assert status == DISCARD, (status, slave.text())
        assert slave.get("x") == x and slave.get("time") == t  # the state at the start of the failed step
        assert any(s == DISCARD and "DoStep" in m and "domain" in m for s, m in slave.messages), slave.text()
    finally:
        slave.free()


def _scenario_python_fmu_rk4_beyond_its_stability_limit_is_discarded_with_advice():
    """A stiff hinge damper under fixed-step rk4: Discard naming solver.step and the adaptive methods."""
    model = str(ROOT / "examples" / "simple_pendulum.py")
    slave = _Slave(_python_fmu(model))
    try:
        assert slave.call("SetInteger", (ctypes.c_uint * 1)(slave.vr["solver.method"]), 1, (ctypes.c_int * 1)(1)) == OK
        assert slave.initialize(c=1e4) == OK  # lambda = -c / (m l^2) = -1e4 1/s; h |lambda| = 10 at h = 1e-3
        assert slave.call("DoStep", 0.0, 0.01, 0) == DISCARD
        assert "solver.step" in slave.text() and "dopri5" in slave.text()
        assert slave.get("time") == 0.0 and abs(slave.get("theta") - 0.5) == 0.0
    finally:
        slave.free()


def _scenario_python_fmu_keeps_the_start_velocity_the_host_sets():
    """A velocity set before initialization is kept; the others follow from the constraints (the same
    as solve_velocities with that velocity independent, and as the native FMU)."""
    from symbody.numeric import solve_velocities

    eq = cached_equations(MODELS[0])
    slave = _Slave(_python_fmu(MODELS[0]))
    try:
        assert slave.initialize(dtheta3=0.7) == OK, slave.text()
        q = [slave.get(c.name) for c in eq.coordinates]
        dq = [slave.get("d" + c.name) for c in eq.coordinates]
    finally:
        slave.free()
    assert dq[2] == 0.7
    ref = solve_velocities(eq, q, independent=["theta3"], values=[0.7])
    assert max(abs(a - b) for a, b in zip(dq, ref.values)) < 1e-9


def test_python_fmu_refuses_a_nan_value_naming_the_variable():
    _isolated(
        _scenario_python_fmu_refuses_a_nan_value_naming_the_variable.__name__,
        _scenario_python_fmu_refuses_a_nan_value_naming_the_variable.__doc__,
    )


def test_python_fmu_discards_a_math_domain_error_with_a_message():
    _isolated(
        _scenario_python_fmu_discards_a_math_domain_error_with_a_message.__name__,
        _scenario_python_fmu_discards_a_math_domain_error_with_a_message.__doc__,
    )


def test_python_fmu_rk4_beyond_its_stability_limit_is_discarded_with_advice():
    _isolated(
        _scenario_python_fmu_rk4_beyond_its_stability_limit_is_discarded_with_advice.__name__,
        _scenario_python_fmu_rk4_beyond_its_stability_limit_is_discarded_with_advice.__doc__,
    )


def test_python_fmu_keeps_the_start_velocity_the_host_sets():
    _isolated(
        _scenario_python_fmu_keeps_the_start_velocity_the_host_sets.__name__,
        _scenario_python_fmu_keeps_the_start_velocity_the_host_sets.__doc__,
    )


def test_python_fmu_refuses_steps_from_the_wrong_time_or_past_the_stop_time():
    _isolated(
        _scenario_python_fmu_refuses_steps_from_the_wrong_time_or_past_the_stop_time.__name__,
        _scenario_python_fmu_refuses_steps_from_the_wrong_time_or_past_the_stop_time.__doc__,
    )


def _scenario_python_fmu_refuses_an_invalid_experiment_tolerance():
    """A defined tolerance that is NaN or not positive was ignored; it is logged as an error and every step is
    discarded with the reason, as for a startTime that is not finite."""
    slave = _Slave(_python_fmu(MODELS[0]))
    try:
        assert slave.call("SetupExperiment", 1, math.nan, 0.0, 0, 0.0) == OK  # pythonfmu can return only OK
        assert slave.call("EnterInitializationMode") == OK and slave.call("ExitInitializationMode") == OK
        assert any(s == ERROR and "tolerance nan is invalid" in m for s, m in slave.messages), slave.text()
        assert slave.call("DoStep", 0.0, 0.01, 0) == DISCARD
    finally:
        slave.free()


def test_python_fmu_refuses_an_invalid_experiment_tolerance():
    _isolated(
        _scenario_python_fmu_refuses_an_invalid_experiment_tolerance.__name__,
        _scenario_python_fmu_refuses_an_invalid_experiment_tolerance.__doc__,
    )


def _scenario_python_fmu_refuses_a_restitution_outside_0_1():
    """A restitution outside [0, 1] set on a parameter is refused as by the C runtime (and symbody.numeric):
    an error naming the contact, the old value kept, every step discarded until a valid value is set."""
    sys.path.insert(0, str(ROOT / "tests"))
    from support.contact_models import bouncing_ball

    out = Path(tempfile.mkdtemp(prefix="symbody_pyfmu_test_")) / "ball.fmu"
    atexit.register(shutil.rmtree, out.parent, True)
    slave = _Slave(export_fmu(bouncing_ball(1.0, 0.8, 2.0), out, backend="python"))
    try:
        assert slave.initialize() == OK
        for value in (-0.5, 1.5):
            slave.set("e", value)
            message = f"the restitution is {value:g}; it must lie in [0, 1]"
            assert any(s == ERROR and "'floor'" in m and message in m for s, m in slave.messages), slave.text()
            assert slave.get("e") == 0.8
            assert slave.call("DoStep", 0.0, 0.01, 0) == DISCARD
        slave.set("e", 0.5)
        assert slave.get("e") == 0.5 and slave.call("DoStep", 0.0, 0.01, 0) == OK
    finally:
        slave.free()


def test_python_fmu_refuses_a_restitution_outside_0_1():
    _isolated(
        _scenario_python_fmu_refuses_a_restitution_outside_0_1.__name__,
        _scenario_python_fmu_refuses_a_restitution_outside_0_1.__doc__,
    )
