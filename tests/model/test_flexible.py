"""Flexible beams (``System.flexible_beam``, rigid finite elements) against the closed forms of beam theory.

Cantilever of ``N`` segments (Kruszewski's division: springs at the middle of the segments):

* static tip deflection under a tip force: ``P L^3 / (3 E I) (1 - 1 / (4 N^2))`` for this division, which tends to
  the Euler-Bernoulli ``P L^3 / (3 E I)`` (0.25 % short at ``N = 10``), in both bending planes;
* twist ``T L / (G J)`` and elongation ``F L / (E A)``, exact for any ``N`` (springs in series);
* the first two bending frequencies ``(1.8751^2, 4.6941^2) sqrt(E I / (rho A L^4))`` approached as ``N`` grows
  (measured here: first 0.9 % at N = 5, 0.23 % at N = 10; second 3.3 % and 0.8 %);
* a free-free beam's first frequency ``4.7300^2 sqrt(E I / (rho A L^4))`` with six rigid-body modes;
* stiffness-proportional damping: a mode's damping ratio is ``beta omega / 2``.
"""

from __future__ import annotations

import numpy as np
import pytest

import symbody as sb
from symbody.errors import ModelError
from symbody.model.expressions import default_value
from symbody.numeric import modal_analysis, static_equilibrium
from symbody.numeric.model import as_numeric

E, G, RHO, AREA, IY, IZ, J, L = 2.1e11, 8.1e10, 7850.0, 1e-4, 8e-10, 1.2e-9, 1.5e-9, 1.0
SECTION = dict(length=L, E=E, G=G, rho=RHO, area=AREA, Iy=IY, Iz=IZ, J=J)
CANTILEVER = (1.8751040687**2, 4.6940911330**2)  # (beta_k L)^2 of a clamped-free beam
FREE_FREE = 4.7300407449**2


def bending(I: float, root: float) -> float:
    return root * np.sqrt(E * I / (RHO * AREA * L**4))


def cantilever(N: int, **options) -> tuple[sb.System, sb.Frame]:
    s = sb.System("cantilever")
    tip = s.flexible_beam("b", s.ground, segments=N, **SECTION, **options)
    return s, tip


def relative_errors(N: int) -> tuple[np.ndarray, np.ndarray]:
    """Relative errors of the first two bending frequencies about y (Iy) and about z (Iz)."""
    s, _ = cantilever(N, axial=False, torsion=False)
    omega = modal_analysis(s.derive(), [0.0] * (2 * N)).omega[:4]
    expected = np.sort([bending(I, r) for I in (IY, IZ) for r in CANTILEVER])
    err = omega / expected - 1
    return err[:2], err[2:]  # IY < IZ: omega_1y < omega_1z < omega_2y < omega_2z


LOADS = {"Fx": 2e-3, "Fy": 1e-3, "Fz": -1.5e-3, "T": 1e-4}  # one at a time: each alone is linear to ~1e-8


@pytest.mark.parametrize("N", [1, 3, pytest.param(10, marks=pytest.mark.slow)])
def test_static_tip_deflection_follows_the_discrete_closed_form_and_tends_to_P_L3_over_3EI(N):
    s, tip = cantilever(N)
    F = [s.parameter(name, 0.0, unit="N") for name in ("Fx", "Fy", "Fz")]
    s.force("load", f"b_{N}", tip.point, tuple(F))
    s.torque("twist", f"b_{N}", (s.parameter("T", 0.0, unit="N*m"), 0, 0))
    s.output_vector("tip", s.position(tip.point))
    eq = s.derive()
    if N > 2:  # a chain of relative joints (auto keeps the virtual-power loop where it is shorter: N <= 2)
        assert eq.formulation in ("recursive", "articulated")
    discrete = 1 - 1 / (4 * N**2)
    expected = {
        "Fx": ("elongation", LOADS["Fx"] * L / (E * AREA)),
        "Fy": ("tip_y", LOADS["Fy"] * L**3 / (3 * E * IZ) * discrete),
        "Fz": ("tip_z", LOADS["Fz"] * L**3 / (3 * E * IY) * discrete),
        "T": ("twist", LOADS["T"] * L / (G * J)),
    }
    for load, (what, value) in expected.items():
        nm = as_numeric(eq, {load: LOADS[load]})
        res = static_equilibrium(nm, [0.0] * eq.nq)
        out = dict(zip([o.name for o in eq.outputs], nm.outputs(res.q, np.zeros(eq.nq))))
        out["elongation"] = sum(res[f"b_u{k}"] for k in range(1, N + 1))
        out["twist"] = sum(res[f"b_rx{k}"] for k in range(1, N + 1))
        assert out[what] == pytest.approx(value, rel=1e-6), load
    if N == 10:  # within 1 % of Euler-Bernoulli's P L^3 / (3 E I)
        assert abs(discrete - 1) < 0.01


