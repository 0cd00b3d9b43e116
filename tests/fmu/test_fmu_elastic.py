"""FMUs of elastic elements: a flexible cantilever (rigid finite elements) propped at its tip by a bushing.

Through Co-Simulation FMUs (FMI 2 and 3, C runtime, dopri5):

* the motion after a tip force is applied from rest follows ``symbody.numeric``'s reference simulation;
* the motion settles (stiffness-proportional damping) at the static deflection of the discrete closed form, a
  cantilever of tip stiffness ``3 E I / L^3 / (1 - 1 / (4 N^2))`` in parallel with the bushing's ``k``:
  ``w = P / (k_beam + k)``, and the bushing's output force is ``-k w`` (its wrench on the tip).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_robustness_fmu import OK, Instance, Unit

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.testing import max_relative_error, reference_simulation

N, L, E, IY, IZ = 3, 1.0, 2.1e11, 8e-10, 1.2e-9
K_PROP, P = 200.0, 0.05


def propped_cantilever() -> sb.System:
    s = sb.System("propped")
    length = s.parameter("L", L, unit="m")
    tip = s.flexible_beam("b", s.ground, length=length, segments=N, E=E, G=8.1e10, rho=7850.0, area=1e-4, Iy=IY, Iz=IZ,
                          J=1.5e-9, damping=2e-3, axial=False, torsion=False)  # fmt: skip
    rest = s.frame("rest", s.point("R", s.origin, (length, 0, 0)), s.ground_base)
    k = s.parameter("k", K_PROP, unit="N/m")
    s.bushing("prop", rest, tip, stiffness=(0, k, k, 0, 0, 0))
    s.force("push", f"b_{N}", tip.point, (0, 0, s.parameter("P", P, unit="N")))
    s.output_vector("tip", s.position(tip.point))
    return s


@pytest.fixture(scope="module", params=[2, 3])
def unit(request, tmp_path_factory):
    eq = propped_cantilever().derive()
    path = tmp_path_factory.mktemp("elastic") / f"propped{request.param}.fmu"
    return eq, Unit.open(export_fmu(eq, path, fmi_version=request.param, kind="cs"))


def run(unit, names, t_end: float, h: float) -> np.ndarray:
    inst = Instance(unit, "cs")
    try:
        inst.initialize(**{"solver.method": 2, "solver.rtol": 1e-10, "solver.atol": 1e-12})
        out = [inst.get(*names)]
        for k in range(round(t_end / h)):
            assert inst.do_step(k * h, h)[0] == OK, inst.text()
            out.append(inst.get(*names))
        return np.array(out)
    finally:
        inst.free()


def test_the_fmu_follows_the_reference_and_settles_at_the_closed_form(unit):
    eq, fmu = unit
    names = [c.name for c in eq.coordinates] + ["tip_z", "prop_Fz"]
    t = np.arange(0.0, 0.3 + 1e-9, 0.01)
    got = run(fmu, names, 0.3, 0.01)
    ref = reference_simulation(eq, t, [0.0] * eq.nq, [0.0] * eq.nq, rtol=1e-11)
    for j, name in enumerate(names):
        assert max_relative_error(got[:, j] / P, ref[name] / P) < 1e-6, name
    settled = run(fmu, ["tip_z", "prop_Fz"], 20.0, 1.0)[-1]
    k_beam = 3 * E * IY / L**3 / (1 - 1 / (4 * N**2))
    w = P / (k_beam + K_PROP)
    assert settled[0] == pytest.approx(w, rel=1e-6)
    assert settled[1] == pytest.approx(-K_PROP * w, rel=1e-6)
