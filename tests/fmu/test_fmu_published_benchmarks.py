"""FMUs of the published benchmarks of ``tests/models/``: their initial states.

* Andrews' squeezing mechanism (Mazzia and Magherini, "Test Set for Initial Value Problem Solvers",
  University of Bari, 2008): the accelerations and multipliers an FMU gives at the test set's initial
  positions are the test set's consistent initial values, to rounding (as symbody.numeric's:
  ``tests/numeric/test_andrews_squeezer.py``).
* The Whipple bicycle of Meijaard et al. (2007) started steered: its start velocities (forward speed
  4.6 m/s, no yaw rate) do not satisfy the rolling constraints at a steer angle.  The FMU keeps the
  independent ones, as :func:`symbody.numeric.solve_velocities` does, and computes the others (a yaw
  rate).  It changed them all by a minimum-norm step instead, which mixes units: the forward speed
  went to 3.3 m/s and a steer rate of -9.4 rad/s appeared, with no message.  Velocities the importer
  sets that the constraints cannot keep are an error naming the constraint.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

from symbody.fmu.start_velocities import independent_velocities
from symbody.fmu.testing import FmuSession, cached_equations, cached_fmu
from symbody.numeric import NumericModel, assemble, solve_velocities
from symbody.numeric.kinematics import split_coordinates

from support import EXAMPLES, MODELS

ANDREWS = str(MODELS / "andrews_squeezer.py")
BICYCLE = str(MODELS / "whipple_bicycle.py")
STEERED = (("phi", 0.1), ("delt", 0.2), ("hold_yaw", True))
DDQ0 = np.array([14222.4439199541138705911625887, -10666.8329399655854029433719415, 0.0, 0.0, 0.0, 0.0, 0.0])
LAM0 = np.array([98.5668703962410896057654982170, -6.12268834425566265503114393122, 0.0, 0.0, 0.0, 0.0])
CASES = [(2, "cs", "c"), (3, "me", "c"), (2, "cs", "python")]
IDS = [f"fmi{v}-{k}-{b}" for v, k, b in CASES]


def relative(actual, expected) -> float:
    return float(np.linalg.norm(np.asarray(actual) - expected) / np.linalg.norm(expected))


def initial_values(model: str, version: int, kind: str, backend: str, names: list[str], options=(), **start):
    """The values of ``names`` after initialization with ``start``; a Python-backend FMU in a fresh process
    (pythonfmu keeps process-wide state that other tests' instances break: see test_fmu_python), which
    ends with os._exit: pythonfmu's native library can abort the interpreter's shutdown after it was unloaded."""
    fmu = cached_fmu(model, version, kind, backend, options)
    fmi_type = "CoSimulation" if kind == "cs" else "ModelExchange"
    if backend == "python":
        code = (
            "import json, sys; from symbody.fmu.testing import FmuSession; "
            f"s = FmuSession({str(fmu)!r}, {fmi_type!r}); s.initialize(**{start!r}); "
            f"print(json.dumps(s.get(*{names!r}).tolist())); s.close(); import os; sys.stdout.flush(); os._exit(0)"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-4000:]
        return np.array(json.loads(proc.stdout.splitlines()[-1]))
    s = FmuSession(fmu, fmi_type)
    try:
        s.initialize(**start)
        return s.get(*names)
    finally:
        s.close()


@pytest.mark.parametrize("version,kind,backend", CASES, ids=IDS)
def test_andrews_initial_accelerations_and_multipliers_are_the_test_set_s(version, kind, backend):
    names = [f"dd{c.name}" for c in cached_equations(ANDREWS).coordinates] + [f"lam{k}" for k in range(1, 7)]
    values = initial_values(ANDREWS, version, kind, backend, names)
    assert relative(values[:7], DDQ0) < 1e-12
    assert relative(values[7:], LAM0) < 1e-12


def consistent_start(options: tuple = (), q_start: dict | None = None, dq_start: dict | None = None, independent=None):
    """symbody.numeric's consistent initial state: assembled positions, then the velocity problem
    keeping the independent start velocities."""
    eq = cached_equations(BICYCLE, options)
    names = [c.name for c in eq.coordinates]
    q = np.array(eq.q0, dtype=float)
    dq = np.array(eq.dq0, dtype=float)
    for k, v in (q_start or {}).items():
        q[names.index(k)] = v
    for k, v in (dq_start or {}).items():
        dq[names.index(k)] = v
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q = assemble(eq, q).q
    return names, q, solve_velocities(eq, q, dq=dq, independent=independent).values


def fmu_start(version, kind, backend, options=(), **start):
    names = [c.name for c in cached_equations(BICYCLE, options).coordinates]
    values = initial_values(BICYCLE, version, kind, backend, names + [f"d{n}" for n in names], options, **start)
    return values[: len(names)], values[len(names) :]


@pytest.mark.parametrize("version,kind,backend", CASES, ids=IDS)
def test_bicycle_started_steered_keeps_its_independent_start_velocities(version, kind, backend):
    names, q, dq = consistent_start(STEERED)
    assert dq[names.index("x")] == pytest.approx(4.6, rel=1e-12)  # the forward speed kept
    assert abs(dq[names.index("psi")]) > 0.5  # a yaw rate: the steered front wheel rolls
    q_fmu, dq_fmu = fmu_start(version, kind, backend, STEERED)
    np.testing.assert_allclose(q_fmu, q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dq_fmu, dq, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("version,kind,backend", CASES[:2], ids=IDS[:2])
def test_bicycle_steered_by_the_importer_keeps_the_velocities_it_sets(version, kind, backend):
    """Roll and steer set by the importer (the FMU built upright), and a forward speed: the importer's
    velocity is kept, the model's independent start velocities complete it (roll and steer rates; its
    rear wheel speed gives way), the others follow, as solve_velocities with those independent."""
    start = {"phi": 0.1, "delt": 0.2}
    names, q, dq = consistent_start(q_start=start, dq_start={"x": 5.0}, independent=["x", "phi", "delt"])
    q_fmu, dq_fmu = fmu_start(version, kind, backend, phi=0.1, delt=0.2, dx=5.0)
    assert dq_fmu[names.index("x")] == 5.0
    np.testing.assert_allclose(q_fmu, q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dq_fmu, dq, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("version,kind", [(2, "cs"), (3, "me")])
def test_start_velocities_the_constraints_cannot_keep_are_an_error(version, kind):
    """Every start velocity set, none to the model's own: more than the three degrees of freedom, and
    values that do not roll.  An error naming a constraint and the velocities kept, not a state with
    some of them changed."""
    velocities = {"dx": 5.0, "dy": 0.1, "dpsi": 0.2, "dphi": 0.3, "dtheta": 0.4, "ddelt": 0.5, "dthetaR": -15.0}
    messages: list[str] = []
    log = lambda *a: messages.append(a[-1].decode() if isinstance(a[-1], bytes) else a[-1])  # noqa: E731
    s = FmuSession(
        cached_fmu(BICYCLE, version, kind, "c", STEERED),
        "CoSimulation" if kind == "cs" else "ModelExchange",
        logger=log,
        debug_logging=True,
    )
    try:
        with pytest.raises(FMICallException, match="ExitInitializationMode"):
            s.initialize(dthetaF=-13.0, **velocities)
    finally:
        s.close()
    text = "\n".join(messages)
    assert "the start velocities contradict constraint '" in text, text
    assert all(f"'{name}' (set by the host)" in text for name in velocities), text


AGREEMENT = [
    (BICYCLE, ()),
    (BICYCLE, STEERED),
    (BICYCLE, (("phi", -0.3), ("delt", 0.6))),
    (ANDREWS, ()),
    (str(MODELS / "parallelogram.py"), ()),
    (str(MODELS / "equal_slider_crank.py"), (("a10", 0.7),)),
    (str(EXAMPLES / "four_bar.py"), ()),  # a coordinate held for assembly
    (str(EXAMPLES / "crank_rod_disc.py"), ()),  # auxiliary coordinates, a rolling disc
    (str(EXAMPLES / "slider_crank.py"), ()),
]


@pytest.mark.parametrize(
    "model,options", AGREEMENT, ids=lambda x: x.rsplit("/", 1)[-1][:-3] if isinstance(x, str) else ""
)
def test_independent_start_velocities_are_those_of_symbody_numeric(model, options):
    """The export's numpy choice (symbody.fmu.start_velocities) is symbody.numeric's partition."""
    eq = cached_equations(model, options)
    numeric = split_coordinates(NumericModel(eq), np.array(eq.q0, dtype=float)).velocity.independent
    assert [i for i, k in enumerate(independent_velocities(eq)) if k] == numeric
