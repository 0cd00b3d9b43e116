"""A hostile host walks a native FMU through every state of the FMI state machines and calls every
function in every state, FMI 2 and FMI 3, Model Exchange and Co-Simulation.

The expected states of each function are written here from the standards, independently of the
runtime's table (``fmu_templates/sb_calls.c``):

* FMI 2.0.4, section 3.2.3 (Model Exchange) and 4.2.4 (Co-Simulation): the tables of the functions
  that may be called in each state, with their footnotes on which variables may be set;
* FMI 3.0.2, section 2.3 (common states: Instantiated, Initialization Mode, Initialized, Event Mode,
  Terminated), 3.2 (Continuous-Time Mode) and 4.2 (Step Mode): the "Allowed Function Calls" of each
  state.

A call the standard allows must succeed; a call it forbids must return Error with a log message and
leave the instance as it was: the host then goes on with the next legal call, which must succeed.
The FMU is compiled into a shared library from ``model.c`` and the runtime sources and driven by
ctypes; the same walk runs under AddressSanitizer + UndefinedBehaviorSanitizer in a child process.
"""

from __future__ import annotations

import ctypes as C
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = ROOT / "examples" / "simple_pendulum.py"

OK, WARNING, DISCARD, ERROR = 0, 1, 2, 3
I, N, E, CT, S, T = "instantiated", "initialization", "event", "continuous-time", "step", "terminated"
ALL = {I, N, E, CT, S, T}

# Symbody's choices where it accepts more than the standard's letter (docs/reference/fmu-export.md), as
# FMI 3 does: FMI 2 inputs may be set in Instantiated (FMI 2 gives inputs no initial attribute; hosts
# such as fmpy set input start values there), and FMI 2 Get returns the start values there.
LENIENT = {(2, name, I) for name in ("SetReal input", "GetReal", "GetInteger", "GetBoolean", "GetString nvr=0")}


