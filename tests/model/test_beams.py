"""Beam elements (``System.beam``) against the closed forms of a cantilever and a finite-element matrix.

* a tip load on a cantilever element: deflections ``P L^3 / (3 E I)`` and rotations ``P L^2 / (2 E I)`` (with their
  signs) in both bending planes, torsion ``T L / (G J)``, axial ``F L / (E A)``;
* the generalized beam built by :func:`end_stiffness` from a 12x12 element matrix written here with numpy gives the
  Euler-Bernoulli element's stiffness and modes; two free blocks on a beam keep six rigid-body modes;
* a mass on the element's axial spring oscillates at ``sqrt(E A / (L m))``.
"""

from __future__ import annotations

import numpy as np
import pytest

import symbody as sb
from symbody.errors import ModelError
from symbody.model.beams import end_stiffness
from symbody.numeric import modal_analysis, static_equilibrium

E, G, AREA, IY, IZ, J, L = 2.1e11, 8.1e10, 4e-4, 3e-8, 5e-8, 6e-8, 1.5


def element_matrix() -> np.ndarray:
    """The 12x12 Euler-Bernoulli element (node 1's u, v, w, rx, ry, rz, then node 2's), local axes."""
    K = np.zeros((12, 12))
    a, t = E * AREA / L, G * J / L
    for i, j, v in ((0, 0, a), (6, 6, a), (0, 6, -a), (3, 3, t), (9, 9, t), (3, 9, -t)):
        K[i, j] = v
    for I, (w, r), sign in ((IZ, (1, 5), 1.0), (IY, (2, 4), -1.0)):  # v with rz; w with ry (opposite sign)
        b1, b2, b3, b4 = 12 * E * I / L**3, 6 * E * I / L**2, 4 * E * I / L, 2 * E * I / L
        w2, r2 = w + 6, r + 6
        entries = [(w, w, b1), (w, r, sign * b2), (w, w2, -b1), (w, r2, sign * b2), (r, r, b3), (r, w2, -sign * b2),
                   (r, r2, b4), (w2, w2, b1), (w2, r2, -sign * b2), (r2, r2, b3)]  # fmt: skip
        for i, j, v in entries:
            K[i, j] = v
    return np.triu(K) + np.triu(K, 1).T


def cantilever(**beam) -> sb.System:
    """A block on the free end of a beam element clamped at the ground: 6 coordinates at the tip."""
    s = sb.System("cantilever")
    x, y, z = (s.coordinate(f"t{a}") for a in "xyz")
    a, b, c = (s.coordinate(f"r{a}") for a in "zyx")
    B = s.base("B", s.ground_base, sb.EulerAngles("zyx", (a, b, c)))
    tip = s.frame("tip", s.point("T", s.origin, (L + x, y, z)), B)
    s.solid("blk", tip.point, B, mass=3.0, inertia=(0.01, 0.02, 0.03))
    s.beam("beam", s.ground, tip, **beam)
    return s


SECTION = dict(E=E, G=G, area=AREA, Iy=IY, Iz=IZ, J=J)


@pytest.mark.parametrize("beam", [SECTION, {"stiffness": "fe"}], ids=["section", "generalized"])
def test_tip_loads_on_a_cantilever_element_follow_the_closed_forms(beam):
    if beam.get("stiffness") == "fe":
        beam = {"stiffness": end_stiffness(element_matrix())}
    s = cantilever(**beam)
    F, T = np.array([40.0, 0.3, -0.2]), np.array([0.05, 0.0, 0.0])
    s.force("load", "blk", "T", tuple(F), base=s.ground_base)
    s.torque("twist", "blk", tuple(T), base=s.ground_base)
    res = static_equilibrium(s.derive(), [0.0] * 6)
    expected = {
        "tx": F[0] * L / (E * AREA),
        "ty": F[1] * L**3 / (3 * E * IZ),
        "tz": F[2] * L**3 / (3 * E * IY),
        "rx": T[0] * L / (G * J),
        "rz": F[1] * L**2 / (2 * E * IZ),  # a force along +y turns the tip about +z
        "ry": -F[2] * L**2 / (2 * E * IY),  # a force along +z turns the tip about -y
    }
    for name, value in expected.items():
        assert res[name] == pytest.approx(value, rel=1e-4), name


