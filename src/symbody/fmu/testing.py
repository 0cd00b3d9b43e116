"""Helpers to check FMUs against symbody's own Python simulation (tests, benchmarks).

* :func:`cached_fmu` builds an FMU of a model file once per process (FMUs are
  deterministic for a given model, version and kind).
* :func:`fmu_simulation` runs an FMU with fmpy and returns the recorded
  trajectories by variable name.
* :func:`reference_simulation` integrates the same model with
  :func:`symbody.numeric.simulate` at tight tolerances from a given state,
  giving the reference trajectories of the FMU's variables.
* :func:`max_relative_error` compares them.

Example:
    >>> from symbody.fmu.testing import cached_fmu, fmu_simulation  # doctest: +SKIP
    >>> fmu = cached_fmu("examples/simple_pendulum.py", 2, "cs")  # doctest: +SKIP
    >>> res = fmu_simulation(fmu, stop_time=1.0, interval=0.01)  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import hashlib
import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..symbolic.atoms import symbol_name
from .run import restore_fmi2_message_proxy

if TYPE_CHECKING:
    from ..equations import Equations

_WORKDIR: Path | None = None


def _workdir() -> Path:
    global _WORKDIR
    if _WORKDIR is None:
        _WORKDIR = Path(tempfile.mkdtemp(prefix="symbody_fmus_"))
        atexit.register(shutil.rmtree, _WORKDIR, True)
    return _WORKDIR


@cache
def cached_equations(model_file: str, options: tuple = ()):
    """The :class:`symbody.Equations` of a model file (built once per process)."""
    from ..loader import load_model

    return load_model(model_file, **dict(options)).derive()


@cache
def cached_fmu(model_file: str, fmi_version: int, kind: str, backend: str = "c", options: tuple = ()) -> Path:
    """An FMU of a model file, built once per process into a temporary folder."""
    from . import export_fmu

    eq = cached_equations(str(model_file), options)
    # one file per model file and options: two model files may build models of the same name
    key = hashlib.sha256(repr((str(Path(model_file).resolve()), options)).encode()).hexdigest()[:16]
    out = _workdir() / f"{eq.name}_fmi{fmi_version}_{kind}_{backend}_{key}.fmu"
    return export_fmu(eq, out, fmi_version=fmi_version, kind=kind, backend=backend)


def fmu_simulation(
    fmu: str | Path,
    stop_time: float,
    interval: float,
    fmi_type: str = "CoSimulation",
    solver: str = "CVode",
    start_values: dict[str, Any] | None = None,
    relative_tolerance: float | None = None,
    step_size: float | None = None,
    **kwargs: Any,
) -> dict[str, np.ndarray]:
    """Simulate an FMU with fmpy; returns ``{variable name: values}`` (including ``time``)."""
    import fmpy

    kw: dict[str, Any] = dict(
        fmi_type=fmi_type,
        stop_time=stop_time,
        output_interval=interval,
        start_values=start_values or {},
    )
    if fmi_type == "ModelExchange":
        kw["solver"] = solver
        if step_size is not None:
            kw["step_size"] = step_size
    if relative_tolerance is not None:
        kw["relative_tolerance"] = relative_tolerance
    kw.update(kwargs)
    try:
        res = fmpy.simulate_fmu(str(fmu), **kw)
    finally:  # a logger given to fmpy must not outlive this run in its process-wide FMI 2 proxy
        restore_fmi2_message_proxy()
    return {name: np.asarray(res[name], dtype=float) for name in res.dtype.names}


def reference_simulation(
    eq: Equations, t: np.ndarray, q0, dq0, u=None, p=None, rtol: float = 1e-12
) -> dict[str, np.ndarray]:
    """Trajectories of the FMU variables from :func:`symbody.numeric.simulate` (projection, DOP853).

    The names are the FMU's: coordinates, ``d``/``dd`` + coordinate, and outputs.
    """
    from ..numeric import simulate

    res = simulate(
        eq,
        (float(t[0]), float(t[-1])),
        t_eval=np.asarray(t, dtype=float).tolist(),
        q0=q0,
        dq0=dq0,
        inputs=None if u is None else np.asarray(u, dtype=float),
        formulation="projection" if eq.nc else "baumgarte",
        method="DOP853",
        rtol=rtol,
        atol=rtol,
        projection_tol=1e-13,
        p=p,
    )
    ddq = res.ddq
    y = res.y if res.y is not None else np.zeros((len(res.t), 0))
    if ddq is None or y.shape[1] != len(eq.outputs):
        raise RuntimeError(f"simulate of {eq.name!r} returned no accelerations or not every output")
    out: dict[str, np.ndarray] = {"time": np.asarray(res.t)}
    for i, c in enumerate(eq.coordinates):
        out[c.name] = res.q[:, i]
        out[symbol_name(c.dq)] = res.dq[:, i]
        out[symbol_name(c.ddq)] = ddq[:, i]
    for i, o in enumerate(eq.outputs):
        out[o.name] = y[:, i]
    return out


def max_relative_error(actual: np.ndarray, reference: np.ndarray) -> float:
    """``max |actual - reference| / max(1, max |reference|)`` (relative to the signal's amplitude)."""
    scale = max(1.0, float(np.max(np.abs(reference))) if reference.size else 1.0)
    return float(np.max(np.abs(np.asarray(actual) - np.asarray(reference)))) / scale


_FMI2_LOGGERS: list = []  # every FMI 2 logger handed to fmpy's message proxy, alive for the process


def _route_fmi2_messages(logger) -> None:
    """Send the messages of FMI 2 instances to ``logger`` through fmpy's formatting proxy.

    The proxy holds one Python logger for the whole process, also for the instances created with
    fmpy's default callbacks.  ``fmpy.instantiate_fmu(logger=...)`` hands it a callback that lives only
    as long as that FMU object: a message another instance logs afterwards (a warning while reading
    an output) would call freed memory.  Here the callback lives as long as the process.
    """
    from ctypes import byref

    from fmpy.fmi2 import fmi2CallbackFunctions, fmi2CallbackLoggerTYPE
    from fmpy.logging import addLoggerProxy

    callbacks, thunk = fmi2CallbackFunctions(), fmi2CallbackLoggerTYPE(logger)
    callbacks.logger = thunk
    addLoggerProxy(byref(callbacks))
    _FMI2_LOGGERS.append((callbacks, thunk))


class FmuSession:
    """One FMU instance driven through fmpy's low-level API, FMI 2 and 3 alike.

    Example:
        >>> s = FmuSession(cached_fmu("examples/simple_pendulum.py", 3, "cs"))  # doctest: +SKIP
        >>> s.initialize(theta=0.2); s.step(0.01); s.get("theta")  # doctest: +SKIP
    """

    def __init__(self, fmu: str | Path, fmi_type: str = "CoSimulation", logger=None, debug_logging: bool = False):
        import fmpy
        from fmpy.simulation import instantiate_fmu

        self.path = str(fmu)
        self.md = fmpy.read_model_description(self.path)
        self.unzipdir = fmpy.extract(self.path)
        self.fmi3 = self.md.fmiVersion.startswith("3")
        self.fmi_type = fmi_type
        self.vr = {v.name: v.valueReference for v in self.md.modelVariables}
        self.types = {v.name: v.type for v in self.md.modelVariables}
        if logger is not None and not self.fmi3:  # fmpy would keep the logger only as long as this FMU
            _route_fmi2_messages(logger)
            logger = None
        self.fmu = instantiate_fmu(self.unzipdir, self.md, fmi_type, logger=logger, debug_logging=debug_logging)
        self.time = 0.0
        self.nx = len(self.md.derivatives) if fmi_type == "ModelExchange" else 0

    # -- values -----------------------------------------------------------------
    def get(self, *names: str) -> np.ndarray:
        vrs = [self.vr[n] for n in names]
        values = self.fmu.getFloat64(vrs) if self.fmi3 else self.fmu.getReal(vrs)
        return np.array(values, dtype=float)

    def set(self, **values: Any) -> None:
        for name, value in values.items():
            vr = [self.vr[name]]
            t = self.types[name]
            if t in ("Real", "Float64"):
                (self.fmu.setFloat64 if self.fmi3 else self.fmu.setReal)(vr, [float(value)])
            elif t == "Boolean":
                self.fmu.setBoolean(vr, [bool(value)])
            else:
                (self.fmu.setInt64 if self.fmi3 else self.fmu.setInteger)(vr, [int(value)])

    # -- life cycle -----------------------------------------------------------------
    def initialize(self, start_time: float = 0.0, **values: Any) -> None:
        if not self.fmi3:
            self.fmu.setupExperiment(startTime=start_time)
        self.set(**values)
        if self.fmi3:
            self.fmu.enterInitializationMode(startTime=start_time)
        else:
            self.fmu.enterInitializationMode()
        self.fmu.exitInitializationMode()
        self.time = start_time
        if self.fmi_type == "ModelExchange":
            if self.fmi3:
                self.fmu.updateDiscreteStates()
            else:
                self.fmu.newDiscreteStates()
            self.fmu.enterContinuousTimeMode()

    def step(self, h: float) -> None:
        self.fmu.doStep(self.time, h)
        self.time += h

    # -- Model Exchange ------------------------------------------------------------------
    def states(self) -> np.ndarray:
        from ctypes import c_double

        x = (c_double * self.nx)()
        self.fmu.getContinuousStates(x, self.nx)
        return np.array(x)

    def set_states(self, x) -> None:
        from ctypes import c_double

        self.fmu.setContinuousStates((c_double * self.nx)(*x), self.nx)

    def derivatives(self) -> np.ndarray:
        from ctypes import c_double

        dx = (c_double * self.nx)()
        if self.fmi3:
            self.fmu.getContinuousStateDerivatives(dx, self.nx)
        else:
            self.fmu.getDerivatives(dx, self.nx)
        return np.array(dx)

    # -- derivatives and state ---------------------------------------------------------------
    def directional(self, unknowns: list[str], knowns: list[str], seed) -> np.ndarray:
        u = [self.vr[n] for n in unknowns]
        k = [self.vr[n] for n in knowns]
        return np.array(self.fmu.getDirectionalDerivative(u, k, list(map(float, seed))))

    def get_state(self):
        return self.fmu.getFMUState()

    def set_state(self, state) -> None:
        self.fmu.setFMUState(state)

    def free_state(self, state) -> None:
        self.fmu.freeFMUState(state)

    def serialize(self, state) -> bytes:
        return self.fmu.serializeFMUState(state)

    def deserialize(self, data: bytes):
        return self.fmu.deserializeFMUState(data)

    def close(self) -> None:
        try:
            self.fmu.terminate()
        except Exception:  # noqa: BLE001 - terminating in any mode is best effort
            pass
        self.fmu.freeInstance()
        shutil.rmtree(self.unzipdir, ignore_errors=True)
