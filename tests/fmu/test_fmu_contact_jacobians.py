"""Directional derivatives of FMUs with unilateral contacts: those of the current contact mode (the
closed contacts held as constraints with their Baumgarte terms, their forces as multipliers).  Checked
against the closed form of a ball resting on the floor and against central differences of the FMU's own
derivatives and outputs within one mode (a pendulum on a rod leaning on a wall, pushed by an input),
FMI 2 and 3, exact and forward-mode Jacobians."""

from __future__ import annotations

import ctypes
import math
import xml.etree.ElementTree as ET
import zipfile

import fmpy
import numpy as np
import pytest
from fmpy.fmi2 import FMU2Model
from fmpy.fmi3 import FMU3Model

import symbody as sb
from symbody.fmu import export_fmu

G = 9.81
ALPHA = BETA = 10.0  # the default Baumgarte parameters of the FMUs


class ModeInstance:
    """An ME instance after initialization and the initial event iteration (the contact modes set)."""

    def __init__(self, path, version: int):
        md = fmpy.read_model_description(str(path))
        self.version = version
        unzip = fmpy.extract(str(path))
        ident = md.modelExchange.modelIdentifier
        cls = FMU2Model if version == 2 else FMU3Model
        self.fmu = cls(guid=md.guid, unzipDirectory=unzip, modelIdentifier=ident, instanceName="a")
        self.fmu.instantiate()
        if version == 2:
            self.fmu.setupExperiment(startTime=0.0)
            self.fmu.enterInitializationMode()
            self.fmu.exitInitializationMode()
            self.fmu.newDiscreteStates()
        else:
            self.fmu.enterInitializationMode(startTime=0.0)
            self.fmu.exitInitializationMode()
            self.fmu.updateDiscreteStates()
        self.fmu.enterContinuousTimeMode()
        self.nx = len(md.derivatives)
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        self.der = [d.variable.valueReference for d in md.derivatives]
        self.states = [d.variable.derivative.valueReference for d in md.derivatives]
        xml = ET.fromstring(zipfile.ZipFile(path).read("modelDescription.xml"))
        attr = "providesDirectionalDerivative" + ("" if version == 2 else "s")
        self.flag = xml.find("ModelExchange").get(attr) == "true"

    def x(self) -> np.ndarray:
        buf = (ctypes.c_double * self.nx)()
        self.fmu.getContinuousStates(buf, self.nx)
        return np.array(buf)

    def set_x(self, x: np.ndarray) -> None:
        self.fmu.setContinuousStates((ctypes.c_double * self.nx)(*x), self.nx)

    def values(self, outputs: list[str]) -> np.ndarray:
        """The state derivatives, then the outputs."""
        buf = (ctypes.c_double * self.nx)()
        (self.fmu.getDerivatives if self.version == 2 else self.fmu.getContinuousStateDerivatives)(buf, self.nx)
        read = self.fmu.getReal if self.version == 2 else self.fmu.getFloat64
        return np.concatenate([np.array(buf), read([self.vr[o] for o in outputs])])

    def set_real(self, name: str, value: float) -> None:
        (self.fmu.setReal if self.version == 2 else self.fmu.setFloat64)([self.vr[name]], [value])

    def close(self) -> None:
        self.fmu.terminate()
        self.fmu.freeInstance()

    def directional(self, known: int, outputs: list[str]) -> np.ndarray:
        unknowns = self.der + [self.vr[o] for o in outputs]
        return np.array(self.fmu.getDirectionalDerivative(unknowns, [known], [1.0]))


def resting_ball(m: float) -> sb.System:
    s = sb.System("rest")
    y = s.coordinate("y", 0.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), s.parameter("m", m))
    s.gravity((0, -G, 0))
    c = s.unilateral("floor", y, restitution=0.5)
    s.output("N", c.force)
    return s


