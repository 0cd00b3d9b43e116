"""Native FMUs under abuse, driven through fmpy's low-level API (FMI 2.0 and 3.0, CS and ME).

* Bad calls: NaN or infinite inputs and parameters, out-of-range parameters
  (negative mass or length, zero solver step), calls in the wrong state,
  unknown value references: ``Error`` with a log message naming the variable
  or the function, and nothing changes.
* Numerical faults in a step (Newton failure of the projection, singular mass
  matrix, step size underflow of dopri5 and rosenbrock23): ``Discard`` with a
  message, the state stays at the start of the step, and the host can retry
  with a smaller step.
* Many instances of one loaded library, in parallel threads, give the results
  of one instance alone; 1000 instantiate/step/free cycles leak nothing.
* A randomized call-sequence test (hypothesis) checks every status against the
  FMI state machine of symbody FMUs.

The C test hosts of ``tests/fmu/c`` (``test_robustness_c.py``) cover every FMI
function with sanitizers; here the FMU is exercised the way Python users call it.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import itertools
import math
import shutil
import sys
import tempfile
import threading
from ctypes import byref, c_bool, c_double, c_int, c_int64, c_uint, c_uint32
from dataclasses import dataclass
from pathlib import Path

import fmpy
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.testing import cached_fmu

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = str(ROOT / "examples" / "simple_pendulum.py")
FOUR_BAR = str(ROOT / "examples" / "four_bar.py")

OK, WARNING, DISCARD, ERROR, FATAL = range(5)
_WORKDIR = Path(tempfile.mkdtemp(prefix="symbody_robustness_"))
atexit.register(shutil.rmtree, _WORKDIR, True)


# ---------------------------------------------------------------------------
# test models
# ---------------------------------------------------------------------------


def radial_fall() -> sb.System:
    """A point mass falling radially into an attracting centre, ``r'' = -mu / r^2`` (Kepler's collision orbit).

    From rest at ``r = 1`` it reaches ``r = 0`` at ``T = pi / (2 sqrt(2 mu))`` (1.1107 s for ``mu = 1``) with
    an infinite speed: no step size carries an integrator past that instant.
    """
    s = sb.System("radial_fall")
    mu = s.parameter("mu", 1.0, unit="m3/s2", description="gravitational parameter of the centre", min=0.0)
    r = s.coordinate("r", 1.0, unit="m")
    s.particle("body", s.point("P", s.origin, (r, 0, 0)), 1.0)
    s.generalized_force("attraction", r, -mu / r**2)
    return s


COLLISION_TIME = math.pi / (2 * math.sqrt(2.0))


def cartesian_pendulum() -> sb.System:
    """A pendulum in Cartesian coordinates (one holonomic constraint).

    The mass declares a range that admits negative values, so that the runtime's own check of an
    indefinite mass matrix is exercised (a mass parameter without a declared range gets ``min = 0``).
    """
    s = sb.System("cartesian_pendulum")
    L, g = s.parameter("L", 1.0, unit="m"), s.parameter("g", 9.81, unit="m/s2")
    m = s.parameter("m", 1.0, unit="kg", min=-1e6)
    x, y = s.coordinate("x", 0.6, unit="m"), s.coordinate("y", -0.8, unit="m")
    s.particle("bob", s.point("P", s.origin, (x, y, 0)), m)
    s.gravity((0, -g, 0))
    s.generalized_force("push", x, s.input("F", unit="N"))
    s.constraint("rod", x**2 + y**2 - L**2)
    s.fix_initial(x)
    s.output("slope", y / x, description="undefined when the rod hangs straight down (x = 0)")
    return s


def root_spring() -> sb.System:
    """``x'' = -k sqrt(x)``: finite at ``x = 0``, where its derivative ``-k / (2 sqrt(x))`` is infinite."""
    s = sb.System("root_spring")
    k = s.parameter("k", 1.0, min=0.0)
    x = s.coordinate("x", 1.0)
    s.particle("body", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -k * sb.sqrt(x))
    return s


def coulomb_oscillator() -> sb.System:
    """``x'' = -x - F sign(x')``: a unit oscillator with dry friction.  Each half period (pi) its amplitude
    drops by ``2 F``: from 3 with ``F = 0.35`` to -2.3, 1.6, -0.9, 0.2, where it sticks (``|x| < F``).  The
    friction force switches sign at each turning point, inside rk4 steps."""
    s = sb.System("coulomb_oscillator")
    F = s.parameter("F", 0.35, min=0.0)
    x = s.coordinate("x", 3.0)
    s.particle("body", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring_and_friction", x, -x - F * sb.sign(s.coordinate_of(x).dq))
    return s


BUILDERS = {
    "radial_fall": radial_fall,
    "cartesian_pendulum": cartesian_pendulum,
    "root_spring": root_spring,
    "coulomb_oscillator": coulomb_oscillator,
}


@functools.cache
def model_fmu(model: str, version: int, kind: str = "both") -> Path:
    """FMU of an example file (path) or of a test model (name), built once per session."""
    if model in BUILDERS:
        return export_fmu(BUILDERS[model](), _WORKDIR / f"{model}{version}{kind}.fmu", fmi_version=version, kind=kind)
    return cached_fmu(model, version, kind)


# ---------------------------------------------------------------------------
# a host on fmpy's low-level API that sees raw statuses
# ---------------------------------------------------------------------------


@dataclass
class Unit:
    """An extracted FMU: all its instances share one loaded library."""

    path: Path
    md: object
    directory: str
    fmi3: bool
    variables: dict

    @classmethod
    @functools.cache
    def open(cls, path: Path) -> Unit:
        md = fmpy.read_model_description(str(path))
        directory = str(fmpy.extract(str(path), unzipdir=str(_WORKDIR / f"{Path(path).stem}_{id(md)}")))
        return cls(Path(path), md, directory, md.fmiVersion.startswith("3"), {v.name: v for v in md.modelVariables})

    def vr(self, name: str) -> int:
        return self.variables[name].valueReference

    @functools.cached_property
    def functions(self) -> dict:
        """The FMI functions of both interfaces (fmpy's prototypes), bound to the one loaded library."""
        from fmpy.fmi2 import FMU2Model, FMU2Slave
        from fmpy.fmi3 import FMU3Model, FMU3Slave

        table: dict = {}
        self.loaded = []  # fmpy objects holding the library; never freed during the session
        identifier = (self.md.coSimulation or self.md.modelExchange).modelIdentifier
        for cls in (FMU3Model, FMU3Slave) if self.fmi3 else (FMU2Model, FMU2Slave):
            # the library exports the functions of both interfaces, also when it provides only one
            fmu = cls(guid=self.md.guid, unzipDirectory=self.directory, modelIdentifier=identifier)
            self.loaded.append(fmu)
            table.update(fmu._functions)
        return table


def _text(b) -> str:
    return b.decode() if isinstance(b, bytes) else str(b)


_INSTANCES: dict = {}  # FMI 2 instances by their componentEnvironment
_KEYS = itertools.count(1)


@functools.cache
def _fmi2_logger():
    """One FMI 2 logger for all instances (fmpy's formatting proxy holds a single one); it dispatches the
    message to the instance whose componentEnvironment it receives."""
    from fmpy.fmi2 import fmi2CallbackLoggerTYPE

    def dispatch(env, name, status, category, message):
        inst = _INSTANCES.get(env)
        if inst is not None:
            inst._log(status, category, message)

    return fmi2CallbackLoggerTYPE(dispatch)


class Instance:
    """One FMU instance; every call returns the FMU's status (no exception), messages are recorded."""

    def __init__(self, unit: Unit, kind: str = "cs"):
        self.unit, self.kind, self.fmi3 = unit, kind, unit.fmi3
        self.messages: list[tuple[int, str, str]] = []  # (status, category, message)
        self.terminate_requested = False
        self.f = unit.functions
        self.prefix = "fmi3" if self.fmi3 else "fmi2"
        self.nx = len(unit.md.derivatives) if kind == "me" else 0
        guid = unit.md.guid.encode()
        if self.fmi3:
            from fmpy.fmi3 import fmi3IntermediateUpdateCallback, fmi3LogMessageCallback

            self._callbacks = (fmi3LogMessageCallback(self._log), fmi3IntermediateUpdateCallback())
            resources = (unit.directory + "/resources/").encode()
            if kind == "cs":
                self.c = self.f["fmi3InstantiateCoSimulation"](
                    b"robust", guid, resources, False, False, False, False, (c_uint32 * 0)(), 0, None, *self._callbacks
                )
            else:
                self.c = self.f["fmi3InstantiateModelExchange"](
                    b"robust", guid, resources, False, False, None, self._callbacks[0]
                )
        else:
            from fmpy import calloc, free
            from fmpy.fmi2 import fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE, fmi2CallbackFunctions
            from fmpy.logging import addLoggerProxy

            cb = fmi2CallbackFunctions()
            cb.logger = _fmi2_logger()
            cb.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
            cb.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
            cb.componentEnvironment = self._key = next(_KEYS)
            _INSTANCES[self._key] = self
            addLoggerProxy(byref(cb))  # fmpy's proxy formats the message; it keeps one logger per process
            self._callbacks = cb
            uri = Path(unit.directory, "resources").as_uri().encode()
            self.c = self.f["fmi2Instantiate"](b"robust", 0 if kind == "me" else 1, guid, uri, byref(cb), 0, 0)
        if not self.c:
            raise RuntimeError(f"instantiation failed: {self.text()}")

    def _log(self, *args) -> None:
        status, category, message = args[-3:]
        self.messages.append((int(status), _text(category), _text(message)))

    def call(self, name: str, *args) -> int:
        return self.f[self.prefix + name](self.c, *args)

    def text(self, since: int = 0) -> str:
        return "\n".join(m for _, _, m in self.messages[since:])

    # -- values ------------------------------------------------------------------
    def _vrs(self, vrs):
        return (c_uint32 if self.fmi3 else c_uint)(*vrs) if vrs else None

    def set_real(self, vr: int, value: float) -> int:
        v = (c_double * 1)(value)
        return (
            self.call("SetFloat64", self._vrs([vr]), 1, v, 1)
            if self.fmi3
            else self.call("SetReal", self._vrs([vr]), 1, v)
        )

    def get_real(self, vr: int) -> tuple[int, float]:
        v = (c_double * 1)(math.nan)
        s = (
            self.call("GetFloat64", self._vrs([vr]), 1, v, 1)
            if self.fmi3
            else self.call("GetReal", self._vrs([vr]), 1, v)
        )
        return s, v[0]

    def set_int(self, vr: int, value: int) -> int:
        if self.fmi3:
            return self.call("SetInt64", self._vrs([vr]), 1, (c_int64 * 1)(value), 1)
        return self.call("SetInteger", self._vrs([vr]), 1, (c_int * 1)(value))

    def set_bool(self, vr: int, value: bool) -> int:
        if self.fmi3:
            return self.call("SetBoolean", self._vrs([vr]), 1, (c_bool * 1)(value), 1)
        return self.call("SetBoolean", self._vrs([vr]), 1, (c_int * 1)(int(value)))

    def set(self, name: str, value) -> int:
        var = self.unit.variables[name]
        if var.type == "Boolean":
            return self.set_bool(var.valueReference, bool(value))
        if var.type in ("Integer", "Int64"):
            return self.set_int(var.valueReference, int(value))
        return self.set_real(var.valueReference, float(value))

    def get(self, *names: str) -> np.ndarray:
        out = []
        for n in names:
            status, v = self.get_real(self.unit.vr(n))
            assert status == OK, (n, status, self.text())
            out.append(v)
        return np.array(out)

    # -- life cycle --------------------------------------------------------------
    def enter_initialization(self, start: float = 0.0) -> int:
        if self.fmi3:
            return self.call("EnterInitializationMode", False, 0.0, start, False, 0.0)
        s = self.call("SetupExperiment", 0, 0.0, start, 0, 0.0)
        return s if s != OK else self.call("EnterInitializationMode")

    def exit_initialization(self) -> int:
        return self.call("ExitInitializationMode")

    def initialize(self, **values) -> None:
        assert self.enter_initialization() == OK, self.text()
        for name, value in values.items():
            assert self.set(name, value) == OK, self.text()
        assert self.exit_initialization() == OK, self.text()
        if self.kind == "me":
            assert self.enter_continuous() == OK, self.text()

    def do_step(self, t: float, h: float) -> tuple[int, float | None]:
        """DoStep; returns the status and (FMI 3) lastSuccessfulTime, (FMI 2) GetRealStatus(fmi2LastSuccessfulTime).

        ``self.terminate`` is the FMU's request to end the simulation: FMI 3 ``terminateSimulation``,
        FMI 2 ``fmi2GetBooleanStatus(fmi2Terminated)``.
        """
        last = c_double(math.nan)
        if self.fmi3:
            flags = [c_bool(True) for _ in range(3)]
            s = self.call("DoStep", t, h, False, *(byref(f) for f in flags), byref(last))
            assert not flags[0].value and not flags[2].value  # eventHandlingNeeded, earlyReturn
            self.terminate_requested = flags[1].value
        else:
            s = self.call("DoStep", t, h, 0)
            self.call("GetRealStatus", 2, byref(last))  # fmi2LastSuccessfulTime
            flag = c_int(7)
            if self.call("GetBooleanStatus", 3, byref(flag)) == OK:  # fmi2Terminated
                self.terminate_requested = bool(flag.value)
        if s in (OK, WARNING) and h > 0:  # a step that succeeds withdraws the request (an empty step: nothing)
            assert not self.terminate_requested
        return s, last.value

    def step(self, h: float) -> int:
        return self.do_step(self.time(), h)[0]

    def time(self) -> float:
        return float(self.get("time")[0])

    def terminate(self) -> int:
        return self.call("Terminate")

    def reset(self) -> int:
        return self.call("Reset")

    # -- Model Exchange ------------------------------------------------------------
    def enter_event(self) -> int:
        return self.call("EnterEventMode")

    def enter_continuous(self) -> int:
        return self.call("EnterContinuousTimeMode")

    def states(self) -> tuple[int, np.ndarray]:
        x = (c_double * max(self.nx, 1))()
        s = self.call("GetContinuousStates", x, self.nx)
        return s, np.array(x[: self.nx])

    def set_states(self, x) -> int:
        return self.call("SetContinuousStates", (c_double * len(x))(*x), len(x))

    def set_time(self, t: float) -> int:
        return self.call("SetTime", t)

    def derivatives(self) -> tuple[int, np.ndarray]:
        dx = (c_double * max(self.nx, 1))()
        s = self.call("GetContinuousStateDerivatives" if self.fmi3 else "GetDerivatives", dx, self.nx)
        return s, np.array(dx[: self.nx])

    # -- FMU state -----------------------------------------------------------------
    def get_fmu_state(self):
        state = ctypes.c_void_p()
        assert self.call("GetFMUState" if self.fmi3 else "GetFMUstate", byref(state)) == OK
        return state

    def set_fmu_state(self, state) -> int:
        return self.call("SetFMUState" if self.fmi3 else "SetFMUstate", state)

    def free_fmu_state(self, state) -> int:
        return self.call("FreeFMUState" if self.fmi3 else "FreeFMUstate", byref(state))

    def free(self) -> None:
        self.f[self.prefix + "FreeInstance"](self.c)  # the library stays loaded for other instances
        _INSTANCES.pop(getattr(self, "_key", None), None)


def open_instance(model: str, version: int, kind: str = "cs") -> Instance:
    return Instance(Unit.open(model_fmu(model, version)), kind)


def snapshot(inst: Instance) -> np.ndarray:
    """Time, states, inputs and parameters of an instance."""
    names = [v.name for v in inst.unit.md.modelVariables if v.type in ("Real", "Float64")]
    names = [
        n
        for n in names
        if inst.unit.variables[n].causality in ("independent", "input", "parameter")
        or inst.unit.variables[n].initial in ("exact", "approx")
    ]
    return inst.get(*names)


VERSIONS_KINDS = [(2, "cs"), (2, "me"), (3, "cs"), (3, "me")]


# ---------------------------------------------------------------------------
# bad values and calls in the wrong state
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("version,kind", VERSIONS_KINDS)
def test_bad_values_are_errors_naming_the_variable(version, kind):
    inst = open_instance(PENDULUM, version, kind)
    try:
        vr = inst.unit.vr
        cases = [("T", math.nan), ("T", math.inf), ("g", -math.inf), ("m", -1.0), ("l", -0.5), ("c", math.nan)]
        if kind == "cs":
            cases += [("solver.step", 0.0), ("solver.rtol", -1e-6), ("solver.max_step", -1.0)]
        for phase in ("instantiated", "running"):
            if phase == "running":
                inst.initialize()
                if kind == "me":
                    inst.enter_event()  # parameters are tunable in event mode
            for name, value in cases:
                before = inst.get(name)[0]
                n = len(inst.messages)
                assert inst.set_real(vr(name), value) == ERROR, (name, value)
                assert f"'{name}'" in inst.text(n) and inst.messages[-1][0] == ERROR
                assert inst.get(name)[0] == before
            if kind == "cs":
                n = len(inst.messages)
                for method in (0, 4, -7):
                    assert inst.set_int(vr("solver.method"), method) == ERROR
                assert "'solver.method'" in inst.text(n)
            first = min(v.valueReference for v in inst.unit.md.modelVariables)  # 0 (FMI 2) or 1 (FMI 3)
            past = first + len(inst.unit.md.modelVariables)
            for bad in (past, 10**6, 2**32 - 1, *range(first)):
                n = len(inst.messages)
                assert inst.get_real(bad)[0] == ERROR and inst.set_real(bad, 1.0) == ERROR
                assert f"unknown value reference {bad}" in inst.text(n)
    finally:
        inst.free()


@pytest.mark.parametrize("version,kind", VERSIONS_KINDS)
def test_calls_in_the_wrong_state_are_errors_naming_the_function(version, kind):
    inst = open_instance(PENDULUM, version, kind)
    fn = f"fmi{version}"
    try:
        n = len(inst.messages)
        assert inst.do_step(0.0, 0.1)[0] == ERROR  # doStep before initialization
        assert f"{fn}DoStep" in inst.text(n)
        assert inst.exit_initialization() == ERROR and inst.terminate() == ERROR
        assert inst.derivatives()[0] == ERROR
        inst.initialize()
        n = len(inst.messages)
        assert inst.set("theta", 0.1) == ERROR  # states are fixed after initialization
        assert "'theta' cannot be set" in inst.text(n)
        assert inst.enter_initialization() == ERROR
        if kind == "me":
            n = len(inst.messages)
            assert inst.set("m", 2.0) == ERROR  # parameters are fixed in continuous-time mode
            assert "'m' cannot be set in continuous-time mode" in inst.text(n)
            assert inst.do_step(0.0, 0.1)[0] == ERROR
            assert inst.enter_event() == OK and inst.set("m", 2.0) == OK and inst.enter_continuous() == OK
        else:
            n = len(inst.messages)
            assert inst.set_time(1.0) == ERROR and inst.derivatives()[0] == ERROR
            t = inst.time()
            for t0, h in ((t + 1.0, 0.1), (t, -0.1), (t, math.nan), (t, math.inf), (math.nan, 0.1)):
                assert inst.do_step(t0, h)[0] == ERROR
            assert "currentCommunicationPoint" in inst.text(n) and "communicationStepSize" in inst.text(n)
            assert inst.time() == t
            assert inst.set("m", 2.0) == OK  # tunable parameter between steps
            assert inst.step(0.1) == OK
        assert inst.terminate() == OK
        n = len(inst.messages)
        assert inst.set("T", 1.0) == ERROR  # no Set once terminated (FMI 2.0.4 tables, FMI 3.0.2 section 2.3.9)
        assert f"{fn}{'SetFloat64' if version == 3 else 'SetReal'}: not allowed in terminated" in inst.text(n)
        assert inst.reset() == OK
        inst.initialize()
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_an_fmu_without_the_interface_refuses_to_instantiate(version):
    unit = Unit.open(cached_fmu(PENDULUM, version, "cs"))
    with pytest.raises(RuntimeError, match="built without the Model Exchange interface"):
        Instance(unit, "me")
    unit = Unit.open(cached_fmu(PENDULUM, version, "me"))
    with pytest.raises(RuntimeError, match="built without the Co-Simulation interface"):
        Instance(unit, "cs")


# ---------------------------------------------------------------------------
# numerical faults: Discard, state kept, retry
# ---------------------------------------------------------------------------


def _discarded_step(inst: Instance, h: float, text: str) -> None:
    """A step that must be discarded: status, message, lastSuccessfulTime, state unchanged."""
    t, before, n = inst.time(), snapshot(inst), len(inst.messages)
    status, last = inst.do_step(t, h)
    assert status == DISCARD, inst.text(n)
    assert text in inst.text(n) and f"state kept at t = {t:.17g}" in inst.text(n)
    assert any(s == DISCARD for s, _, _ in inst.messages[n:])
    assert last == t
    assert np.array_equal(snapshot(inst), before)


@pytest.mark.parametrize("version", (2, 3))
def test_newton_failure_of_the_projection_is_discarded_and_the_retry_continues_exactly(version):
    """four_bar: a ground link too long to close the loop makes the projection fail; restoring it continues
    bit-identically to a run that never failed (the step size memory of dopri5 included)."""
    inst, ref = open_instance(FOUR_BAR, version), open_instance(FOUR_BAR, version)
    try:
        for i in (inst, ref):
            i.initialize(My2=2.0)
            for _ in range(3):
                assert i.step(0.05) == OK
        assert inst.set("l4", 10.0) == OK
        _discarded_step(inst, 0.05, "Newton iteration did not converge: |loop")
        assert inst.set("l4", 1.6) == OK
        for _ in range(3):
            assert inst.step(0.05) == OK and ref.step(0.05) == OK
        names = ["time", "theta1", "theta2", "theta3", "dtheta1", "C_x"]
        assert np.array_equal(inst.get(*names), ref.get(*names))
    finally:
        inst.free()
        ref.free()


@pytest.mark.parametrize(
    "model,parameter,value,text",
    [
        (PENDULUM, "m", 0.0, "singular mass matrix (rank 0 of 1; check coordinate 'theta')"),
        (PENDULUM, "l", 0.0, "singular mass matrix"),
        ("cartesian_pendulum", "m", 0.0, "the motion of coordinate 'x' has no inertia"),
        ("cartesian_pendulum", "m", -2.0, "not positive semi-definite at coordinate 'x'"),
    ],
    ids=["massless", "zero-length", "constrained-massless", "negative-mass"],
)
@pytest.mark.parametrize("version", (2, 3))
def test_singular_or_indefinite_mass_matrix_is_discarded(model, parameter, value, text, version):
    """A parameter value (within its declared range) that leaves motions without inertia: Discard in
    Co-Simulation and Model Exchange, and the same step succeeds after the value is restored."""
    cs, me = open_instance(model, version, "cs"), open_instance(model, version, "me")
    try:
        cs.initialize()
        assert cs.step(0.1) == OK
        old = cs.get(parameter)[0]
        assert cs.set(parameter, value) == OK
        _discarded_step(cs, 0.1, text)
        assert cs.set(parameter, old) == OK and cs.step(0.1) == OK

        me.initialize()
        _, x = me.states()
        assert me.enter_event() == OK and me.set(parameter, value) == OK and me.enter_continuous() == OK
        n = len(me.messages)
        assert me.derivatives()[0] == DISCARD and text in me.text(n)
        ddq = [v.name for v in me.unit.md.modelVariables if v.name.startswith("dd")][0]
        assert me.get_real(me.unit.vr(ddq))[0] == DISCARD
        assert np.array_equal(me.states()[1], x)
        assert me.enter_event() == OK and me.set(parameter, old) == OK and me.enter_continuous() == OK
        assert me.derivatives()[0] == OK
    finally:
        cs.free()
        me.free()


@pytest.mark.parametrize("method", (2, 3), ids=["dopri5", "rosenbrock23"])
@pytest.mark.parametrize("version", (2, 3))
def test_step_size_underflow_is_discarded_and_smaller_steps_get_closer(method, version):
    """The collision of the radial fall: a step across it underflows; the host halves its step and gets
    arbitrarily close to the collision time, as the FMI Discard protocol intends."""
    inst = open_instance("radial_fall", version)
    try:
        inst.initialize(**{"solver.method": method, "solver.rtol": 1e-8, "solver.atol": 1e-10})
        assert inst.step(0.5) == OK and inst.step(0.5) == OK  # t = 1.0, before the collision at 1.1107
        h, discards = 0.5, 0
        while h > 1e-4:
            t = inst.time()
            if t + h >= COLLISION_TIME:
                _discarded_step(inst, h, "step size underflow")
                discards += 1
                h /= 2
            else:
                assert inst.step(h) == OK, inst.text()
        assert discards >= 10
        assert 0 < COLLISION_TIME - inst.time() < 2e-4
        r, dr = inst.get("r", "dr")
        assert 0 < r < 0.01 and dr < -10  # close to the centre, falling fast: a correct, finite state
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_too_many_internal_steps_is_a_discard(version):
    inst = open_instance(PENDULUM, version)
    try:
        inst.initialize(**{"solver.method": 1, "solver.step": 1e-9})
        _discarded_step(inst, 10.0, "internal steps")
        assert inst.step(1e-4) == OK  # 1e5 internal steps: fine
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_assembly_failure_is_an_error_at_initialization_naming_the_constraint(version):
    """Start values that cannot be assembled (the four-bar loop cannot close): ExitInitializationMode fails
    with the row at fault, and the host can correct the parameter and initialize."""
    inst = open_instance(FOUR_BAR, version)
    try:
        assert inst.enter_initialization() == OK and inst.set("l4", 10.0) == OK
        n = len(inst.messages)
        assert inst.exit_initialization() == ERROR
        assert "assembly of the initial configuration failed" in inst.text(n) and "'loop" not in inst.text(n)
        assert "|loop" in inst.text(n)
        assert inst.set("l4", 1.6) == OK and inst.exit_initialization() == OK
        assert inst.step(0.1) == OK
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_an_output_outside_its_domain_is_a_discard_naming_it(version):
    """The output y / x at x = 0: reading it is discarded with its name; the states and the other
    calculated variables stay readable, and the simulation goes on."""
    inst = open_instance("cartesian_pendulum", version)
    try:
        inst.initialize(x=0.0)  # hanging straight down: assembled to y = -1
        n = len(inst.messages)
        assert inst.get_real(inst.unit.vr("slope"))[0] == DISCARD
        assert "output 'slope' is not finite" in inst.text(n)
        np.testing.assert_allclose(inst.get("x", "y", "ddx"), [0.0, -1.0, 0.0], atol=1e-12)
        assert inst.set("F", 1.0) == OK and inst.step(0.1) == OK
        assert np.isfinite(inst.get("slope")[0])
    finally:
        inst.free()


# ---------------------------------------------------------------------------
# the FMI protocol: stop time, communication points, foreign FMU states, termination
# ---------------------------------------------------------------------------


def _start(inst: Instance, start: float = 0.0, stop: float | None = None) -> None:
    """Initialize with a start time and (optionally) a defined stop time."""
    defined, stop_time = stop is not None, 0.0 if stop is None else stop
    if inst.fmi3:
        assert inst.call("EnterInitializationMode", False, 0.0, start, defined, stop_time) == OK, inst.text()
    else:
        assert inst.call("SetupExperiment", 0, 0.0, start, int(defined), stop_time) == OK, inst.text()
        assert inst.call("EnterInitializationMode") == OK
    assert inst.exit_initialization() == OK, inst.text()


@pytest.mark.parametrize("version", (2, 3))
def test_a_step_past_the_defined_stop_time_is_an_error(version):
    """FMI 2.0 and 3.0: computing past a defined stop time returns Error; the state stays, and steps up to the
    stop time (computed the way masters do) succeed."""
    inst = open_instance(PENDULUM, version)
    try:
        _start(inst, 0.0, stop=0.3)
        for k in range(2):
            assert inst.do_step(0.1 * k, 0.1)[0] == OK
        before, n = snapshot(inst), len(inst.messages)
        assert inst.do_step(0.2, 0.2)[0] == ERROR
        assert "stop time" in inst.text(n) and np.array_equal(snapshot(inst), before)
        assert inst.do_step(0.2, 0.1)[0] == OK  # 0.2 + 0.1 = 0.30000000000000004: rounding only
    finally:
        inst.free()


@pytest.mark.parametrize("kind", ("cs", "me"))
@pytest.mark.parametrize("version", (2, 3))
def test_an_invalid_experiment_tolerance_is_an_error(version, kind):
    """A defined tolerance that is NaN, zero or negative was ignored with OK (solver.rtol kept its value while
    the host believed it had set one): it is an error like solver.rtol <= 0 at Set; a valid one sets rtol."""
    inst = open_instance(PENDULUM, version, kind)
    try:
        for bad in (math.nan, 0.0, -1e-6, math.inf):
            n = len(inst.messages)
            if inst.fmi3:
                status = inst.call("EnterInitializationMode", True, bad, 0.0, False, 0.0)
            else:
                status = inst.call("SetupExperiment", 1, bad, 0.0, 0, 0.0)
            assert status == ERROR and "tolerance" in inst.text(n), bad
        if inst.fmi3:
            assert inst.call("EnterInitializationMode", True, 1e-9, 0.0, False, 0.0) == OK
        else:
            assert inst.call("SetupExperiment", 1, 1e-9, 0.0, 0, 0.0) == OK
            assert inst.call("EnterInitializationMode") == OK
        assert inst.get("solver.rtol")[0] == 1e-9
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_the_communication_point_tolerance_does_not_grow_with_time(version):
    """At t0 = 1.7e9 s (a Unix time) a step from 1.5 s off, or back in time, is an error; a master that
    computes t0 + k h gets every step."""
    inst = open_instance(PENDULUM, version)
    try:
        t0, h = 1.7e9, 0.01
        _start(inst, t0)
        for bad in (t0 + 1.5, t0 - 1.5, t0 + 1e-3):
            n = len(inst.messages)
            assert inst.do_step(bad, h)[0] == ERROR and "currentCommunicationPoint" in inst.text(n)
        for k in range(10):
            assert inst.do_step(t0 + k * h, h)[0] == OK, inst.text()
        assert inst.do_step(t0 + 5 * h, h)[0] == ERROR  # back in time
        # the motion does not depend on the time origin (the model is autonomous): as from t = 0
        ref = open_instance(PENDULUM, version)
        try:
            _start(ref, 0.0)
            for k in range(10):
                assert ref.do_step(k * h, h)[0] == OK
            np.testing.assert_allclose(inst.get("theta", "dtheta"), ref.get("theta", "dtheta"), rtol=1e-6)
        finally:
            ref.free()
    finally:
        inst.free()


def _byte(inst: Instance):
    return ctypes.c_uint8 if inst.fmi3 else ctypes.c_char  # fmi3Byte, fmi2Byte in fmpy's prototypes


def _serialize(inst: Instance, state) -> bytes:
    size = ctypes.c_size_t()
    assert inst.call("SerializedFMUStateSize" if inst.fmi3 else "SerializedFMUstateSize", state, byref(size)) == OK
    buf = (_byte(inst) * size.value)()
    assert inst.call("SerializeFMUState" if inst.fmi3 else "SerializeFMUstate", state, buf, size.value) == OK
    return bytes(buf)


def _deserialize(inst: Instance, data: bytes) -> tuple[int, ctypes.c_void_p]:
    state = ctypes.c_void_p()
    buf = (_byte(inst) * len(data)).from_buffer_copy(data)
    name = "DeserializeFMUState" if inst.fmi3 else "DeSerializeFMUstate"
    return inst.call(name, buf, len(data), byref(state)), state


@pytest.mark.parametrize("version", (2, 3))
def test_the_state_of_another_model_of_the_same_size_is_refused(version):
    """Two pendulum FMUs that differ only in a start value have states of the same size: each refuses the
    other's state, in memory and serialized, with a message, and keeps its own."""
    mine = Instance(Unit.open(cached_fmu(PENDULUM, version, "cs")))
    other = Instance(Unit.open(cached_fmu(PENDULUM, version, "cs", options=(("theta0", 0.2),))))
    try:
        mine.initialize()
        other.initialize()
        assert other.step(0.1) == OK
        theirs, before = other.get_fmu_state(), snapshot(mine)
        n = len(mine.messages)
        assert mine.set_fmu_state(theirs) == ERROR and "another model" in mine.text(n)
        status, state = _deserialize(mine, _serialize(other, theirs))
        assert status == ERROR and not state.value and "another model" in mine.text(n)
        assert np.array_equal(snapshot(mine), before)
        assert other.free_fmu_state(theirs) == OK
        own = mine.get_fmu_state()
        status, state = _deserialize(mine, _serialize(mine, own))
        assert status == OK and mine.set_fmu_state(state) == OK
        assert mine.free_fmu_state(own) == OK and mine.free_fmu_state(state) == OK
    finally:
        mine.free()
        other.free()


@pytest.mark.parametrize("version", (2, 3))
def test_random_corruptions_of_a_serialized_state_are_refused(version):
    """Serialized states carry a checksum: random corruptions (bytes, runs, truncation) are all refused."""
    inst = open_instance(PENDULUM, version)
    rng = np.random.default_rng(20261124)
    try:
        inst.initialize()
        assert inst.step(0.1) == OK
        state = inst.get_fmu_state()
        good = _serialize(inst, state)
        assert inst.free_fmu_state(state) == OK
        accepted = 0
        for k in range(300):
            data = bytearray(good)
            for _ in range(1 + k % 4):
                i = int(rng.integers(len(data)))
                data[i] = (data[i] + int(rng.integers(1, 256))) % 256
            status, state = _deserialize(inst, bytes(data))
            accepted += status == OK
            if status == OK:
                inst.free_fmu_state(state)
        assert accepted == 0
        assert _deserialize(inst, good[:-3])[0] == ERROR
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_rk4_beyond_its_stability_limit_is_discarded_with_advice(version):
    """A stiff hinge damper (lambda = -c / (m l^2) = -1e4 1/s) under rk4 with solver.step = 1e-3
    (|h lambda| = 10, beyond rk4's 2.8): the first step is discarded, the message says what to change;
    rosenbrock23 then follows the overdamped motion theta' = -(m g l / c) sin(theta) (creeping)."""
    inst = open_instance(PENDULUM, version)
    try:
        inst.initialize(c=1e4, **{"solver.method": 1})
        before, n = snapshot(inst), len(inst.messages)
        assert inst.step(0.01) == DISCARD
        text = inst.text(n)
        assert "rk4 is unstable" in text and "solver.step" in text and "rosenbrock23" in text
        assert np.array_equal(snapshot(inst), before)
        assert inst.set("solver.method", 3) == OK
        for _ in range(10):
            assert inst.step(0.1) == OK, inst.text()
        # creeping motion: tan(theta / 2) = tan(theta0 / 2) exp(-g t / (c l^2 / m l ...)) with rate g m l / c
        rate = 9.81 * 1.0 * 1.0 / 1e4
        expected = 2 * math.atan(math.tan(0.25) * math.exp(-rate * 1.0))
        assert abs(inst.get("theta")[0] - expected) < 1e-6
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_rk4_across_a_switch_of_the_forces_is_not_taken_for_an_instability(version):
    """Dry friction switches sign inside rk4 steps, and chatters once the mass sticks: the stability check
    discards no step (a switch is not an instability), and the amplitude follows the closed form."""
    inst = open_instance("coulomb_oscillator", version)
    try:
        inst.initialize(**{"solver.method": 1})
        h = 0.01
        for k in range(round(2 * math.pi / h)):
            assert inst.do_step(k * h, h)[0] == OK, inst.text()
        assert inst.do_step(inst.time(), 2 * math.pi - inst.time())[0] == OK
        assert abs(inst.get("x")[0] - 1.6) < 5e-3  # 3 - 2 (2 F)
        t = inst.time()
        for k in range(800):  # past 4 pi: stuck at 0.2
            assert inst.do_step(t + k * h, h)[0] == OK, inst.text()
        assert abs(inst.get("x")[0] - 0.2) < 5e-3
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_an_unrecoverable_discard_asks_the_master_to_terminate(version):
    """A master that halves its step after each Discard (radial fall into the centre, no step crosses the
    collision): the FMU asks it to terminate (fmi2Terminated / terminateSimulation) within a bounded number
    of retries, close to the collision time, instead of letting it retry forever."""
    inst = open_instance("radial_fall", version)
    try:
        inst.initialize(**{"solver.rtol": 1e-8, "solver.atol": 1e-10})
        h, calls = 0.5, 0
        while not inst.terminate_requested:
            calls += 1
            assert calls < 300, "the FMU never asked to terminate"
            status = inst.step(h)
            assert status in (OK, DISCARD)
            if status == DISCARD:
                h /= 2
        assert 0 < COLLISION_TIME - inst.time() < 1e-3
    finally:
        inst.free()


def test_event_mode_used_is_refused_without_event_mode():
    """fmi3InstantiateCoSimulation(eventModeUsed = true) of an FMU with hasEventMode = false returns NULL."""
    from fmpy.fmi3 import fmi3IntermediateUpdateCallback, fmi3LogMessageCallback

    unit = Unit.open(model_fmu(PENDULUM, 3))
    messages = []
    log = fmi3LogMessageCallback(lambda env, status, category, message: messages.append(_text(message)))
    args = (b"x", unit.md.guid.encode(), b"", False, False)
    f = unit.functions["fmi3InstantiateCoSimulation"]
    assert not f(*args, True, False, (c_uint32 * 0)(), 0, None, log, fmi3IntermediateUpdateCallback())
    assert any("hasEventMode" in m for m in messages)
    c = f(*args, False, False, (c_uint32 * 0)(), 0, None, log, fmi3IntermediateUpdateCallback())
    assert c
    unit.functions["fmi3FreeInstance"](c)


@pytest.mark.parametrize("kind", ("cs", "me"))
@pytest.mark.parametrize("version", (2, 3))
def test_the_start_velocity_the_importer_sets_is_kept(version, kind):
    """four_bar holds theta1 for assembly; the importer sets the rocker's start velocity dtheta3: it is kept,
    and the other velocities are those of solve_velocities with theta3 independent.  Start velocities that
    contradict the loop are an error naming it."""
    from symbody.fmu.testing import cached_equations
    from symbody.numeric import solve_velocities

    inst = open_instance(FOUR_BAR, version, kind)
    try:
        inst.initialize(dtheta3=0.7)
        q, dq = inst.get("theta1", "theta2", "theta3"), inst.get("dtheta1", "dtheta2", "dtheta3")
        assert dq[2] == 0.7
        ref = solve_velocities(cached_equations(FOUR_BAR), q, independent=["theta3"], values=[0.7])
        np.testing.assert_allclose(dq, ref.values, atol=1e-9)
        assert abs(dq[0]) > 0.1  # the crank moves: its start velocity (0) gave way to the importer's
    finally:
        inst.free()
    inst = open_instance(FOUR_BAR, version, kind)
    try:  # a tool that sets every start value: those left at the model's own give way to the one changed
        inst.initialize(dtheta1=0.0, dtheta2=0.0, dtheta3=0.7)
        np.testing.assert_allclose(inst.get("dtheta1", "dtheta2", "dtheta3"), ref.values, atol=1e-9)
    finally:
        inst.free()
    inst = open_instance(FOUR_BAR, version, kind)
    try:
        assert inst.enter_initialization() == OK
        for name in ("dtheta1", "dtheta2", "dtheta3"):
            assert inst.set(name, 0.5) == OK
        n = len(inst.messages)
        assert inst.exit_initialization() == ERROR
        assert "contradict constraint 'loop" in inst.text(n) and "'dtheta3' (set by the host)" in inst.text(n)
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_an_infinite_directional_derivative_is_discarded(version):
    """x'' = -k sqrt(x) at x = 0: the acceleration is finite, its derivative with respect to x is not."""
    unit = Unit.open(model_fmu("root_spring", version))
    for kind in ("cs", "me"):
        inst = Instance(unit, kind)
        try:
            inst.initialize(x=0.0)
            u, k = unit.vr("ddx"), unit.vr("x")
            seed, out = (c_double * 1)(1.0), (c_double * 1)(0.0)
            vrs = (c_uint32 if inst.fmi3 else c_uint) * 1
            args = (vrs(u), 1, vrs(k), 1, seed) + ((1, out, 1) if inst.fmi3 else (out,))
            n = len(inst.messages)
            assert inst.call("GetDirectionalDerivative", *args) == DISCARD
            assert "'ddx' is not finite" in inst.text(n)
        finally:
            inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_a_step_ending_where_an_output_is_undefined_stands_with_a_warning(version):
    """The pendulum at rest hanging straight down (x = 0): its motion is fine, the output y / x is not.  Every
    step returns Warning naming the output (the motion goes on), and reading the output is discarded."""
    inst = open_instance("cartesian_pendulum", version)
    try:
        inst.initialize(x=0.0)
        for _ in range(3):
            n = len(inst.messages)
            status, _ = inst.do_step(inst.time(), 0.1)
            assert status == WARNING and "output 'slope' is not finite" in inst.text(n)
        np.testing.assert_allclose(inst.get("time", "x", "y"), [0.3, 0.0, -1.0], atol=1e-12)
        assert inst.get_real(inst.unit.vr("slope"))[0] == DISCARD
    finally:
        inst.free()


# ---------------------------------------------------------------------------
# many instances, threads, leaks
# ---------------------------------------------------------------------------


def _run(inst: Instance, amplitude: float, steps: int = 40) -> np.ndarray:
    """Drive an instance with a sinusoidal input; returns every Real variable at every step."""
    names = [v.name for v in inst.unit.md.modelVariables if v.type in ("Real", "Float64")]
    inputs = [v.name for v in inst.unit.md.modelVariables if v.causality == "input"]
    rows = []
    if inst.kind == "cs":
        for k in range(steps):
            for j, u in enumerate(inputs):
                assert inst.set(u, amplitude * math.sin(3.0 * k * 0.02 + j)) == OK
            assert inst.step(0.02) == OK
            rows.append(inst.get(*names))
    else:
        _, x = inst.states()
        h = 0.002
        for k in range(steps * 10):  # explicit midpoint rule by the host
            for j, u in enumerate(inputs):
                assert inst.set(u, amplitude * math.sin(3.0 * k * h + j)) == OK
            _, k1 = inst.derivatives()
            assert inst.set_states(x + 0.5 * h * k1) == OK and inst.set_time((k + 0.5) * h) == OK
            _, k2 = inst.derivatives()
            x = x + h * k2
            assert inst.set_states(x) == OK and inst.set_time((k + 1) * h) == OK
            if k % 10 == 9:
                rows.append(inst.get(*names))
    return np.array(rows)


@pytest.mark.parametrize("version,kind", VERSIONS_KINDS)
def test_instances_in_parallel_threads_match_single_use(version, kind):
    """Six instances of one loaded library, each in its own thread, all at once: bit-identical to the same
    runs one after the other (no global state, no shared workspace)."""
    unit = Unit.open(model_fmu(FOUR_BAR, version))
    amplitudes = [0.5 * k for k in range(6)]

    def alone(a: float) -> np.ndarray:
        inst = Instance(unit, kind)
        try:
            inst.initialize()
            return _run(inst, a)
        finally:
            inst.free()

    expected = [alone(a) for a in amplitudes]
    instances = [Instance(unit, kind) for _ in amplitudes]
    results: list = [None] * len(amplitudes)
    barrier = threading.Barrier(len(amplitudes))

    def work(i: int) -> None:
        try:
            instances[i].initialize()
            barrier.wait()
            results[i] = _run(instances[i], amplitudes[i])
        except BaseException as e:  # noqa: BLE001 - reported below
            results[i] = e

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # interleave the threads' calls finely
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(amplitudes))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        sys.setswitchinterval(switch)
        for inst in instances:
            inst.free()
    for i, r in enumerate(results):
        assert not isinstance(r, BaseException), r
        assert np.array_equal(r, expected[i]), f"instance {i} differs from its single-threaded run"
    assert not np.array_equal(expected[0], expected[-1])  # the inputs matter


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (n, ctypes.c_size_t)
        for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()
    ]


def _heap_in_use():
    """Bytes allocated with malloc and not freed (glibc's mallinfo2), or None where unavailable."""
    try:
        libc = ctypes.CDLL(None)
        f = libc.mallinfo2
    except (OSError, AttributeError):
        return None
    f.restype = _MallInfo2
    return lambda: f().uordblks + f().hblkhd


@pytest.mark.parametrize("version,kind", VERSIONS_KINDS)
def test_thousand_instantiate_step_free_cycles_do_not_leak(version, kind):
    """1000 cycles of instantiate, initialize, step (or derivatives), snapshot, terminate, free on one loaded
    library: the C heap in use does not grow (exact count with glibc's mallinfo2)."""
    in_use = _heap_in_use()
    if in_use is None:
        pytest.skip("needs glibc's mallinfo2 to count the heap")
    unit = Unit.open(model_fmu(FOUR_BAR, version))

    def cycle() -> None:
        inst = Instance(unit, kind)
        inst.initialize(My2=1.0)
        state = inst.get_fmu_state()
        if kind == "cs":
            assert inst.step(0.01) == OK and inst.step(0.01) == OK
        else:
            assert inst.derivatives()[0] == OK
        assert inst.set_fmu_state(state) == OK and inst.free_fmu_state(state) == OK
        assert inst.terminate() == OK
        inst.free()

    for _ in range(50):
        cycle()
    before = in_use()
    for _ in range(1000):
        cycle()
    grown = in_use() - before
    assert grown < 16 * 1024, f"the C heap grew by {grown} bytes over 1000 cycles"


_COEXIST = """
import ctypes, json, sys, fmpy
first, second = sys.argv[1:3]
lib = ctypes.CDLL(f"{{fmpy.extract(first)}}/binaries/{platform}/simple_pendulum.so", mode=ctypes.RTLD_GLOBAL)
exported = [name for name in ("sb_model", "sb_instantiate", "sb_accelerations", "sb_ldlt") if hasattr(lib, name)]
res = fmpy.simulate_fmu(second, stop_time=0.2, output_interval=0.1, start_values={{"My2": 1.0}})
print(json.dumps({{"exported": exported, "fmi": hasattr(lib, "{prefix}GetVersion"), "last": list(res[-1])}}))
"""


@pytest.mark.parametrize("version", (2, 3))
def test_two_fmus_in_one_process_keep_their_own_model(version):
    """Only the FMI functions are exported: even with one symbody FMU loaded RTLD_GLOBAL (as some tools load
    libraries), another symbody FMU in the same process binds to its own model and runtime, not to the
    first one's (a fresh process, so that the test process stays clean)."""
    import json
    import subprocess

    first, second = cached_fmu(PENDULUM, version, "cs"), cached_fmu(FOUR_BAR, version, "cs")
    if sys.platform != "linux":
        pytest.skip("the RTLD_GLOBAL scenario is specific to ELF platforms")
    platform = "linux64" if version == 2 else "x86_64-linux"
    script = _COEXIST.format(platform=platform, prefix="fmi2" if version == 2 else "fmi3")
    proc = subprocess.run([sys.executable, "-c", script, str(first), str(second)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["exported"] == [] and out["fmi"]
    alone = fmpy.simulate_fmu(str(second), stop_time=0.2, output_interval=0.1, start_values={"My2": 1.0})
    assert out["last"] == list(map(float, alone[-1]))


# ---------------------------------------------------------------------------
# randomized call sequences
# ---------------------------------------------------------------------------

SPECIAL = [0.0, -1.0, 1e-300, -1e300, 1e300, math.nan, math.inf, -math.inf]
VALUES = st.one_of(  # special values (zero masses and lengths, overflow, NaN) half of the time
    st.sampled_from(SPECIAL), st.floats(-10, 10).filter(lambda v: v == 0 or abs(v) >= 0.1)
)
REFERENCES = st.one_of(st.integers(0, 20), st.integers(0, 20), st.integers(0, 20), st.integers(21, 2**32 - 1))
STEPS = st.sampled_from([0.0, 1e-3, 0.05, 0.3, -0.1, math.nan, math.inf])
SETTING_RULES = {
    "solver.step": lambda v: v > 0,
    "solver.rtol": lambda v: v > 0,
    "solver.atol": lambda v: v > 0,
    "solver.projection_tol": lambda v: v > 0,
    "solver.max_step": lambda v: v >= 0,
    "baumgarte.alpha": lambda v: v >= 0,
    "baumgarte.beta": lambda v: v >= 0,
}
SETTABLE = {  # variable kind -> modes in which it can be set
    "state": {"instantiated", "init"},
    "input": {"instantiated", "init", "event", "continuous", "step"},
    "parameter": {"instantiated", "init", "event", "step"},
}
SET = st.tuples(st.just("set"), REFERENCES, VALUES)
GET = st.tuples(st.just("get"), REFERENCES, st.none())
STEP = st.tuples(st.just("step"), st.integers(0, 5).map(bool), STEPS)  # mostly at the right point
MODES = st.tuples(
    st.sampled_from(
        [
            "init",
            "enter_init",
            "exit_init",
            "terminate",
            "reset",
            "event",
            "continuous",
            "derivatives",
            "save",
            "restore",
        ]
    ),
    st.none(),
    st.none(),
)
# parameter values that make steps and evaluations fail (Discard), and their repair
FAULT = st.tuples(st.sampled_from(["fault", "heal"]), st.integers(0, 7), st.none())
FAULTS = {
    PENDULUM: [("m", 0.0), ("l", 0.0), ("T", 1e300), ("g", -1e300), ("c", 1e300)],
    "cartesian_pendulum": [("m", 0.0), ("m", -1.0), ("F", 1e300), ("solver.projection_tol", 1e-300)],
    "radial_fall": [("mu", 100.0), ("mu", 1e4)],  # earlier collisions: steps fail half-way (rollback needed)
}
OPERATIONS = st.one_of(
    SET,
    SET,
    GET,
    STEP,
    STEP,
    FAULT,
    MODES,
    st.tuples(st.just("states"), st.sampled_from([0.0, 1e-3, math.nan]), st.none()),
    st.tuples(st.just("time"), st.sampled_from([0.5, math.nan, -math.inf]), st.none()),
)


class Oracle:
    """The FMI state machine of a symbody FMU: which calls must succeed, and which must fail."""

    def __init__(self, inst: Instance, faults: list[tuple[str, float]]):
        self.inst, self.mode, self.saved, self.faults = inst, "instantiated", [], faults
        self.vars = sorted(inst.unit.md.modelVariables, key=lambda v: v.valueReference)
        self.time = self.vars[0].valueReference  # 0 in FMI 2, 1 in FMI 3: variable k has value reference time + k

    def kind_of(self, var) -> str | None:
        if var.causality == "input":
            return "input"
        if var.causality == "parameter":
            return "parameter"
        if var.initial in ("exact", "approx") and var.causality == "output":
            return "state"
        return None  # time, accelerations, outputs: calculated

    def set_ok(self, var, value: float) -> bool:
        kind = self.kind_of(var)
        if kind is None or self.mode not in SETTABLE[kind] or not math.isfinite(value):
            return False
        if var.type in ("Integer", "Int64"):
            return value in (1, 2, 3)
        if var.type == "Boolean":
            return True
        rule = SETTING_RULES.get(var.name)
        if rule is not None:
            return rule(value)
        lo = -math.inf if var.min is None else float(var.min)
        hi = math.inf if var.max is None else float(var.max)
        return lo <= value <= hi

    def check_message(self, n: int, status: int, *words: str) -> None:
        """A failed call logged a message of its status containing one of ``words``."""
        new = [m for m in self.inst.messages[n:] if m[0] == status]
        assert new, f"status {status} without a message"
        text = " ".join(m[2] for m in new)
        assert any(w in text for w in words), (words, text)

    def apply(self, op) -> None:
        inst, me = self.inst, self.inst.kind == "me"
        name, a, b = op
        n = len(inst.messages)
        if name == "set":
            r = a + self.time  # the value reference of the variable drawn
            if a >= len(self.vars):
                status = inst.set_real(r, 1.0 if b is None else b)
                assert status == ERROR  # refused for the reference, or before that for the state (terminated)
                return self.check_message(n, ERROR, f"unknown value reference {r}", "not allowed in terminated")
            var = self.vars[a]
            real = var.type in ("Real", "Float64")
            before = inst.get_real(r) if real else None
            if var.type == "Boolean":
                status, value = inst.set_bool(r, b != 0), 1.0
            elif var.type in ("Integer", "Int64") and math.isfinite(b) and abs(b) < 1e9:
                status, value = inst.set_int(r, round(b)), round(b)
            elif var.type in ("Integer", "Int64"):  # a Real value for an enumeration: wrong type
                assert inst.set_real(r, b) == ERROR
                return self.check_message(n, ERROR, f"'{var.name}'")
            else:
                status, value = inst.set_real(r, b), b
            expected = OK if self.set_ok(var, value) else ERROR
            assert status == expected, (var.name, value, self.mode, inst.text(n))
            if status == ERROR:  # a Set refused for the state (terminated; non-Real in continuous time) says so
                self.check_message(n, ERROR, f"'{var.name}'", "not allowed in")
                if real:  # unchanged (a calculated variable may be as undefined as before)
                    after = inst.get_real(r)
                    assert after[0] == before[0] and np.array_equal(after[1], before[1], equal_nan=True)
        elif name == "get":
            r = a + self.time
            if a >= len(self.vars):
                assert inst.get_real(r)[0] == ERROR
                return self.check_message(n, ERROR, "unknown value reference")
            var = self.vars[a]
            if var.type not in ("Real", "Float64"):
                assert inst.get_real(r)[0] == ERROR
                return self.check_message(n, ERROR, f"'{var.name}'")
            status, value = inst.get_real(r)
            assert status in (OK, DISCARD), (var.name, status)
            if status == OK:
                assert math.isfinite(value), (var.name, value)
            else:
                self.check_message(n, DISCARD, f"'{var.name}'")
        elif name == "step":
            t = inst.get_real(self.time)[1]
            t0 = t if a else t + 1.0
            before = snapshot(inst)
            status, _ = inst.do_step(t0, b)
            valid = self.mode == "step" and a and math.isfinite(b) and b >= 0
            # WARNING: the step stands, an output is outside its domain (reading it is discarded)
            assert status in ((OK, WARNING, DISCARD) if valid else (ERROR,)), (self.mode, a, b, inst.text(n))
            if status in (OK, WARNING):
                assert inst.get_real(self.time)[1] == t + b
            else:
                assert np.array_equal(snapshot(inst), before)
                self.check_message(n, status, "DoStep")
        elif name in ("init", "enter_init"):
            status = inst.enter_initialization()
            assert status == (OK if self.mode == "instantiated" else ERROR)
            if status == OK:
                self.mode = "init"
                if name == "init":
                    self.apply(("exit_init", None, None))
            else:
                self.check_message(n, ERROR, "SetupExperiment", "EnterInitializationMode")
        elif name == "exit_init":
            status = inst.exit_initialization()
            if self.mode != "init":
                assert status == ERROR
                return self.check_message(n, ERROR, "ExitInitializationMode")
            assert status in (OK, ERROR)  # a start state that cannot be assembled or evaluated is an error
            if status == OK:
                self.mode = "event" if me else "step"
            else:
                self.check_message(n, ERROR, "ExitInitializationMode")
        elif name == "terminate":
            status = inst.terminate()
            ok = self.mode in ("event", "continuous", "step")  # not in initialization mode
            assert status == (OK if ok else ERROR)
            self.mode = "terminated" if ok else self.mode
        elif name == "reset":
            assert inst.reset() == OK
            self.mode = "instantiated"
        elif name == "event":
            status = inst.enter_event()
            ok = me and (self.mode == "continuous" or (self.mode == "event" and not inst.fmi3))  # FMI 3: CT only
            assert status == (OK if ok else ERROR)
            self.mode = "event" if ok else self.mode
        elif name == "continuous":
            status = inst.enter_continuous()
            ok = me and self.mode == "event"
            assert status == (OK if ok else ERROR)
            self.mode = "continuous" if ok else self.mode
        elif name == "derivatives":
            status, dx = inst.derivatives()
            if me and self.mode not in ("instantiated",):
                assert status in (OK, DISCARD)
                assert status == DISCARD or np.all(np.isfinite(dx))
            else:
                assert status == ERROR
        elif name == "states":
            status, x = inst.states()
            ok = me and self.mode == "continuous"  # SetContinuousStates only in continuous-time mode
            if ok:
                status = inst.set_states(x + a)
                assert status == (OK if math.isfinite(a) else ERROR)
            else:
                assert inst.set_states(np.zeros(max(inst.nx, 1))) == ERROR
        elif name == "time":
            status = inst.set_time(a)
            assert status == (OK if me and self.mode == "continuous" and math.isfinite(a) else ERROR)
        elif name in ("fault", "heal"):
            parameter, value = self.faults[a % len(self.faults)]
            var = inst.unit.variables[parameter]
            self.apply(("set", var.valueReference, value if name == "fault" else float(var.start)))
        elif name == "save":
            self.saved.append((inst.get_fmu_state(), self.mode))
        elif name == "restore":
            if self.saved:
                state, mode = self.saved[-1]
                assert inst.set_fmu_state(state) == OK
                self.mode = mode
        assert all(s != FATAL for s, _, _ in inst.messages[n:])

    def close(self) -> None:
        for state, _ in self.saved:
            assert self.inst.free_fmu_state(state) == OK
        self.inst.free()


def _random_sequences(model: str, version: int, kind: str):
    unit = Unit.open(model_fmu(model, version))

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
    @given(st.sampled_from([True, True, True, False]), st.lists(OPERATIONS, min_size=10, max_size=60))
    def run(initialized, ops):
        oracle = Oracle(Instance(unit, kind), FAULTS[model])
        try:
            if initialized:
                oracle.apply(("init", None, None))
                if kind == "me":
                    oracle.apply(("continuous", None, None))
            for op in ops:
                oracle.apply(op)
        finally:
            oracle.close()

    run()


@pytest.mark.parametrize("version,kind", VERSIONS_KINDS)
def test_random_call_sequences_follow_the_state_machine(version, kind):
    """Random sequences of set/get (any value reference, NaN, infinities, out of range), doStep (bad points and
    sizes), mode changes, states, time and FMU state snapshots: every status is the one the FMI state machine
    and the variable's range prescribe, failed calls log a message naming the variable or function and change
    nothing, and nothing crashes."""
    _random_sequences(PENDULUM, version, kind)


def test_random_call_sequences_on_a_constrained_model():
    _random_sequences("cartesian_pendulum", 3, "cs")


@pytest.mark.parametrize("version", (2, 3))
def test_random_call_sequences_through_a_collision(version):
    """The radial fall reaches its collision within a few steps: steps fail after internal steps were accepted,
    and every discarded step must restore the state of its start."""
    _random_sequences("radial_fall", version, "cs")


@pytest.mark.parametrize("version", (2, 3))
def test_a_mass_parameter_without_a_range_refuses_negative_values(version):
    """A parameter used as a mass gets min = 0: a negative value is an Error at Set, naming it."""
    inst = open_instance(PENDULUM, version)
    try:
        inst.initialize()
        n = len(inst.messages)
        assert inst.set("m", -1.0) == ERROR
        assert "'m' is outside its range [0" in inst.text(n)
    finally:
        inst.free()
