"""Bushings (``System.bushing``): a rigid block on four inclined mounts against numpy's closed form.

* the six mount modes of the block equal ``eig(M6^-1 K6)`` with ``K6 = sum T_i^T K_i T_i``, ``T_i`` mapping a small
  displacement and rotation of the block at its centre of mass to the mount's deflection in the mount's basis,
  built here with numpy from the mount positions and orientations only;
* a static wrench displaces the block by ``K6^-1 W`` and the mounts' output wrenches balance it;
* two free blocks joined by a bushing keep their six rigid-body modes (action and reaction at one point);
* the damping matrix gives the damping ratio ``c / (2 sqrt(k m))``; the preload is a wrench at zero deflection.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import symbody as sb
from symbody.errors import ModelError
from symbody.numeric import modal_analysis, static_equilibrium
from symbody.numeric.model import as_numeric

MASS = 12.0
INERTIA = np.array([[0.9, 0.05, -0.02], [0.05, 1.3, 0.04], [-0.02, 0.04, 1.7]])  # at G, body axes
MOUNTS = [(0.4, 0.3, -0.2), (-0.4, 0.3, -0.2), (-0.4, -0.3, -0.25), (0.4, -0.3, -0.2)]  # from G, body axes
ORIENT = [(0.3, 0.1, 0.0), (-0.2, 0.25, 0.4), (0.1, -0.3, 1.2), (0.0, 0.2, -0.7)]  # rotation vectors of mount bases
K_DIAG = [(2e5, 3e5, 8e5, 150.0, 200.0, 90.0), (2.5e5, 2e5, 7e5, 120.0, 180.0, 60.0)]


def mount_stiffness(i: int) -> np.ndarray:
    K = np.diag(K_DIAG[i % 2])
    K[0, 4] = K[4, 0] = 3e3  # a coupling of translation and rotation, symmetric
    return K


def skew(p) -> np.ndarray:
    return np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])


def block(s: sb.System, name: str, at=(0.0, 0.0, 0.0)) -> tuple[sb.Base, sb.Point]:
    """A free rigid block: translations of G and zyx angles."""
    x, y, z = (s.coordinate(f"{name}_{a}") for a in "xyz")
    a, b, c = (s.coordinate(f"{name}_{a}") for a in ("rz", "ry", "rx"))
    B = s.base(f"{name}_B", s.ground_base, sb.EulerAngles("zyx", (a, b, c)))
    G = s.point(f"{name}_G", s.origin, (at[0] + x, at[1] + y, at[2] + z))
    s.solid(name, G, B, mass=MASS, inertia=[list(r) for r in INERTIA])
    return B, G


def mounted_block() -> sb.System:
    s = sb.System("mounted")
    B, G = block(s, "blk")
    for i, (p, rv) in enumerate(zip(MOUNTS, ORIENT)):
        R = Rotation.from_rotvec(rv).as_matrix().tolist()
        top = s.frame(f"top{i}", s.point(f"T{i}", G, sb.Vector(B, *p)), s.base(f"Bt{i}", B, sb.RotationMatrix(R)))
        foot = s.frame(f"foot{i}", s.point(f"F{i}", s.origin, p), s.base(f"Bf{i}", s.ground_base, sb.RotationMatrix(R)))
        s.bushing(f"mount{i}", foot, top, stiffness=mount_stiffness(i).tolist())
    return s


def closed_form_K6() -> np.ndarray:
    """``sum T_i^T K_i T_i``: ``T_i`` maps (u, phi) at G (ground = body axes at rest) to the mount's deflection."""
    K6 = np.zeros((6, 6))
    for i, (p, rv) in enumerate(zip(MOUNTS, ORIENT)):
        Rt = Rotation.from_rotvec(rv).as_matrix().T
        T = np.zeros((6, 6))
        T[:3, :3] = Rt
        T[:3, 3:] = -Rt @ skew(p)  # u + phi x p
        T[3:, 3:] = Rt
        K6 += T.T @ mount_stiffness(i) @ T
    return K6


def closed_form_M6() -> np.ndarray:
    M6 = np.zeros((6, 6))
    M6[:3, :3] = MASS * np.eye(3)
    M6[3:, 3:] = INERTIA
    return M6


def test_six_mount_modes_are_those_of_M6_inverse_K6():
    modes = modal_analysis(mounted_block().derive(), [0.0] * 6)
    expected = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(closed_form_M6(), closed_form_K6())).real))
    assert len(modes.omega) == 6 and modes.rigid_body == 0
    np.testing.assert_allclose(modes.omega, expected, rtol=1e-9)