@pytest.mark.parametrize("version", (2, 3))
def test_resting_ball_directional_derivatives_closed_form(tmp_path, version):
    """Closed: ddy = -(2 alpha dy + beta^2 y) (the contact row with Baumgarte's terms) and
    N = m (g + ddy); open (lifted in flight): ddy = -g, N = 0, no dependence on the states."""
    m = 2.0
    fmu = export_fmu(resting_ball(m), tmp_path / f"rest{version}.fmu", fmi_version=version, kind="me")
    inst = ModeInstance(fmu, version)
    assert inst.flag
    assert inst.values(["N"])[2] == pytest.approx(m * G, rel=1e-12)  # closed at the initial event iteration
    inst.set_x(np.array([1e-3, 0.02]))  # off the constraint manifold, still in the closed mode
    d_y = inst.directional(inst.states[0], ["N"])
    d_dy = inst.directional(inst.states[1], ["N"])
    assert np.allclose(d_y, [0.0, -(BETA**2), -m * BETA**2], rtol=1e-8, atol=1e-8)
    assert np.allclose(d_dy, [1.0, -2 * ALPHA, -2 * m * ALPHA], rtol=1e-8, atol=1e-8)
    assert inst.values(["N"])[2] == pytest.approx(m * (G - 2 * ALPHA * 0.02 - BETA**2 * 1e-3), rel=1e-10)
    inst.set_x(np.array([0.5, 0.0]))  # lifted: the event opens the contact
    if version == 2:
        inst.fmu.enterEventMode()
        inst.fmu.newDiscreteStates()
    else:
        inst.fmu.enterEventMode()
        inst.fmu.updateDiscreteStates()
    inst.fmu.enterContinuousTimeMode()
    assert np.allclose(inst.directional(inst.states[0], ["N"]), 0.0, atol=1e-12)
    assert np.allclose(inst.directional(inst.states[1], ["N"]), [1.0, 0.0, 0.0], atol=1e-12)
    inst.close()


def leaning_pendulum() -> sb.System:
    """A particle on a rod of length l leaning at 20 degrees on a wall x >= l sin(20 deg), pushed by an
    input force F along x; outputs the contact force and a product with a coordinate."""
    l, th = 1.5, math.radians(20)
    s = sb.System("lean")
    x = s.coordinate("x", l * math.sin(th))
    y = s.coordinate("y", -l * math.cos(th))
    s.particle("b", s.point("P", s.origin, (x, y, 0)), 1.3)
    s.gravity((0, -G, 0))
    s.constraint("rod", x**2 + y**2 - l**2)
    s.generalized_force("push", x, s.input("F"))
    c = s.unilateral("wall", x - l * math.sin(th), restitution=0.3)
    s.output("N", c.force)
    s.output("Ny", c.force * y)
    return s


def leaning_angle_pendulum() -> sb.System:
    """The same in its angle, without a bilateral constraint: the wall's gap l sin(theta) - l sin(20 deg) has
    a gradient that turns with theta (the contact force's direction depends on the state)."""
    l, th = 1.5, math.radians(20)
    s = sb.System("lean_angle")
    theta = s.coordinate("theta", th)
    s.particle("b", s.point("P", s.origin, (l * sb.sin(theta), -l * sb.cos(theta), 0)), 1.3)
    s.gravity((0, -G, 0))
    s.generalized_force("push", theta, s.input("F"))
    c = s.unilateral("wall", l * sb.sin(theta) - l * math.sin(th), restitution=0.3)
    s.output("N", c.force)
    s.output("Ny", c.force * sb.cos(theta))
    return s


LEANING = {"lean": (leaning_pendulum, [1e-3, -2e-3, 0.05, 0.03]), "lean_angle": (leaning_angle_pendulum, [2e-3, 0.04])}


@pytest.mark.parametrize("model", LEANING)
@pytest.mark.parametrize("mode", ("exact", "forward"))
@pytest.mark.parametrize("version", (2, 3))
def test_leaning_pendulum_directional_derivatives_match_differences(tmp_path, version, mode, model):
    build, offset = LEANING[model]
    fmu = export_fmu(build(), tmp_path / f"{model}{version}{mode}.fmu", fmi_version=version, kind="me",
                     jacobians=mode)  # fmt: skip
    inst = ModeInstance(fmu, version)
    assert inst.flag
    outputs = ["N", "Ny"]
    x0 = inst.x() + np.array(offset)  # off the manifolds, in the closed mode
    inst.set_x(x0)
    inst.set_real("F", -0.7)
    assert inst.values(outputs)[inst.nx] > 1.0  # the wall pushes
    h = 1e-6
    for k, vr in enumerate(inst.states):
        exact = inst.directional(vr, outputs)
        sides = []
        for sign in (1, -1):
            x = x0.copy()
            x[k] += sign * h
            inst.set_x(x)
            sides.append(inst.values(outputs))
        inst.set_x(x0)
        diff = (sides[0] - sides[1]) / (2 * h)
        assert np.allclose(exact, diff, rtol=1e-6, atol=1e-6 * (1 + np.abs(diff).max())), (k, exact, diff)
    exact = inst.directional(inst.vr["F"], outputs)
    sides = []
    for sign in (1, -1):
        inst.set_real("F", -0.7 + sign * h)
        sides.append(inst.values(outputs))
    diff = (sides[0] - sides[1]) / (2 * h)
    assert np.allclose(exact, diff, rtol=1e-6, atol=1e-6 * (1 + np.abs(diff).max())), (exact, diff)
    assert abs(exact[inst.nx]) > 0.1  # the input presses on the wall: the force depends on it
    inst.close()
