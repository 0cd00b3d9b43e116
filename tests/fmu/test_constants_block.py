"""The constants block of a native FMU: parameter-only subexpressions computed once per parameter change.

``model.c`` reads the parameter-only subexpressions of its block functions from a constants block that
``sb_constants`` fills (:mod:`symbody.codegen.constants`); the runtime recomputes it whenever the
parameters change.  A tunable parameter set between steps (Co-Simulation) or in event mode (Model
Exchange) must change the results exactly as an FMU built with that value does, and an FMU state
restored or a reset must bring the block back with the parameters.  The model: two bodies on Z-Y-X
spherical joints (accelerations from the articulated-body algorithm), whose mass and link length
enter many products of parameters.
"""

from __future__ import annotations

import ctypes
import re

import fmpy
import numpy as np
import pytest
from fmpy.fmi2 import FMU2Model, FMU2Slave
from fmpy.fmi3 import FMU3Model, FMU3Slave

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.sources import ModelSource

DEFAULT = {"m1": 1.1, "l1": 0.8}
TUNED = {"m1": 1.45, "l1": 0.95}
H = 0.01  # communication step
STEP = {"solver.step": 1e-3}  # with solver.method = 1: rk4, whose steps do not depend on the past


def chain(values: dict[str, float]) -> sb.System:
    """Two bodies on Z-Y-X spherical joints, centres of mass off every axis, full inertia tensors."""
    s = sb.System("tuned_chain")
    s.gravity((0, 0, -s.parameter("g", 9.81)))
    base, point = s.ground_base, s.origin
    for k in range(2):
        angles = [s.coordinate(f"q{k}{a}", 0.2 + 0.1 * k + 0.05 * i) for i, a in enumerate("zyx")]
        if k:
            point = s.point(f"P{k}", point, sb.Vector(base, s.parameter(f"l{k}", values["l1"]), 0, 0))
        base = s.base(f"B{k}", base, sb.EulerAngles("zyx", angles))
        com = [s.parameter(f"c{k}{a}", v) for a, v in zip("xyz", (0.4, 0.05, -0.03))]
        inertia = sb.inertia(
            *(s.parameter(f"I{k}{a}", v) for a, v in zip("abcdef", (0.1, 0.3, 0.35, 0.01, -0.02, 0.015)))
        )
        mass = s.parameter(f"m{k}", values["m1"] if k else 1.0)
        s.solid(f"b{k}", point, base, mass=mass, com=com, inertia=inertia)
    return s


@pytest.fixture(scope="module")
def equations():
    return chain(DEFAULT).derive(formulation="articulated")


@pytest.fixture(scope="module")
def fmus(equations, tmp_path_factory):
    """(version, values) -> FMU path (Co-Simulation and Model Exchange in one)."""
    folder = tmp_path_factory.mktemp("constants")
    out = {}
    for version in (2, 3):
        for label, values in (("default", DEFAULT), ("tuned", TUNED)):
            eq = equations if label == "default" else chain(values).derive(formulation="articulated")
            out[version, label] = export_fmu(eq, folder / f"{label}{version}.fmu", fmi_version=version, kind="both")
    return out


def test_model_c_names_the_constants_block_and_reads_it(equations):
    text = "".join(ModelSource(equations, "both").files.values())
    nconst = int(re.search(r"\.nconst = (\d+),", text).group(1))
    assert nconst > 10  # products of masses, lengths and inertias
    head, body = re.search(r"/\* (constants block: [^\n]*) \*/\nvoid sb_constants\(const SbPoint \*_in, double \*_c\)\n(\{.*?\n\})", text, re.S).groups()  # fmt: skip
    assert f"constants block: {nconst} parameter-only subexpressions of " in head and "sb_accelerations_direct" in head
    assert "_in->p[" in body and not re.search(r"_in->(q|dq|u|t|c)\b", body)  # from the parameters alone
    assert len(re.findall(r"_c\[\d+\] = ", body)) == nconst
    direct = text[text.index("direct_blocks") :]
    assert "_in->c[" in direct and "constants block: parameter-only, computed once per parameter change" in direct