def expected_states(version: int, kind: str) -> dict[str, set[str]]:
    """Function (as the walk names its call) -> states in which the standard allows it."""
    me = kind == "me"
    live = {I, N, E, CT, T} if me else {I, N, S, T}
    running = {E, CT} if me else {S}  # FMI 2 "Event/Continuous-Time Mode" or "stepComplete"
    if version == 2:
        table = {
            "SetDebugLogging": live,
            "SetupExperiment": {I},
            "EnterInitializationMode": {I},
            "ExitInitializationMode": {N},
            "Terminate": running,
            "Reset": live,
            "GetReal": {N, *running, T},  # footnote 2 in Initialization Mode; not in instantiated
            "GetInteger": {N, *running, T},
            "GetBoolean": {N, *running, T},
            "GetString nvr=0": {N, *running, T},
            "SetReal parameter": {I, N, E} if me else {I, N, S},  # footnotes 1, 3, 4/6: tunable parameter
            "SetReal input": {I, N, E, CT} if me else {I, N, S},  # footnotes 3, 4, 5/6: continuous input
            "SetString nvr=0": {I, N, E} if me else {I, N, S},
            "GetFMUstate": live,
            "SetFMUstate": live,
            "FreeFMUstate": live,
            "SerializedFMUstateSize": live,
            "SerializeFMUstate": live,
            "DeSerializeFMUstate": live,
            "GetDirectionalDerivative": {N, *running, T},
            # Model Exchange only
            "EnterEventMode": {E, CT} if me else set(),
            "NewDiscreteStates": {E} if me else set(),
            "EnterContinuousTimeMode": {E} if me else set(),
            "CompletedIntegratorStep": {CT} if me else set(),
            "SetTime": {CT} if me else set(),  # in Event Mode only for pure discrete-time FMUs (footnote 8)
            "SetContinuousStates": {CT} if me else set(),
            "GetEventIndicators": {N, E, CT, T} if me else set(),
            "GetContinuousStates": {N, E, CT, T} if me else set(),
            "GetDerivatives": {N, E, CT, T} if me else set(),
            "GetNominalsOfContinuousStates": {I, N, E, CT, T} if me else set(),
            # Co-Simulation only
            "SetRealInputDerivatives nvr=0": set() if me else {I, N, S},
            "GetRealOutputDerivatives nvr=0": set() if me else {S, T},
            "DoStep": set() if me else {S},
            "GetRealStatus lastSuccessfulTime": set() if me else {S, T},
            "GetBooleanStatus terminated": set() if me else {S, T},
        }
        if not me:  # settings: Integer and Boolean tunable parameters of Co-Simulation
            table["SetInteger parameter"] = {I, N, S}
            table["SetBoolean parameter"] = {I, N, S}
        return table
    table = {
        "SetDebugLogging": live,
        "EnterInitializationMode": {I},
        "ExitInitializationMode": {N},
        "EnterEventMode": {CT} if me else set(),  # Co-Simulation: only with eventModeUsed (not provided)
        "Terminate": running,  # super state Initialized: not in Initialization Mode
        "Reset": live,
        "GetFloat64": live,  # Instantiated: start values
        "GetString nvr=0": live,
        "SetFloat64 parameter": {I, N, E} if me else {I, N, S},
        "SetFloat64 input": {I, N, E, CT} if me else {I, N, S},
        "SetString nvr=0": {I, N, E} if me else {I, N, S},
        "GetFMUState": live,
        "SetFMUState": live,
        "FreeFMUState": live,
        "SerializedFMUStateSize": live,
        "SerializeFMUState": live,
        "DeserializeFMUState": live,
        "GetDirectionalDerivative": {N, *running, T},
        "EvaluateDiscreteStates": {E} if me else set(),
        "UpdateDiscreteStates": {E} if me else set(),
        "EnterContinuousTimeMode": {E} if me else set(),
        "CompletedIntegratorStep": {CT} if me else set(),
        "SetTime": {CT} if me else set(),
        "SetContinuousStates": {CT} if me else set(),
        "GetContinuousStateDerivatives": {N, E, CT, T} if me else set(),
        "GetEventIndicators": {N, E, CT, T} if me else set(),
        "GetContinuousStates": {N, E, CT, T} if me else set(),
        "GetNominalsOfContinuousStates": {N, E, CT, T} if me else set(),
        "GetNumberOfContinuousStates": live if me else set(),
        "GetNumberOfEventIndicators": live if me else set(),
        "GetOutputDerivatives nvr=0": set() if me else {S, T},
        "DoStep": set() if me else {S},
        "EnterStepMode": set(),  # only after Event Mode in Co-Simulation (hasEventMode = false)
        "EnterConfigurationMode": set(),  # no structural parameters
        "ExitConfigurationMode": set(),
        "GetAdjointDerivative nUnknowns=0": set(),  # providesAdjointDerivatives = false
    }
    if not me:
        table["SetInt64 parameter"] = {I, N, S}
        table["SetBoolean parameter"] = {I, N, S}
    return table


# ------------------------------------------------------------------------------------------------ the host