def test_a_static_wrench_displaces_the_block_by_K6_inverse_W_and_the_mounts_balance_it():
    s = mounted_block()
    F, arm, T = np.array([30.0, -20.0, -50.0]), np.array([0.2, -0.1, 0.15]), np.array([1.5, -0.8, 0.6])
    s.force("push", "blk", s.point("A", "blk_G", sb.Vector(s.bases["blk_B"], *arm)), tuple(F), base=s.ground_base)
    s.torque("twist", "blk", tuple(T), base=s.ground_base)
    eq = s.derive()
    res = static_equilibrium(eq, [0.0] * 6)
    u = np.linalg.solve(closed_form_K6(), np.concatenate([F, np.cross(arm, F) + T]))
    # coordinates (x, y, z, rz, ry, rx): rotations about z, y, x at small angles
    got = np.array([res["blk_x"], res["blk_y"], res["blk_z"], res["blk_rx"], res["blk_ry"], res["blk_rz"]])
    np.testing.assert_allclose(got, u, rtol=1e-3, atol=1e-3 * np.max(np.abs(u)))  # the geometric nonlinearity
    # the mounts' wrenches (on the block, in each mount's basis) sum to minus the loads at G
    out = dict(zip([o.name for o in eq.outputs], as_numeric(eq).outputs(res.q, np.zeros(6))))
    total_F, total_M = np.zeros(3), np.zeros(3)
    for i, (p, rv) in enumerate(zip(MOUNTS, ORIENT)):
        R = Rotation.from_rotvec(rv).as_matrix()
        f = R @ [out[f"mount{i}_F{c}"] for c in "xyz"]
        total_F += f
        total_M += R @ [out[f"mount{i}_M{c}"] for c in "xyz"] + np.cross(p, f)
    np.testing.assert_allclose(total_F, -F, rtol=2e-3)
    np.testing.assert_allclose(total_M, -(np.cross(arm, F) + T), rtol=2e-3, atol=1e-3)


def test_two_free_blocks_on_a_bushing_keep_six_rigid_body_modes():
    s = sb.System("pair")
    B1, G1 = block(s, "a")
    B2, G2 = block(s, "b", at=(1.0, 0.2, -0.1))
    joint = (0.55, 0.05, 0.1)  # the bushing's point, off both centres of mass
    R = Rotation.from_rotvec((0.2, -0.4, 0.3)).as_matrix().tolist()
    f1 = s.frame("f1", s.point("P1", G1, sb.Vector(B1, *joint)), s.base("C1", B1, sb.RotationMatrix(R)))
    rel = np.subtract(joint, (1.0, 0.2, -0.1))
    f2 = s.frame("f2", s.point("P2", G2, sb.Vector(B2, *rel)), s.base("C2", B2, sb.RotationMatrix(R)))
    s.bushing("link", f1, f2, stiffness=mount_stiffness(0).tolist())
    modes = modal_analysis(s.derive(), [0.0] * 12)
    assert modes.rigid_body == 6 and len(modes.omega) == 6
    assert modes.omega[0] > 1.0  # the six elastic modes are well away from zero


def test_damping_ratio_and_preload():
    s = sb.System("damped")
    x = s.coordinate("x")
    top = s.frame("top", s.point("P", s.origin, (x, 0, 0)), s.ground_base)
    s.particle("m", top.point, 2.0)
    s.bushing("b", s.ground, top, stiffness=[800.0] * 6, damping=[8.0] * 6, preload=(40.0, 0, 0, 0, 0, 0))
    eq = s.derive()
    res = static_equilibrium(eq, [0.0])
    assert res["x"] == pytest.approx(40.0 / 800.0, rel=1e-12)  # preload pushes frame 2 along +x
    modes = modal_analysis(eq, res.q)
    assert modes.omega[0] == pytest.approx(20.0, rel=1e-12)
    assert modes.damping_ratio[0] == pytest.approx(8.0 / (2 * np.sqrt(800.0 * 2.0)), rel=1e-9)


def test_bushing_errors_name_the_element():
    s = sb.System("bad")
    x = s.coordinate("x")
    top = s.frame("top", s.point("P", s.origin, (x, 0, 0)), s.ground_base)
    with pytest.raises(ModelError, match="stiffness of bushing 'b'.*6 values"):
        s.bushing("b", s.ground, top, stiffness=[1.0] * 5)
    with pytest.raises(ModelError, match="'b': its two frames are the same"):
        s.bushing("b", top, "top", stiffness=[1.0] * 6)
    with pytest.raises(ModelError, match="preload of bushing 'b'"):
        s.bushing("b", s.ground, top, stiffness=[1.0] * 6, preload=(1, 2))
    assert "b" not in s.registry and "b_Fx" not in s.outputs  # all or nothing
    s.bushing("b", s.ground, top, stiffness=[1.0] * 6)
    assert set(s.outputs) == {f"b_{c}" for c in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")}
