"""The lean hot paths of the native runtime: event-free models pay nothing for events, and the lean
stage evaluation of unconstrained models keeps every check.

A runtime compiled with ``-DSB_NO_EVENTS`` (the event machinery compiled out, as
``benchmarks/fmu_events_overhead.py`` builds it) computes the same states as the runtime as shipped,
bit for bit, for a model without contacts, and refuses at instantiation a model that has contacts
instead of integrating it without them.  The rk4 step of unconstrained models (the lean stage
evaluation or the accelerations in closed form from model.c, the finiteness check of the new state
folded into the update) still discards a step whose state overflows although every acceleration is
finite, and follows the closed-form motion until then.
"""

from __future__ import annotations

import math
import re
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from test_robustness_fmu import DISCARD, OK, Instance, Unit

import symbody as sb
from symbody.codegen.c_eval import c_compiler
from symbody.fmu import export_fmu
from symbody.fmu.build import compile_flags, fmi_headers_dir, link_flags
from symbody.fmu.testing import fmu_simulation

G = 9.81


def pendulum() -> sb.System:
    """A point mass on a massless rod of length 1 (no damping): m l^2 theta'' = -m g l sin(theta)."""
    s = sb.System("lean_pendulum")
    theta = s.coordinate("theta", 1.0)
    rod = s.base("rod", s.ground_base, sb.Rz(theta))
    s.particle("bob_mass", s.point("bob", s.origin, sb.Vector(rod, 0, -1.0, 0)), 1.0)
    s.gravity((0, -G, 0))
    return s


def ball() -> sb.System:
    s = sb.System("lean_ball")
    y = s.coordinate("y", 1.0)
    s.particle("b", s.point("P", s.origin, (0, y, 0)), s.parameter("m", 1.0))
    s.gravity((0, -G, 0))
    s.unilateral("floor", y, restitution=s.parameter("e", 0.5))
    return s


def rebuilt(fmu: Path, out: Path, defines: list[str]) -> Path:
    """``fmu`` with its binary compiled again from its own sources, with ``defines``."""
    work = out.with_suffix("")
    with zipfile.ZipFile(fmu) as z:
        z.extractall(work)
    ident = re.search(r'modelIdentifier="([^"]+)"', (work / "modelDescription.xml").read_text())
    assert ident is not None
    lib = next((work / "binaries").rglob(f"{ident.group(1)}.so"))
    sources = [s for s in sorted((work / "sources").glob("*.c")) if not s.name.startswith("fmi3")]
    cmd = [c_compiler(), *compile_flags(), *defines, "-shared", f"-I{work / 'sources'}", f"-I{fmi_headers_dir()}"]
    proc = subprocess.run([*cmd, *map(str, sources), "-o", str(lib), *link_flags()], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with zipfile.ZipFile(out, "w") as z:
        for f in sorted(work.rglob("*")):
            if f.is_file():
                z.write(f, f.relative_to(work).as_posix())
    return out


pytestmark = pytest.mark.skipif(not Path("/usr/include/math.h").exists(), reason="needs the host's C library")


def test_runtime_without_events_steps_an_event_free_model_bit_for_bit(tmp_path):
    fmu = export_fmu(pendulum(), tmp_path / "pendulum.fmu", fmi_version=2, kind="cs", platforms=["x86_64-linux"])
    runs = {}
    for name, defines in (("shipped", []), ("no_events", ["-DSB_NO_EVENTS"])):
        variant = rebuilt(fmu, tmp_path / f"{name}.fmu", defines)
        for method in (1, 2):  # rk4 and dopri5
            runs[name, method] = fmu_simulation(
                variant, 2.0, 0.01, start_values={"solver.method": method}, output=["theta", "dtheta"]
            )
    for method in (1, 2):
        a, b = runs["shipped", method], runs["no_events", method]
        assert np.array_equal(a["theta"], b["theta"]) and np.array_equal(a["dtheta"], b["dtheta"])
        # the pendulum's motion: its energy dtheta^2 / 2 - g cos(theta) is conserved (rk4 at 1 ms and
        # dopri5 keep it to 1e-6), and it swings through the bottom (a sign error would not)
        energy = a["dtheta"] ** 2 / 2 - G * np.cos(a["theta"])
        assert np.allclose(energy, -G * math.cos(1.0), rtol=0, atol=1e-6)
        assert a["theta"].min() < -0.9


def test_runtime_without_events_refuses_a_model_with_contacts(tmp_path):
    fmu = export_fmu(ball(), tmp_path / "ball.fmu", fmi_version=2, kind="cs", platforms=["x86_64-linux"])
    messages: list[str] = []

    def logger(component, instance_name, status, category, message):
        messages.append(message.decode() if isinstance(message, bytes) else str(message))

    shipped = fmu_simulation(rebuilt(fmu, tmp_path / "shipped.fmu", []), 0.7, 0.01, output=["y"])
    # the shipped runtime bounces the ball: impact at t1 from 1 m, rebound at e = 0.5 of the speed
    t1, v1 = math.sqrt(2.0 / G), math.sqrt(2.0 * G)
    tau = 0.7 - t1
    assert shipped["y"].min() >= -1e-6
    assert shipped["y"][-1] == pytest.approx(0.5 * v1 * tau - G * tau**2 / 2, abs=1e-4)
    without = rebuilt(fmu, tmp_path / "no_events.fmu", ["-DSB_NO_EVENTS"])
    with pytest.raises(Exception, match="(?i)instantiate"):
        fmu_simulation(without, 0.7, 0.01, output=["y"], logger=logger, debug_logging=True)
    assert any("SB_NO_EVENTS" in m and "1 contacts" in m for m in messages), messages


def pushed_mass() -> sb.System:
    """A unit mass under a constant force F: x = F t^2 / 2 (finite accelerations at any F)."""
    s = sb.System("pushed_mass")
    x = s.coordinate("x", 0.0)
    s.particle("body", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("push", x, s.parameter("F", 1.0))
    return s


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("formulation", ["auto", "virtual_power"])
def test_rk4_discards_a_step_whose_state_overflows(tmp_path, version, formulation):
    # "auto": ddq in closed form from model.c (symbolic elimination); "virtual_power": the lean factorization
    eq = pushed_mass().derive(formulation=formulation)
    assert bool(eq.accelerations) == (formulation == "auto")
    fmu = export_fmu(eq, tmp_path / f"pushed{version}_{formulation}.fmu", fmi_version=version, kind="cs")
    unit = Unit.open(fmu)
    inst = Instance(unit, "cs")
    try:
        inst.initialize(**{"solver.method": 1, "solver.step": 1e-3, "F": 2.0})
        for k in range(10):
            assert inst.do_step(k * 0.01, 0.01)[0] == OK
        assert inst.get("x")[0] == pytest.approx(2.0 * 0.1**2 / 2, rel=1e-12)  # rk4 is exact here
        assert inst.get("dx")[0] == pytest.approx(2.0 * 0.1, rel=1e-12)
    finally:
        inst.free()
    inst = Instance(unit, "cs")
    try:
        # F = 1e308: every acceleration is finite, but k1 + 2 k2 + 2 k3 + k4 = 6e308 overflows in the update
        inst.initialize(**{"solver.method": 1, "solver.step": 1e-3, "F": 1e308})
        assert inst.do_step(0.0, 0.01)[0] == DISCARD
        text = inst.text()
        assert "state is not finite after the rk4 step from t = 0 " in text and "solver.step" in text, text[-2000:]
        assert inst.get("time", "x", "dx") == pytest.approx([0.0, 0.0, 0.0])  # the state kept at the start
    finally:
        inst.free()