class Instance:
    """An FMU instance through fmpy, FMI 2 or 3, Model Exchange or Co-Simulation."""

    def __init__(self, path, version: int, me: bool, start: dict[str, float] | None = None, t0: float = 0.0):
        md = fmpy.read_model_description(str(path))
        self.version, self.me = version, me
        self.vr = {v.name: v.valueReference for v in md.modelVariables}
        cls = {(2, True): FMU2Model, (2, False): FMU2Slave, (3, True): FMU3Model, (3, False): FMU3Slave}[version, me]
        interface = md.modelExchange if me else md.coSimulation
        self.fmu = cls(guid=md.guid, unzipDirectory=fmpy.extract(str(path)), modelIdentifier=interface.modelIdentifier)
        self.fmu.instantiate()
        if not me:
            self.rk4()
        self.set(start or {})
        if version == 2:
            self.fmu.setupExperiment(startTime=t0)
            self.fmu.enterInitializationMode()
            self.fmu.exitInitializationMode()
        else:
            self.fmu.enterInitializationMode(startTime=t0)
            self.fmu.exitInitializationMode()
        if me:
            (self.fmu.newDiscreteStates if version == 2 else self.fmu.updateDiscreteStates)()
            self.fmu.enterContinuousTimeMode()
        self.nx = len(md.derivatives)
        self.states = [d.variable.derivative.name for d in md.derivatives]
        self.t = t0

    def rk4(self) -> None:
        (self.fmu.setInteger if self.version == 2 else self.fmu.setInt64)([self.vr["solver.method"]], [1])
        self.set(STEP)

    def set(self, values: dict[str, float]) -> None:
        if values:
            setter = self.fmu.setReal if self.version == 2 else self.fmu.setFloat64
            setter([self.vr[k] for k in values], list(values.values()))

    def get(self, names: list[str]) -> np.ndarray:
        return np.array((self.fmu.getReal if self.version == 2 else self.fmu.getFloat64)([self.vr[n] for n in names]))

    def set_parameters(self, values: dict[str, float]) -> None:
        """Tunable parameters: between steps (CS), in event mode (ME)."""
        if self.me:
            self.fmu.enterEventMode()
            self.set(values)
            (self.fmu.newDiscreteStates if self.version == 2 else self.fmu.updateDiscreteStates)()
            self.fmu.enterContinuousTimeMode()
        else:
            self.set(values)

    def derivatives(self, x: np.ndarray) -> np.ndarray:
        self.fmu.setContinuousStates((ctypes.c_double * self.nx)(*x), self.nx)
        buf = (ctypes.c_double * self.nx)()
        (self.fmu.getDerivatives if self.version == 2 else self.fmu.getContinuousStateDerivatives)(buf, self.nx)
        return np.array(buf)

    def steps(self, count: int) -> np.ndarray:
        """``count`` communication steps of H; the states after them."""
        for _ in range(count):
            self.fmu.doStep(self.t, H)
            self.t = round(self.t + H, 12)
        return self.get(self.states)


@pytest.mark.parametrize("version", (2, 3))
def test_parameter_set_in_event_mode_gives_the_derivatives_of_an_fmu_built_with_it(fmus, version):
    x = np.random.default_rng(7).uniform(-1.0, 1.0, 12)
    tuned = Instance(fmus[version, "default"], version, me=True)
    before = tuned.derivatives(x)
    tuned.set_parameters(TUNED)
    after = tuned.derivatives(x)
    reference = Instance(fmus[version, "tuned"], version, me=True).derivatives(x)
    assert np.array_equal(after, reference)  # bit for bit: the same code from the same parameters
    assert np.max(np.abs(before[6:] - after[6:])) > 1e-3  # the parameters matter
    tuned.set_parameters(DEFAULT)
    assert np.array_equal(tuned.derivatives(x), before)


@pytest.mark.parametrize("version", (2, 3))
def test_parameter_set_between_steps_continues_as_an_fmu_built_with_it(fmus, version):
    tuned = Instance(fmus[version, "default"], version, me=False)
    at_switch = tuned.steps(5)
    tuned.set_parameters(TUNED)
    after = tuned.steps(5)
    # an FMU built with the tuned values, started from the state at the switch
    reference = Instance(fmus[version, "tuned"], version, me=False, start=dict(zip(tuned.states, at_switch)), t0=tuned.t - 5 * H)  # fmt: skip
    assert np.array_equal(after, reference.steps(5))
    untuned = Instance(fmus[version, "default"], version, me=False)
    untuned.steps(5)
    assert np.max(np.abs(untuned.steps(5) - after)) > 1e-6


@pytest.mark.parametrize("version", (2, 3))
def test_restored_state_and_reset_bring_back_the_parameters_constants(fmus, version):
    plain = Instance(fmus[version, "default"], version, me=False)
    plain.steps(3)
    expected = plain.steps(3)  # the default parameters throughout

    fmu = Instance(fmus[version, "default"], version, me=False)
    fmu.steps(3)
    saved = fmu.fmu.getFMUState()
    fmu.set_parameters(TUNED)
    tuned_state = fmu.fmu.getFMUState()
    tuned = fmu.steps(3)
    assert np.max(np.abs(tuned - expected)) > 1e-6
    fmu.fmu.setFMUState(saved)  # the default parameters again: their constants with them
    fmu.t = 3 * H
    assert np.array_equal(fmu.steps(3), expected)
    fmu.fmu.setFMUState(tuned_state)  # a state saved with other parameters than the instance has now
    fmu.t = 3 * H
    assert np.array_equal(fmu.steps(3), tuned)

    fmu.set_parameters(TUNED)
    fmu.fmu.reset()  # the start values, default parameters included
    fmu.rk4()
    if version == 2:
        fmu.fmu.setupExperiment(startTime=0.0)
        fmu.fmu.enterInitializationMode()
    else:
        fmu.fmu.enterInitializationMode(startTime=0.0)
    fmu.fmu.exitInitializationMode()
    fmu.t = 0.0
    fmu.steps(3)
    assert np.array_equal(fmu.steps(3), expected)