class Host:
    """One FMU shared library, one instance, a log of the messages with a status other than OK."""

    def __init__(self, lib: str, version: int, kind: str, token: str, vrs: dict[str, int]):
        self.lib = C.CDLL(lib)
        self.version, self.kind, self.vrs = version, kind, vrs
        self.fmi = f"fmi{version}"
        self.log: list[tuple[int, str]] = []
        self.nx = 2  # the pendulum: theta, dtheta
        if version == 2:
            proto = C.CFUNCTYPE(None, C.c_void_p, C.c_char_p, C.c_int, C.c_char_p, C.c_char_p)
            self._logger = proto(lambda env, name, status, cat, msg: self._record(status, msg))

            class Callbacks(C.Structure):
                _fields_ = [
                    ("logger", proto),
                    ("allocate", C.c_void_p),
                    ("free", C.c_void_p),
                    ("stepFinished", C.c_void_p),
                    ("env", C.c_void_p),
                ]

            self._callbacks = Callbacks(self._logger, None, None, None, None)
            f = self.lib.fmi2Instantiate
            f.restype = C.c_void_p
            f.argtypes = [C.c_char_p, C.c_int, C.c_char_p, C.c_char_p, C.c_void_p, C.c_int, C.c_int]
            self.c = f(b"hostile", 0 if kind == "me" else 1, token.encode(), None, C.byref(self._callbacks), 0, 0)
        else:
            proto = C.CFUNCTYPE(None, C.c_void_p, C.c_int, C.c_char_p, C.c_char_p)
            self._logger = proto(lambda env, status, cat, msg: self._record(status, msg))
            if kind == "me":
                f = self.lib.fmi3InstantiateModelExchange
                f.argtypes = [C.c_char_p, C.c_char_p, C.c_char_p, C.c_bool, C.c_bool, C.c_void_p, proto]
                f.restype = C.c_void_p
                self.c = f(b"hostile", token.encode(), None, False, False, None, self._logger)
            else:
                f = self.lib.fmi3InstantiateCoSimulation
                f.argtypes = [
                    C.c_char_p,
                    C.c_char_p,
                    C.c_char_p,
                    C.c_bool,
                    C.c_bool,
                    C.c_bool,
                    C.c_bool,
                    C.c_void_p,
                    C.c_size_t,
                    C.c_void_p,
                    proto,
                    C.c_void_p,
                ]
                f.restype = C.c_void_p
                self.c = f(
                    b"hostile", token.encode(), None, False, False, False, False, None, 0, None, self._logger, None
                )
        assert self.c, "instantiation failed"

    def _record(self, status: int, message: bytes) -> None:
        if status != OK:
            self.log.append((status, message.decode(errors="replace") if message else ""))

    def __call__(self, name: str, *args) -> int:
        f = getattr(self.lib, self.fmi + name)
        f.restype = C.c_int
        return f(C.c_void_p(self.c), *args)

    def free(self) -> None:
        f = getattr(self.lib, self.fmi + "FreeInstance")
        f.restype = None
        f(C.c_void_p(self.c))

    # -------------------------------------------------------------------- walking to a state
    def goto(self, state: str) -> None:
        """Reset, then the legal calls that reach `state`; each must succeed."""
        steps = {
            I: [],
            N: ["init"],
            E: ["init", "exit"],
            CT: ["init", "exit", "update", "continuous"],
            S: ["init", "exit"],
            T: ["init", "exit", "terminate"],
        }[state]
        assert self("Reset") == OK
        for step in steps:
            assert self.advance(step) == OK, (state, step, self.log)

    def advance(self, step: str) -> int:
        if step == "init":
            if self.version == 2:
                status = self("SetupExperiment", 0, C.c_double(0.0), C.c_double(0.0), 0, C.c_double(0.0))
                return status if status != OK else self("EnterInitializationMode")
            return self("EnterInitializationMode", False, C.c_double(0.0), C.c_double(0.0), False, C.c_double(0.0))
        if step == "exit":
            return self("ExitInitializationMode")
        if step == "update":
            return self.update()
        if step == "continuous":
            return self("EnterContinuousTimeMode")
        if step == "terminate":
            return self("Terminate")
        if step == "reset":
            return self("Reset")
        if step == "step":
            return self.do_step()
        raise ValueError(step)

    def next_step(self, state: str) -> str:
        """The next legal call out of `state` (to check that a refused call left the instance usable)."""
        return {I: "init", N: "exit", E: "continuous", CT: "terminate", S: "step", T: "reset"}[state]

    def update(self) -> int:
        if self.version == 2:
            event_info = C.create_string_buffer(64)  # fmi2EventInfo: five fmi2Boolean and an fmi2Real
            return self("NewDiscreteStates", event_info)
        flags = [C.c_bool() for _ in range(5)]
        t = C.c_double()
        return self("UpdateDiscreteStates", *(C.byref(b) for b in flags[:5]), C.byref(t))

    def do_step(self) -> int:
        t = C.c_double()
        if self.version == 2:
            t_now = C.c_double()
            self("GetRealStatus", 2, C.byref(t_now))  # fmi2LastSuccessfulTime
            return self("DoStep", t_now, C.c_double(1e-3), 1)
        b = [C.c_bool() for _ in range(3)]
        vr = (C.c_uint * 1)(self.vrs["time"])
        now = (C.c_double * 1)()
        self("GetFloat64", vr, C.c_size_t(1), now, C.c_size_t(1))
        return self("DoStep", C.c_double(now[0]), C.c_double(1e-3), True, *(C.byref(x) for x in b), C.byref(t))