def test_end_stiffness_is_the_euler_bernoulli_element_and_drops_small_entries():
    s = cantilever(**SECTION)
    Ke = end_stiffness(element_matrix())
    assert Ke[1, 5] == pytest.approx(-6 * E * IZ / L**2) and Ke[2, 4] == pytest.approx(6 * E * IY / L**2)
    s2 = cantilever(stiffness=Ke)
    assert s2.parameters["beam_K2_6"].value == pytest.approx(-6 * E * IZ / L**2)
    assert "beam_K1_2" not in s2.parameters  # zeros stay zeros
    m1 = modal_analysis(s.derive(), [0.0] * 6).omega
    m2 = modal_analysis(s2.derive(), [0.0] * 6).omega
    np.testing.assert_allclose(m1, m2, rtol=1e-10)
    noisy = element_matrix() + np.diag([1e-3] * 12)
    noisy[7, 8] = noisy[8, 7] = 1e-6
    assert end_stiffness(noisy, tol=1e-5)[1, 2] == 0.0 and end_stiffness(noisy)[1, 2] == 1e-6


def test_end_stiffness_refuses_what_is_not_a_clamped_element():
    with pytest.raises(ModelError, match="12x12"):
        end_stiffness(np.eye(6))
    bad = element_matrix()
    bad[0, 1] = 1.0
    with pytest.raises(ModelError, match="not symmetric"):
        end_stiffness(bad)
    free = element_matrix()
    free[6:, 6:] = 0.0
    with pytest.raises(ModelError, match="not positive definite"):
        end_stiffness(free)


def test_axial_frequency_and_two_free_blocks_keep_their_rigid_body_modes():
    s = sb.System("axial")
    x = s.coordinate("x")
    tip = s.frame("tip", s.point("T", s.origin, (L + x, 0, 0)), s.ground_base)
    s.particle("m", tip.point, 2.5)
    s.beam("rod", s.ground, tip, **SECTION)
    assert modal_analysis(s.derive(), [0.0]).omega[0] == pytest.approx(np.sqrt(E * AREA / L / 2.5), rel=1e-12)

    s = sb.System("pair")
    frames = []
    for k, at in enumerate((0.0, L)):
        q = [s.coordinate(f"b{k}_{a}") for a in ("x", "y", "z", "rz", "ry", "rx")]
        B = s.base(f"B{k}", s.ground_base, sb.EulerAngles("zyx", q[3:]))
        G_ = s.point(f"G{k}", s.origin, (at + q[0], q[1], q[2]))
        s.solid(f"blk{k}", G_, B, mass=2.0, inertia=(0.01, 0.02, 0.03))
        frames.append(s.frame(f"f{k}", s.point(f"P{k}", G_, sb.Vector(B, 0.1 - 0.2 * k, 0.05, 0.0)), B))
    s.beam("link", frames[0], frames[1], **SECTION)  # length from the frames: L - 0.2
    assert s.loads[0].offset[0].value == pytest.approx(L - 0.2)
    modes = modal_analysis(s.derive(), [0.0] * 12)
    assert modes.rigid_body == 6 and len(modes.omega) == 6 and modes.omega[0] > 1.0


def test_beam_errors_name_the_element():
    s = sb.System("bad")
    z = s.coordinate("z")
    off = s.frame("off", s.point("P", s.origin, (0.0, 1.0, z)), s.ground_base)
    with pytest.raises(ModelError, match="beam 'b': frame 2 is not on frame 1's positive x axis"):
        s.beam("b", s.ground, off, **SECTION)
    with pytest.raises(ModelError, match="beam 'b': missing J"):
        s.beam("b", s.ground, off, length=1.0, **{k: v for k, v in SECTION.items() if k != "J"})
    with pytest.raises(ModelError, match="either stiffness= or the section"):
        s.beam("b", s.ground, off, length=1.0, stiffness=np.eye(6), E=1.0)
    with pytest.raises(ModelError, match="not symmetric"):
        s.beam("b", s.ground, off, length=1.0, stiffness=np.triu(np.ones((6, 6))))
    assert "b" not in s.registry and not s.parameters
    s.beam("b", s.ground, off, length=1.0, stiffness=np.eye(6))
    assert s.parameters["b_K1_1"].value == 1.0
