"""A Co-Simulation FMU stepped by hand with fmpy (FMI 2 or 3): set inputs, read outputs, doStep, in that order,
so that tests can compare controller FMUs with python-control and with their documented difference equations."""

from __future__ import annotations

from pathlib import Path

import fmpy
import numpy as np
from fmpy.fmi2 import FMU2Slave
from fmpy.fmi3 import FMU3Slave


class Stepper:
    """One instance of a Co-Simulation FMU, initialized at ``start`` with ``parameters`` set before."""

    def __init__(self, fmu: str | Path, start: float = 0.0, parameters: dict[str, float] | None = None):
        md = fmpy.read_model_description(str(fmu))
        self.md = md
        self.folder = fmpy.extract(str(fmu))
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.fmi3 = md.fmiVersion.startswith("3")
        cls = FMU3Slave if self.fmi3 else FMU2Slave
        self.slave = cls(
            guid=md.guid, unzipDirectory=self.folder, modelIdentifier=md.coSimulation.modelIdentifier, instanceName="t"
        )
        self.slave.instantiate()
        self.time = start
        if not self.fmi3:
            self.slave.setupExperiment(startTime=start)
        self.set(parameters or {})
        if self.fmi3:
            self.slave.enterInitializationMode(startTime=start)
        else:
            self.slave.enterInitializationMode()
        self.slave.exitInitializationMode()

    def set(self, values: dict[str, float]) -> None:
        if values:
            refs, vals = [self.vr[n] for n in values], [float(v) for v in values.values()]
            (self.slave.setFloat64 if self.fmi3 else self.slave.setReal)(refs, vals)

    def get(self, names: list[str]) -> list[float]:
        return list((self.slave.getFloat64 if self.fmi3 else self.slave.getReal)([self.vr[n] for n in names]))

    def step(self, h: float) -> None:
        self.slave.doStep(self.time, h)
        self.time += h

    def close(self) -> None:
        self.slave.terminate()
        self.slave.freeInstance()


def respond(fmu, inputs: dict[str, np.ndarray], outputs: list[str], h: float, parameters=None) -> np.ndarray:
    """Outputs at the communication points k h, the inputs ``inputs[name][k]`` set at each before reading them."""
    s = Stepper(fmu, 0.0, parameters)
    n = len(next(iter(inputs.values())))
    rows = []
    for k in range(n):
        s.set({name: float(u[k]) for name, u in inputs.items()})
        rows.append(s.get(outputs))
        s.step(h)
    s.close()
    return np.array(rows)