def calls(h: Host) -> dict:
    """Every call of the walk: name -> function doing it with harmless, well-formed arguments."""
    v, sz = h.vrs, C.c_size_t
    one = lambda vr: (C.c_uint * 1)(vr)  # noqa: E731
    reals = lambda *x: (C.c_double * max(1, len(x)))(*x)  # noqa: E731
    nx = h.nx

    def fmu_state(save: str, restore: str, free: str, size: str, ser: str, deser: str, which: str):
        def run() -> int:
            state = C.c_void_p()
            if which == save:
                status = h(save, C.byref(state))
                if state.value:
                    h(free, C.byref(state))
                return status
            # the other functions need a state taken here; GetFMUstate is allowed in every live state
            assert h(save, C.byref(state)) == OK, h.log
            try:
                if which == restore:
                    return h(restore, state)
                if which == free:
                    return h(free, C.byref(state))
                n = C.c_size_t()
                if which == size:
                    return h(size, state, C.byref(n))
                assert h(size, state, C.byref(n)) == OK
                buf = (C.c_ubyte * n.value)()
                if which == ser:
                    return h(ser, state, buf, n)
                assert h(ser, state, buf, n) == OK
                other = C.c_void_p()
                status = h(deser, buf, n, C.byref(other))
                if other.value:
                    h(free, C.byref(other))
                return status
            finally:
                if state.value:
                    h(free, C.byref(state))

        return run

    if h.version == 2:
        st = (
            "GetFMUstate",
            "SetFMUstate",
            "FreeFMUstate",
            "SerializedFMUstateSize",
            "SerializeFMUstate",
            "DeSerializeFMUstate",
        )
        table = {
            "SetDebugLogging": lambda: h("SetDebugLogging", 1, sz(0), None),  # all categories on
            "SetupExperiment": lambda: h("SetupExperiment", 0, C.c_double(0), C.c_double(0), 0, C.c_double(0)),
            "EnterInitializationMode": lambda: h("EnterInitializationMode"),
            "ExitInitializationMode": lambda: h("ExitInitializationMode"),
            "Terminate": lambda: h("Terminate"),
            "Reset": lambda: h("Reset"),
            "GetReal": lambda: h("GetReal", one(v["g"]), sz(1), reals(0.0)),
            "GetInteger": lambda: h(
                "GetInteger", one(v.get("solver.method", 0)), sz(0 if h.kind == "me" else 1), (C.c_int * 1)()
            ),
            "GetBoolean": lambda: h(
                "GetBoolean",
                one(v.get("solver.ignore_external_tolerance", 0)),
                sz(0 if h.kind == "me" else 1),
                (C.c_int * 1)(),
            ),
            "GetString nvr=0": lambda: h("GetString", None, sz(0), None),
            "SetReal parameter": lambda: h("SetReal", one(v["g"]), sz(1), reals(9.81)),
            "SetReal input": lambda: h("SetReal", one(v["T"]), sz(1), reals(0.0)),
            "SetString nvr=0": lambda: h("SetString", None, sz(0), None),
            "GetDirectionalDerivative": lambda: h("GetDirectionalDerivative", None, sz(0), None, sz(0), None, None),
            "EnterEventMode": lambda: h("EnterEventMode"),
            "NewDiscreteStates": h.update,
            "EnterContinuousTimeMode": lambda: h("EnterContinuousTimeMode"),
            "CompletedIntegratorStep": lambda: h("CompletedIntegratorStep", 1, C.byref(C.c_int()), C.byref(C.c_int())),
            "SetTime": lambda: h("SetTime", C.c_double(0.0)),
            "SetContinuousStates": lambda: h("SetContinuousStates", reals(0.5, 0.0), sz(nx)),
            "GetEventIndicators": lambda: h("GetEventIndicators", None, sz(0)),
            "GetContinuousStates": lambda: h("GetContinuousStates", reals(0, 0), sz(nx)),
            "GetDerivatives": lambda: h("GetDerivatives", reals(0, 0), sz(nx)),
            "GetNominalsOfContinuousStates": lambda: h("GetNominalsOfContinuousStates", reals(0, 0), sz(nx)),
            "SetRealInputDerivatives nvr=0": lambda: h("SetRealInputDerivatives", None, sz(0), None, None),
            "GetRealOutputDerivatives nvr=0": lambda: h("GetRealOutputDerivatives", None, sz(0), None, None),
            "DoStep": lambda: h("DoStep", C.c_double(0.0), C.c_double(1e-3), 1),
            "GetRealStatus lastSuccessfulTime": lambda: h("GetRealStatus", 2, C.byref(C.c_double())),
            "GetBooleanStatus terminated": lambda: h("GetBooleanStatus", 3, C.byref(C.c_int())),
            "SetInteger parameter": lambda: h("SetInteger", one(v.get("solver.method", 0)), sz(1), (C.c_int * 1)(2)),
            "SetBoolean parameter": lambda: h(
                "SetBoolean", one(v.get("solver.ignore_external_tolerance", 0)), sz(1), (C.c_int * 1)(0)
            ),
        }
    else:
        st = (
            "GetFMUState",
            "SetFMUState",
            "FreeFMUState",
            "SerializedFMUStateSize",
            "SerializeFMUState",
            "DeserializeFMUState",
        )
        flags = lambda n: [C.byref(C.c_bool()) for _ in range(n)]  # noqa: E731
        table = {
            "SetDebugLogging": lambda: h("SetDebugLogging", True, sz(0), None),
            "EnterInitializationMode": lambda: h.advance("init"),
            "ExitInitializationMode": lambda: h("ExitInitializationMode"),
            "EnterEventMode": lambda: h("EnterEventMode"),
            "Terminate": lambda: h("Terminate"),
            "Reset": lambda: h("Reset"),
            "GetFloat64": lambda: h("GetFloat64", one(v["g"]), sz(1), reals(0.0), sz(1)),
            "GetString nvr=0": lambda: h("GetString", None, sz(0), None, sz(0)),
            "SetFloat64 parameter": lambda: h("SetFloat64", one(v["g"]), sz(1), reals(9.81), sz(1)),
            "SetFloat64 input": lambda: h("SetFloat64", one(v["T"]), sz(1), reals(0.0), sz(1)),
            "SetString nvr=0": lambda: h("SetString", None, sz(0), None, sz(0)),
            "GetDirectionalDerivative": lambda: h(
                "GetDirectionalDerivative", None, sz(0), None, sz(0), None, sz(0), None, sz(0)
            ),
            "GetAdjointDerivative nUnknowns=0": lambda: h(
                "GetAdjointDerivative", None, sz(0), None, sz(0), None, sz(0), None, sz(0)
            ),
            "EvaluateDiscreteStates": lambda: h("EvaluateDiscreteStates"),
            "UpdateDiscreteStates": h.update,
            "EnterContinuousTimeMode": lambda: h("EnterContinuousTimeMode"),
            "CompletedIntegratorStep": lambda: h("CompletedIntegratorStep", True, *flags(2)),
            "SetTime": lambda: h("SetTime", C.c_double(0.0)),
            "SetContinuousStates": lambda: h("SetContinuousStates", reals(0.5, 0.0), sz(nx)),
            "GetContinuousStateDerivatives": lambda: h("GetContinuousStateDerivatives", reals(0, 0), sz(nx)),
            "GetEventIndicators": lambda: h("GetEventIndicators", None, sz(0)),
            "GetContinuousStates": lambda: h("GetContinuousStates", reals(0, 0), sz(nx)),
            "GetNominalsOfContinuousStates": lambda: h("GetNominalsOfContinuousStates", reals(0, 0), sz(nx)),
            "GetNumberOfContinuousStates": lambda: h("GetNumberOfContinuousStates", C.byref(C.c_size_t())),
            "GetNumberOfEventIndicators": lambda: h("GetNumberOfEventIndicators", C.byref(C.c_size_t())),
            "GetOutputDerivatives nvr=0": lambda: h("GetOutputDerivatives", None, sz(0), None, None, sz(0)),
            "DoStep": lambda: h("DoStep", C.c_double(0.0), C.c_double(1e-3), True, *flags(3), C.byref(C.c_double())),
            "EnterStepMode": lambda: h("EnterStepMode"),
            "EnterConfigurationMode": lambda: h("EnterConfigurationMode"),
            "ExitConfigurationMode": lambda: h("ExitConfigurationMode"),
            "SetInt64 parameter": lambda: h(
                "SetInt64", one(v.get("solver.method", 0)), sz(1), (C.c_int64 * 1)(2), sz(1)
            ),
            "SetBoolean parameter": lambda: h(
                "SetBoolean", one(v.get("solver.ignore_external_tolerance", 0)), sz(1), (C.c_bool * 1)(False), sz(1)
            ),
        }
    for which in st:
        table[which] = fmu_state(*st, which)
    return table