def test_bending_frequencies_converge_from_above_as_one_over_N_squared():
    first3, second3 = relative_errors(3)
    first6, second6 = relative_errors(6)
    assert np.all(first6 > 0) and np.all(second6 > 0)
    assert np.all(first3 / first6 > 3) and np.all(second3 / second6 > 3)  # 4 for an error in 1 / N^2
    assert np.all(first6 < 0.01)


@pytest.mark.slow
def test_bending_frequencies_within_one_percent_at_ten_segments():
    first5, second5 = relative_errors(5)
    first10, second10 = relative_errors(10)
    assert np.all(np.abs(first10) < 0.005) and np.all(np.abs(second10) < 0.01)  # measured: 0.23 % and 0.8 %
    assert np.all(first5 / first10 > 3) and np.all(second5 / second10 > 3)


@pytest.mark.slow
def test_free_free_beam_first_frequency_and_six_rigid_body_modes():
    s = sb.System("free")
    q = [s.coordinate(f"root_{a}") for a in ("x", "y", "z", "rz", "ry", "rx")]
    B = s.base("R", s.ground_base, sb.EulerAngles("zyx", q[3:]))
    root = s.frame("root", s.point("P0", s.origin, (q[0], q[1], q[2])), B)
    N = 10
    s.flexible_beam("b", root, segments=N, **SECTION, axial=False, torsion=False)
    modes = modal_analysis(s.derive(), [0.0] * (6 + 2 * N))
    assert modes.rigid_body == 6
    first_y, first_z = bending(IY, FREE_FREE), bending(IZ, FREE_FREE)
    assert modes.omega[0] == pytest.approx(first_y, rel=0.01)
    assert modes.omega[1] == pytest.approx(first_z, rel=0.01)


def test_stiffness_proportional_damping_ratio():
    s, _ = cantilever(4, axial=False, torsion=False, damping=1e-4)
    assert s.parameters["b_damping"].value == 1e-4
    modes = modal_analysis(s.derive(), [0.0] * 8)
    first = modes.omega[0]
    assert modes.damping_ratio[0] == pytest.approx(1e-4 * first / 2, rel=1e-6)


def test_flexible_beam_errors_and_record():
    s = sb.System("bad")
    with pytest.raises(ModelError, match="segments must be an integer from 1"):
        s.flexible_beam("b", s.ground, segments=0, **SECTION)
    with pytest.raises(ModelError, match="E of flexible beam 'b' must be positive"):
        s.flexible_beam("b", s.ground, segments=2, **{**SECTION, "E": -1.0})
    x = s.coordinate("b_rz1")  # a name the beam would take
    with pytest.raises(ModelError, match="duplicate name 'b_rz1'"):
        s.flexible_beam("b", s.ground, segments=2, **SECTION)
    assert list(s.registry) == ["t", "xyz", "O", "abs", "b_rz1", "db_rz1", "ddb_rz1"]  # all or nothing
    assert not s.flexible_bodies and not s.parameters
    s = sb.System("ok")
    tip = s.flexible_beam("b", s.ground, segments=3, **SECTION, axial=False)
    rec = s.flexible_bodies["b"]
    assert rec.tip is tip and [sd.name for sd in rec.solids] == ["b_0", "b_1", "b_2", "b_3"]
    assert rec.coordinates[:3] == ["b_rz1", "b_ry1", "b_rx1"] and len(rec.coordinates) == 9
    masses = [default_value(s, sd.mass) for sd in rec.solids]  # half segments at both ends
    np.testing.assert_allclose(masses, np.array([0.5, 1, 1, 0.5]) * RHO * AREA * L / 3, rtol=1e-14)
    assert x.name == "b_rz1"


def test_symbody_info_shows_the_size_of_a_flexible_body(tmp_path, capsys):
    from symbody.cli import main

    model = tmp_path / "boom.py"
    model.write_text(
        "import symbody as sb\n\n\n"
        "def build(segments=3):\n"
        "    s = sb.System('boom')\n"
        "    s.flexible_beam('jib', s.ground, length=2.0, segments=segments, E=2.1e11, G=8.1e10, rho=7850.0,\n"
        "                    area=1e-3, Iy=2e-7, Iz=3e-7, J=4e-7, torsion=False)\n"
        "    return s\n"
    )
    assert main(["info", str(model), "--option", "segments=4"]) == 0
    out = capsys.readouterr().out
    assert "  flexible     jib: 4 segments, 12 coordinates, 5 solids" in out, out
    assert main(["info", str(model), "--json"]) == 0
    assert '"jib": {\n      "segments": 3' in capsys.readouterr().out
