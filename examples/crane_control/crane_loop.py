"""A sampled controller in closed loop with a plant: the FMU through fmpy, or symbody's Python model.

Both plants offer the same four calls, so one loop drives either:

* ``read(names) -> array``: sample outputs (the FMU's ``getReal``/``getFloat64``);
* ``write(names, values)``: set inputs (``setReal``/``setFloat64``), held until the next write;
* ``step(t, h)``: advance from ``t`` to ``t + h`` (``doStep``);
* ``close()``.

:class:`FmuPlant` is a Co-Simulation FMU driven with fmpy's low-level API
(``FMU2Slave``/``FMU3Slave``: instantiate, set parameters, initialize,
get/set, ``doStep``), exactly what a control engineer's co-simulation script
or a real-time target does.  :class:`ModelPlant` is the same plant as
symbody's Python model: each step is one call of
:func:`symbody.numeric.simulate` from the current state with the inputs held,
so the controller sees the same zero-order hold (a feedback callable
``inputs=f(t, q, dq)`` of :func:`symbody.numeric.simulate` would be a
continuous-time controller instead, not the sampled one the FMU loop runs).
:func:`run_closed_loop` samples the plant every ``h`` seconds, calls the
controller and records.

Example (a pendulum held by a sampled PD controller on both plants):
    >>> import tempfile, pathlib, numpy as np, symbody as sb
    >>> s = sb.System("pendulum"); th = s.coordinate("theta", 0.3, unit="rad")
    >>> _ = s.particle("bob", s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -1, 0)), 1.0)
    >>> s.gravity((0, -9.81, 0)); _ = s.generalized_force("motor", th, s.input("T"))
    >>> eq = s.derive()
    >>> pd = FeedbackLaw(["theta", "dtheta"], ["T"], lambda t, y: np.array([-20 * y[0] - 5 * y[1]]))
    >>> fmu = sb.fmu.export_fmu(eq, pathlib.Path(tempfile.mkdtemp()) / "p.fmu", kind="cs")
    >>> a = run_closed_loop(FmuPlant(fmu), pd, 2.0, 0.01)
    >>> b = run_closed_loop(ModelPlant(eq), pd, 2.0, 0.01)
    >>> bool(np.max(np.abs(a["theta"] - b["theta"])) < 1e-6), bool(abs(a["theta"][-1]) < 0.01)
    (True, True)
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from symbody.numeric import NumericModel, simulate

# ---------------------------------------------------------------------------
# controllers
# ---------------------------------------------------------------------------


@dataclass
class FeedbackLaw:
    """A sampled controller: ``u = law(t, y)`` with ``y`` the sampled ``measured`` outputs.

    Attributes:
        measured: names of the plant outputs the controller samples.
        inputs: names of the plant inputs it sets.
        law: ``law(t, y) -> u`` (arrays in the order of ``measured`` and ``inputs``).
        limits: optional ``{input name: (low, high)}`` actuator limits applied to ``u``.
    """

    measured: list[str]
    inputs: list[str]
    law: Callable[[float, np.ndarray], np.ndarray]
    limits: dict[str, tuple[float, float]] = field(default_factory=dict)

    def __call__(self, t: float, y: np.ndarray) -> np.ndarray:
        u = np.asarray(self.law(t, y), dtype=float).reshape(-1)
        for name, (lo, hi) in self.limits.items():
            i = self.inputs.index(name)
            u[i] = min(max(u[i], lo), hi)
        return u


# ---------------------------------------------------------------------------
# plants
# ---------------------------------------------------------------------------


class FmuPlant:
    """A Co-Simulation FMU (FMI 2.0 or 3.0) stepped with fmpy's low-level API.

    Args:
        path: the ``.fmu`` file.
        parameters: ``{name: value}`` set before initialization (model parameters or
            solver settings such as ``solver.method`` = 2 (dopri5), ``solver.rtol``).
        instance_name: name of the FMU instance.
    """

    def __init__(self, path: str | Path, parameters: dict[str, Any] | None = None, instance_name: str = "plant"):
        from fmpy import extract, read_model_description

        self.path = Path(path)
        self.md = read_model_description(str(self.path))
        if self.md.coSimulation is None:
            raise ValueError(f"{self.path.name} is not a Co-Simulation FMU")
        self.fmi3 = self.md.fmiVersion.startswith("3")
        self._vars = {v.name: v for v in self.md.modelVariables}
        self._dir = extract(str(self.path), unzipdir=tempfile.mkdtemp(prefix="crane_fmu_"))
        kw = dict(
            guid=self.md.guid,
            unzipDirectory=self._dir,
            modelIdentifier=self.md.coSimulation.modelIdentifier,
            instanceName=instance_name,
        )
        if self.fmi3:
            from fmpy.fmi3 import FMU3Slave

            self.fmu = FMU3Slave(**kw)
            self.fmu.instantiate()
        else:
            from fmpy.fmi2 import FMU2Slave

            self.fmu = FMU2Slave(**kw)
            self.fmu.instantiate()
            self.fmu.setupExperiment(startTime=0.0)
        for name, value in (parameters or {}).items():
            self._set(name, value)
        if self.fmi3:
            self.fmu.enterInitializationMode(startTime=0.0)
        else:
            self.fmu.enterInitializationMode()
        self.fmu.exitInitializationMode()
        self._closed = False

    def _vr(self, names: Sequence[str]) -> list[int]:
        try:
            return [self._vars[n].valueReference for n in names]
        except KeyError as e:
            raise KeyError(f"{e.args[0]!r} is not a variable of {self.path.name}") from None

    def _set(self, name: str, value: Any) -> None:
        vr = self._vr([name])
        if self._vars[name].type in ("Real", "Float64"):
            (self.fmu.setFloat64 if self.fmi3 else self.fmu.setReal)(vr, [float(value)])
        elif self._vars[name].type in ("Integer", "Enumeration", "Int64", "Int32"):
            (self.fmu.setInt64 if self.fmi3 else self.fmu.setInteger)(vr, [int(value)])
        elif self._vars[name].type == "Boolean":
            self.fmu.setBoolean(vr, [bool(value)])
        else:
            raise TypeError(f"cannot set {name!r} of type {self._vars[name].type}")

    def read(self, names: Sequence[str]) -> np.ndarray:
        vr = self._vr(names)
        return np.array(self.fmu.getFloat64(vr) if self.fmi3 else self.fmu.getReal(vr), dtype=float)

    def write(self, names: Sequence[str], values: Sequence[float]) -> None:
        vr = self._vr(names)
        vals = [float(v) for v in values]
        (self.fmu.setFloat64 if self.fmi3 else self.fmu.setReal)(vr, vals)

    def step(self, t: float, h: float) -> None:
        self.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)

    def close(self) -> None:
        if not self._closed:
            self.fmu.terminate()
            self.fmu.freeInstance()
            shutil.rmtree(self._dir, ignore_errors=True)
            self._closed = True


class ModelPlant:
    """The plant as symbody's Python model: every ``step`` integrates with :func:`symbody.numeric.simulate`.

    Args:
        eq: the derived :class:`symbody.Equations`.
        parameters: ``{name: value}`` overriding the model parameters.
        rtol, atol: tolerances of the integrator (DOP853).
    """

    def __init__(self, eq, parameters: dict[str, float] | None = None, rtol: float = 1e-10, atol: float = 1e-12):
        self.eq = eq
        self.nm = NumericModel(eq, parameters)
        self.q = np.array(eq.q0, dtype=float)
        self.dq = np.array(eq.dq0, dtype=float)
        self.u = np.array(eq.u0, dtype=float)
        self.t = 0.0
        self.rtol, self.atol = rtol, atol
        self._inputs = [x.name for x in eq.inputs]

    def read(self, names: Sequence[str]) -> np.ndarray:
        ddq = y = None
        out = []
        for name in names:
            kind, i = self.eq.index(name)
            if kind == "q":
                out.append(self.q[i])
            elif kind == "dq":
                out.append(self.dq[i])
            elif kind == "u":
                out.append(self.u[i])
            elif kind in ("ddq", "y"):
                if ddq is None:
                    ddq, lam = self.nm.accelerations(self.q, self.dq, t=self.t, u=self.u)
                    y = self.nm.outputs(self.q, self.dq, t=self.t, u=self.u, ddq=ddq, lam=lam)
                out.append(ddq[i] if kind == "ddq" else y[i])
            else:
                raise KeyError(f"{name!r} cannot be read from the plant (it is a {kind})")
        return np.array(out, dtype=float)

    def write(self, names: Sequence[str], values: Sequence[float]) -> None:
        for name, v in zip(names, values):
            try:
                self.u[self._inputs.index(name)] = float(v)
            except ValueError:
                raise KeyError(f"{name!r} is not an input of {self.eq.name!r}") from None

    def step(self, t: float, h: float) -> None:
        res = simulate(
            self.nm,
            (t, t + h),
            t_eval=[t + h],
            q0=self.q,
            dq0=self.dq,
            inputs=self.u.copy(),
            rtol=self.rtol,
            atol=self.atol,
        )
        self.q, self.dq, self.t = res.q[-1].copy(), res.dq[-1].copy(), t + h

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------------
# the loop
# ---------------------------------------------------------------------------


@dataclass
class LoopResult:
    """Samples of a closed-loop run: ``res["theta"]`` gives one signal, ``res.t`` the times."""

    t: np.ndarray
    signals: dict[str, np.ndarray]

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "time":
            return self.t
        return self.signals[name]


def run_closed_loop(
    plant,
    controller: FeedbackLaw,
    t_end: float,
    h: float = 0.01,
    record: Sequence[str] = (),
    close: bool = True,
) -> LoopResult:
    """Sample the plant every ``h`` s, apply the controller's inputs until the next sample, record.

    Args:
        plant: a :class:`FmuPlant` or :class:`ModelPlant`.
        controller: the sampled controller.
        t_end: duration of the run (s).
        h: sampling period = communication step (s).
        record: further plant outputs to record besides the measured ones and the inputs.
        close: close the plant at the end.

    Returns:
        :class:`LoopResult` with every measured and recorded output (sampled at
        ``t_k = k h`` before the inputs of that sample are set) and every input
        (the value held from ``t_k`` on).
    """
    n = int(round(t_end / h))
    extra = [r for r in record if r not in controller.measured]
    names = list(controller.measured) + extra
    ys = np.zeros((n + 1, len(names)))
    us = np.zeros((n + 1, len(controller.inputs)))
    t = 0.0
    try:
        for k in range(n + 1):
            t = k * h
            y = plant.read(names)
            u = controller(t, y[: len(controller.measured)])
            plant.write(controller.inputs, u)
            ys[k], us[k] = y, u
            if k < n:
                plant.step(t, h)
    finally:
        if close:
            plant.close()
    signals = {nm: ys[:, j] for j, nm in enumerate(names)}
    signals.update({nm: us[:, j] for j, nm in enumerate(controller.inputs)})
    return LoopResult(h * np.arange(n + 1), signals)


# ---------------------------------------------------------------------------
# plots shared by the scripts
# ---------------------------------------------------------------------------


def pyplot():
    """matplotlib's pyplot with a file backend (the scripts only write PNGs)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_fmu_vs_python(
    fmu_run: LoopResult,
    py_run: LoopResult,
    path: Path,
    signals: Sequence[tuple[str, float, str]],
    title: str,
) -> None:
    """The same closed loop on the FMU and on the Python model, and their difference.

    ``signals`` lists ``(name, scale, unit)`` for the two columns; the FMU run is cut to the
    Python run's horizon.
    """
    plt = pyplot()
    n = len(py_run.t)
    fig, ax = plt.subplots(2, 2, figsize=(10, 6), sharex=True)
    for j, (name, scale, unit) in enumerate(signals):
        ax[0, j].plot(fmu_run.t[:n], scale * fmu_run[name][:n], lw=2.5, label="FMU (fmpy, 10 ms doStep)")
        ax[0, j].plot(py_run.t, scale * py_run[name], "--", lw=1.2, label="Python model (symbody.numeric)")
        ax[0, j].set_ylabel(f"{name} [{unit}]")
        ax[1, j].plot(py_run.t, scale * (fmu_run[name][:n] - py_run[name]))
        ax[1, j].set_ylabel(f"FMU - Python [{unit}]")
        ax[1, j].set_xlabel("time [s]")
    ax[0, 0].legend(fontsize=8)
    ax[0, 0].set_title(title, fontsize=10)
    for a in ax.flat:
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