def walk(lib: str, version: int, kind: str, token: str, vrs: dict[str, int]) -> tuple[int, list[str]]:
    """Every call in every state; returns the number of checks and the deviations found."""
    h = Host(lib, version, kind, token, vrs)
    expected = expected_states(version, kind)
    table = calls(h)
    states = [I, N, E, CT, T] if kind == "me" else [I, N, S, T]
    failures: list[str] = []
    checks = 0
    try:
        assert set(expected) <= set(table), set(expected) - set(table)
        for state in states:
            for name, allowed in expected.items():
                h.goto(state)
                h.log.clear()
                status = table[name]()
                checks += 1
                where = f"fmi{version} {kind.upper()} {name} in {state}"
                if state in allowed or (version, name, state) in LENIENT:
                    if status not in (OK, WARNING):
                        failures.append(f"{where}: allowed, returned {status}: {h.log}")
                    continue
                if status != ERROR:
                    failures.append(f"{where}: forbidden, returned {status} instead of Error")
                    continue
                if not any(s == ERROR and m for s, m in h.log):
                    failures.append(f"{where}: Error without a log message")
                # a refused call changes nothing: the next legal call out of this state succeeds
                step = h.next_step(state)
                h.log.clear()
                if h.advance(step) != OK:
                    failures.append(f"{where}: the instance is not usable afterwards ({step}): {h.log}")
    finally:
        h.free()
    return checks, failures


# ------------------------------------------------------------------------------------------------ arguments


def abuse(lib: str, version: int, kind: str, token: str, vrs: dict[str, int]) -> tuple[int, list[str]]:
    """NULL instance and arrays, huge counts, unknown value references: Error with a message, no crash."""
    h = Host(lib, version, kind, token, vrs)
    failures: list[str] = []
    checks = 0
    get, set_ = ("GetReal", "SetReal") if version == 2 else ("GetFloat64", "SetFloat64")
    tail = () if version == 2 else (C.c_size_t(1),)
    huge = C.c_size_t(2**62)

    def refused(what: str, status: int, text: str | None) -> None:
        nonlocal checks
        checks += 1
        if status != ERROR:
            failures.append(f"fmi{version} {kind}: {what}: returned {status} instead of Error")
        elif text is not None and not any(text in m for s, m in h.log if s == ERROR):
            failures.append(f"fmi{version} {kind}: {what}: no '{text}' in the log {h.log}")
        h.log.clear()

    try:
        h.goto(N)
        values = (C.c_double * 1)(1.0)
        one = lambda vr: (C.c_uint * 1)(vr)  # noqa: E731
        refused("Get NULL value references", h(get, None, C.c_size_t(1), values, *tail), "NULL")
        refused("Get NULL values", h(get, one(vrs["g"]), C.c_size_t(1), None, *tail), "NULL")
        refused("Set NULL values", h(set_, one(vrs["g"]), C.c_size_t(1), None, *tail), "NULL")
        refused("Get huge nvr, NULL arrays", h(get, None, huge, None, *(() if version == 2 else (huge,))), "NULL")
        # FMI 3 value references start at 1 (the 1-based positions in ModelVariables): 0 is no variable
        for bad in (len(vrs) + 5, 2**32 - 1, *((0,) if version == 3 else ())):
            refused(
                f"Get unknown value reference {bad}",
                h(get, one(bad), C.c_size_t(1), values, *tail),
                "unknown value reference",
            )
            refused(
                f"Set unknown value reference {bad}",
                h(set_, one(bad), C.c_size_t(1), values, *tail),
                "unknown value reference",
            )
        refused("Set the independent variable", h(set_, one(vrs["time"]), C.c_size_t(1), values, *tail), "time")
        if version == 3:
            refused(
                "nValues differs from nValueReferences",
                h(get, one(vrs["g"]), C.c_size_t(1), values, C.c_size_t(2)),
                "nValues",
            )
        # a NULL instance: Error, nothing to log to
        for name, args in (
            (get, (one(vrs["g"]), C.c_size_t(1), values, *tail)),
            ("Reset", ()),
            ("Terminate", ()),
            ("ExitInitializationMode", ()),
        ):
            f = getattr(h.lib, h.fmi + name)
            f.restype = C.c_int
            checks += 1
            if f(None, *args) != ERROR:
                failures.append(f"fmi{version} {kind}: {name}(NULL instance) is not an Error")
        free = getattr(h.lib, h.fmi + "FreeInstance")
        free.restype = None
        free(None)  # ignored (FMI 3.0 section 2.3.1; FMI 2.0 likewise)
        # the refused calls changed nothing
        checks += 1
        if h.advance("exit") != OK:
            failures.append(f"fmi{version} {kind}: not usable after the abuse: {h.log}")
    finally:
        h.free()
    return checks, failures


# ------------------------------------------------------------------------------------------------ building


def build_library(out: Path, version: int, flags: list[str]) -> tuple[Path, str, dict[str, int]]:
    """The FMU's shared library (model.c + runtime + the version's wrapper), its token, value references."""
    from symbody.codegen.c_eval import c_compiler
    from symbody.fmu.build import fmi_headers_dir, template_dir
    from symbody.fmu.description import FMI3_FIRST_VALUE_REFERENCE
    from symbody.fmu.spec import GENERIC_SOURCES, FmuSpec
    from symbody.fmu.testing import cached_equations
    from symbody.fmu.variables import fmu_variables

    eq = cached_equations(str(PENDULUM))
    spec = FmuSpec(eq, version, "both")
    out.mkdir(parents=True, exist_ok=True)
    model = out / "model.c"
    model.write_text(spec.source.text)
    sources = [model, *(template_dir() / n for n in (*GENERIC_SOURCES, f"fmi{version}Functions.c"))]
    lib = out / f"fmi{version}.so"
    cmd = [
        c_compiler(),
        "-std=c99",
        "-shared",
        "-fPIC",
        *flags,
        f"-I{template_dir()}",
        f"-I{fmi_headers_dir()}",
        *map(str, sources),
        "-o",
        str(lib),
        "-lm",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    first = 0 if version == 2 else FMI3_FIRST_VALUE_REFERENCE
    vrs = {v.name: v.vr + first for v in fmu_variables(eq, "cs")}
    return lib, spec.token, vrs


@pytest.fixture(scope="module")
def libraries(tmp_path_factory):
    import symbody as sb

    try:
        return {v: build_library(tmp_path_factory.mktemp(f"plain{v}"), v, ["-O1", "-g"]) for v in (2, 3)}
    except sb.ExportError as e:
        pytest.skip(f"no C compiler: {e}")


@pytest.mark.parametrize("kind", ("me", "cs"))
@pytest.mark.parametrize("version", (2, 3))
def test_every_function_in_every_state_as_the_standard_says(version, kind, libraries):
    lib, token, vrs = libraries[version]
    checks, failures = walk(str(lib), version, kind, token, vrs)
    assert checks > 100
    assert failures == []


@pytest.mark.parametrize("kind", ("me", "cs"))
@pytest.mark.parametrize("version", (2, 3))
def test_null_pointers_huge_counts_and_unknown_references_are_errors(version, kind, libraries):
    lib, token, vrs = libraries[version]
    checks, failures = abuse(str(lib), version, kind, token, vrs)
    assert checks > 10
    assert failures == []


def _asan_runtime() -> str | None:
    from symbody.codegen.c_eval import c_compiler

    try:
        path = subprocess.run([c_compiler(), "-print-file-name=libasan.so"], capture_output=True, text=True).stdout
    except OSError:
        return None
    path = path.strip()
    return path if os.path.isabs(path) and os.path.exists(path) else None


@pytest.mark.slow
@pytest.mark.parametrize("version", (2, 3))
def test_the_walk_under_address_and_undefined_sanitizers(version, tmp_path):
    runtime = _asan_runtime()
    if runtime is None:
        pytest.skip("the C compiler has no AddressSanitizer runtime")
    flags = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    lib, token, vrs = build_library(tmp_path, version, flags)
    env = {
        **os.environ,
        "LD_PRELOAD": runtime,
        "ASAN_OPTIONS": "detect_leaks=0:halt_on_error=1",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    }
    args = json.dumps([str(lib), version, token, vrs])
    proc = subprocess.run([sys.executable, __file__, args], capture_output=True, text=True, env=env, timeout=600)
    report = proc.stdout + proc.stderr[-20000:]
    assert proc.returncode == 0, report
    assert "AddressSanitizer" not in proc.stderr and "runtime error:" not in proc.stderr, report
    assert "deviations: 0" in proc.stdout, report


if __name__ == "__main__":  # the sanitizer run: python test_fmi_state_machine.py '[lib, version, token, vrs]'
    lib_, version_, token_, vrs_ = json.loads(sys.argv[1])
    found: list[str] = []
    total = 0
    for kind_ in ("me", "cs"):
        for check in (walk, abuse):
            n, bad = check(lib_, version_, kind_, token_, vrs_)
            total += n
            found += bad
    print("\n".join(found))
    print(f"checks: {total} deviations: {len(found)}")
