"""Reactions of tree joints (System.joint_reaction) against independent truth.

Closed forms (Newton's law for the subtree), the multipliers of the same
mechanism written with absolute coordinates and constraint joints, and the
output of an exported FMU.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sm

import symbody as sb
from symbody.errors import ModelError
from symbody.numeric import NumericModel, simulate

from support import example

G = 9.81


def _rot(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


# ---------------------------------------------------------------------------
# (a) simple pendulum: F = m (a_G - g), no moment about the pin axis
# ---------------------------------------------------------------------------
def pendulum(name: str = "pend", reaction: bool = True) -> sb.System:
    s = sb.System(name)
    th = s.coordinate("th", 0.7, unit="rad")
    m = s.parameter("m", 2.0)
    l = s.parameter("l", 0.8)
    g = s.parameter("g", G)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.solid("bar", s.origin, B, mass=m, com=(l, 0, 0), inertia=(0.01, 0.02, 0.03))
    s.gravity((0, -g, 0))
    if reaction:
        s.joint_reaction("bar", name="pin", base="xyz")
    return s


def _pin_force_is_m_times_aG_minus_g(res) -> None:
    m, l = 2.0, 0.8
    th, dth, ddth = res["th"], res["dth"], res["ddth"]
    aGx = l * (-(dth**2) * np.cos(th) - ddth * np.sin(th))
    aGy = l * (-(dth**2) * np.sin(th) + ddth * np.cos(th))
    assert np.max(np.abs(dth)) > 1.0  # a real swing
    np.testing.assert_allclose(res["pin_F_x"], m * aGx, atol=1e-9)
    np.testing.assert_allclose(res["pin_F_y"], m * (aGy + G), atol=1e-9)


def test_pendulum_pin_reaction_is_m_times_aG_minus_g():
    res = simulate(pendulum().derive(), 2.0, dt=0.05)
    _pin_force_is_m_times_aG_minus_g(res)
    np.testing.assert_allclose(res["pin_F_z"], 0.0, atol=1e-12)
    # the pin axis is free: no moment about z; about x and y the planar body needs none either
    for ax in "xyz":
        np.testing.assert_allclose(res[f"pin_M_{ax}"], 0.0, atol=1e-9)


def test_pendulum_reaction_moment_about_another_point():
    s = pendulum()
    P = s.point("Q", s.origin, (0, 1.0, 0))
    w = s.joint_reaction("bar", P, "xyz")
    s.output("Mq", w.moment.components(s.ground_base)[2])
    res = simulate(s.derive(), 1.0, dt=0.1)
    # M_Q = r_QO x F = (0, -1) x (Fx, Fy) = Fx (out of plane)
    np.testing.assert_allclose(res["Mq"], res["pin_F_x"], atol=1e-9)


# ---------------------------------------------------------------------------
# (b) double pendulum: tree reactions = multipliers of the absolute model
# ---------------------------------------------------------------------------
L1, L2, M1, M2, J1, J2 = 1.0, 0.7, 1.5, 0.8, 0.12, 0.05


def double_relative() -> sb.System:
    s = sb.System("dp_rel")
    t1, t2 = s.coordinate("t1", 0.9), s.coordinate("t2", -0.4)
    B1 = s.base("B1", s.ground_base, sb.Rz(t1))
    B2 = s.base("B2", B1, sb.Rz(t2))
    A = s.point("A", s.origin, (L1, 0, 0), B1)
    s.solid("b1", s.origin, B1, mass=M1, com=(L1 / 2, 0, 0), inertia=(0, 0, J1))
    s.solid("b2", A, B2, mass=M2, com=(L2 / 2, 0, 0), inertia=(0, 0, J2))
    s.gravity((0, -G, 0))
    s.joint_reaction("b1", name="R1", base="xyz")
    s.joint_reaction("b2", name="R2", base="xyz")
    return s


def double_absolute() -> sb.System:
    s = sb.System("dp_abs")
    x1, y1, p1 = s.coordinate("x1"), s.coordinate("y1"), s.coordinate("p1")
    x2, y2, p2 = s.coordinate("x2"), s.coordinate("y2"), s.coordinate("p2")
    B1 = s.base("B1", s.ground_base, sb.Rz(p1))
    B2 = s.base("B2", s.ground_base, sb.Rz(p2))
    O1 = s.point("O1", s.origin, (x1, y1, 0))
    O2 = s.point("O2", s.origin, (x2, y2, 0))
    A1 = s.point("A1", O1, (L1, 0, 0), B1)
    s.solid("b1", O1, B1, mass=M1, com=(L1 / 2, 0, 0), inertia=(0, 0, J1))
    s.solid("b2", O2, B2, mass=M2, com=(L2 / 2, 0, 0), inertia=(0, 0, J2))
    s.gravity((0, -G, 0))
    s.revolute_joint("J1", s.origin, "xyz", O1, B1)
    s.revolute_joint("J2", A1, "xyz", O2, B2)
    return s


def _absolute_state(t1, t2, d1, d2):
    a2 = t1 + t2
    e1, n1 = np.array([np.cos(t1), np.sin(t1)]), np.array([-np.sin(t1), np.cos(t1)])
    A, vA = L1 * e1, L1 * d1 * n1
    q = np.array([0, 0, t1, A[0], A[1], a2])
    dq = np.array([0, 0, d1, vA[0], vA[1], d1 + d2])
    return q, dq


def test_double_pendulum_reactions_equal_multipliers_of_absolute_model():
    res = simulate(double_relative().derive(), 2.0, dt=0.1, rtol=1e-10, atol=1e-12)
    eq_abs = double_absolute().derive()
    nm = NumericModel(eq_abs)
    lam_index = {info.name: k for k, info in enumerate(eq_abs.constraint_rows)}
    for k in range(len(res.t)):
        q, dq = _absolute_state(res["t1"][k], res["t2"][k], res["dt1"][k], res["dt2"][k])
        ddq, lam = nm.accelerations(q, dq)
        np.testing.assert_allclose(ddq[2], res["ddt1"][k], atol=1e-8)
        for joint, out in (("J1", "R1"), ("J2", "R2")):
            for ax in "xy":
                expected = -lam[lam_index[f"{joint}_{ax}"]]  # force on the body of point2
                assert abs(res[f"{out}_F_{ax}"][k] - expected) < 1e-8
            assert abs(res[f"{out}_M_z"][k]) < 1e-8
    assert np.max(np.abs(res["R1_F_y"])) > 5.0


# ---------------------------------------------------------------------------
# (c) 3-D body on a spherical joint (Euler angles)
# ---------------------------------------------------------------------------
R_G = (0.1, 0.05, -0.6)


def top() -> sb.System:
    s = sb.System("top")
    a = s.coordinate("a", 0.3)
    b = s.coordinate("b", 0.5)
    c = s.coordinate("c", 0.1)
    for q, v in ((a, 0.4), (b, -1.0), (c, 3.0)):
        s.coordinate_of(q).dq0 = v
    B = s.base("B", s.ground_base, sb.EulerAngles("zxz", (a, b, c)))
    s.solid("body", s.origin, B, mass=3.0, com=R_G, inertia=(0.2, 0.3, 0.1, 0.01, 0.02, -0.015))
    s.gravity((0, 0, -G))
    s.joint_reaction("body", name="ball", base="xyz")
    return s


def _euler_zxz_position(axes: str = "zxz"):
    """``a_G(q, dq, ddq)`` of the centre of mass for Euler angles about ``axes`` (rotating axes)."""
    a, b, c = (sm.Function(n)(sm.Symbol("t")) for n in "abc")
    turn = {"x": sm.rot_axis1, "y": sm.rot_axis2, "z": sm.rot_axis3}
    R = sm.eye(3)
    for ax, angle in zip(axes, (a, b, c)):
        R = R * turn[ax](-angle)  # sympy's rot_axis is the passive rotation
    p = R * sm.Matrix(R_G)
    t = sm.Symbol("t")
    acc = p.diff(t, 2)
    syms = sm.symbols("a b c da db dc dda ddb ddc")
    subs = {}
    for f, s0, s1, s2 in zip((a, b, c), syms[:3], syms[3:6], syms[6:]):
        subs[f.diff(t, 2)] = s2
        subs[f.diff(t)] = s1
        subs[f] = s0
    acc = acc.subs(subs)
    return sm.lambdify(syms, list(acc))


def test_spherical_joint_force_is_newton_and_moment_vanishes():
    s = top()
    res = simulate(s.derive(), 1.0, dt=0.05, rtol=1e-10, atol=1e-12)
    aG = _euler_zxz_position()
    for k in range(len(res.t)):
        args = [res[n][k] for n in ("a", "b", "c", "da", "db", "dc", "dda", "ddb", "ddc")]
        F = 3.0 * (np.array(aG(*args), dtype=float) - np.array([0, 0, -G]))
        got = np.array([res[f"ball_F_{ax}"][k] for ax in "xyz"])
        np.testing.assert_allclose(got, F, atol=1e-8)
        for ax in "xyz":  # every axis of a ball joint is free
            assert abs(res[f"ball_M_{ax}"][k]) < 1e-8
    assert np.max(np.abs(res["ball_F_z"] - 3.0 * G)) > 0.5  # the body does not hang still


def test_hinge_written_as_constraint_carries_the_moments_of_a_ball_tree_joint():
    """Euler angles (a ball tree joint) held to a hinge by a revolute constraint joint: the hinge's
    multipliers carry every moment (its orientation rows), the tree joint none."""
    s = sb.System("hinged")
    a, b, c = s.coordinate("a"), s.coordinate("b"), s.coordinate("c")
    s.coordinate_of(c).dq0 = 2.0
    B = s.base("B", s.ground_base, sb.EulerAngles("xyz", (a, b, c)))
    s.solid("body", s.origin, B, mass=3.0, com=R_G, inertia=(0.2, 0.3, 0.1, 0.01, 0.02, -0.015))
    s.gravity((0, -G, 0))
    s.revolute_joint("hinge", s.origin, "xyz", s.origin, B, axis="z")
    w = s.joint_reaction("body", name="ball", base="xyz")
    assert "lambda_hinge_ax" in str(w.moment.components(s.ground_base))
    res = simulate(s.derive(), 1.0, dt=0.05, rtol=1e-10, atol=1e-12)
    aG = _euler_zxz_position("xyz")
    for k in range(len(res.t)):
        args = [res[n][k] for n in ("a", "b", "c", "da", "db", "dc", "dda", "ddb", "ddc")]
        F = 3.0 * (np.array(aG(*args), dtype=float) - np.array([0, -G, 0]))
        np.testing.assert_allclose([res[f"ball_F_{ax}"][k] for ax in "xyz"], F, atol=1e-8)
        np.testing.assert_allclose([res[f"ball_M_{ax}"][k] for ax in "xyz"], 0.0, atol=1e-8)
    assert np.max(np.abs(res["lambda_hinge_ax"])) > 0.1  # the hinge does carry moments


@pytest.mark.parametrize("kind", ("spherical", "revolute", "prismatic", "cylindrical", "universal", "distance"))
def test_free_tree_joint_transmits_nothing_when_a_constraint_joint_holds_the_body(kind):
    """A body on six relative coordinates (a free tree joint) held by a joint written as constraints:
    Newton-Euler on the body with that joint's multiplier forces leaves nothing for the tree joint."""
    s = sb.System(f"held_{kind}")
    x, y, z, a, b, c = (s.coordinate(n) for n in ("x", "y", "z", "a", "b", "c"))
    B = s.base("B", s.ground_base, sb.EulerAngles("xyz", (a, b, c)))
    O = s.point("Ob", s.origin, (x, y, z))
    s.solid("body", O, B, mass=2.0, com=(0.3, -0.2, 0.25), inertia=(0.2, 0.3, 0.1, 0.01, 0.02, -0.015))
    s.gravity((1.0, -G, -3.0))
    if kind == "distance":
        s.distance_joint("J", s.origin, s.point("E", O, (1, 0, 0), B), 1.0)
    elif kind == "universal":
        s.universal_joint("J", s.origin, "xyz", O, B, axis1="x", axis2="y")
    elif kind == "spherical":
        s.spherical_joint("J", s.origin, O)
    else:
        getattr(s, f"{kind}_joint")("J", s.origin, "xyz", O, B, axis="x")
    s.joint_reaction("body", name="free", base="xyz")
    res = simulate(s.derive(), 0.5, dt=0.05, rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(res.dq)) > 0.1  # it moves
    for part in "FM":
        for ax in "xyz":
            np.testing.assert_allclose(res[f"free_{part}_{ax}"], 0.0, atol=1e-8, err_msg=f"{part}_{ax}")


# ---------------------------------------------------------------------------
# (e) closed loop: four-bar in relative coordinates closed by one revolute joint
# ---------------------------------------------------------------------------
LC, LK, LR, DX = 0.4, 1.2, 0.9, 1.0  # crank, coupler, rocker, ground link
MB = (1.0, 2.0, 1.5)
IB = (0.02, 0.25, 0.1)


def fourbar_relative() -> sb.System:
    s = sb.System("fb_rel")
    t1 = s.coordinate("t1", 1.2)
    t2 = s.coordinate("t2", 0.0)
    t3 = s.coordinate("t3", 0.0)
    B1 = s.base("B1", s.ground_base, sb.Rz(t1))
    B2 = s.base("B2", B1, sb.Rz(t2))
    B3 = s.base("B3", s.ground_base, sb.Rz(t3))
    A = s.point("A", s.origin, (LC, 0, 0), B1)
    D = s.point("D", s.origin, (DX, 0, 0))
    Bk = s.point("Bk", A, (LK, 0, 0), B2)
    Br = s.point("Br", D, (LR, 0, 0), B3)
    s.solid("crank", s.origin, B1, mass=MB[0], com=(LC / 2, 0, 0), inertia=(0, 0, IB[0]))
    s.solid("coupler", A, B2, mass=MB[1], com=(LK / 2, 0, 0), inertia=(0, 0, IB[1]))
    s.solid("rocker", D, B3, mass=MB[2], com=(LR / 2, 0, 0), inertia=(0, 0, IB[2]))
    s.gravity((0, -G, 0))
    s.revolute_joint("close", Br, B3, Bk, B2)
    s.joint_reaction("crank", name="Rc", base="xyz")
    s.joint_reaction("coupler", name="Rk", base="xyz")
    s.joint_reaction("rocker", name="Rr", base="xyz")
    return s


def fourbar_absolute(q0) -> sb.System:
    s = sb.System("fb_abs")
    bodies = []
    for i, (L, m, J) in enumerate(zip((LC, LK, LR), MB, IB)):
        x, y, p = (s.coordinate(f"{n}{i}", q0[3 * i + k]) for k, n in enumerate("xyp"))
        B = s.base(f"B{i}", s.ground_base, sb.Rz(p))
        O = s.point(f"O{i}", s.origin, (x, y, 0))
        E = s.point(f"E{i}", O, (L, 0, 0), B)
        s.solid(f"s{i}", O, B, mass=m, com=(L / 2, 0, 0), inertia=(0, 0, J))
        bodies.append((O, B, E))
    D = s.point("D", s.origin, (DX, 0, 0))
    s.gravity((0, -G, 0))
    s.revolute_joint("crank", s.origin, "xyz", bodies[0][0], bodies[0][1])
    s.revolute_joint("coupler", bodies[0][2], bodies[0][1], bodies[1][0], bodies[1][1])
    s.revolute_joint("rocker", D, "xyz", bodies[2][0], bodies[2][1])
    s.revolute_joint("close", bodies[2][2], bodies[2][1], bodies[1][2], bodies[1][1])
    return s


def _fourbar_start() -> tuple[float, float, float]:
    from scipy.optimize import fsolve

    t1 = 1.2

    def closure(v):
        t2, t3 = v
        A = LC * np.array([np.cos(t1), np.sin(t1)])
        Bk = A + LK * np.array([np.cos(t1 + t2), np.sin(t1 + t2)])
        Br = np.array([DX, 0]) + LR * np.array([np.cos(t3), np.sin(t3)])
        return Bk - Br

    t2, t3 = fsolve(closure, [-0.9, 1.6], xtol=1e-14)
    return t1, t2, t3


def _fourbar_absolute_state(t1, t2, t3, d1, d2, d3):
    a, da = [t1, t1 + t2, t3], [d1, d1 + d2, d3]
    A = LC * np.array([np.cos(a[0]), np.sin(a[0])])
    vA = LC * da[0] * np.array([-np.sin(a[0]), np.cos(a[0])])
    q = np.array([0, 0, a[0], A[0], A[1], a[1], DX, 0, a[2]])
    dq = np.array([0, 0, da[0], vA[0], vA[1], da[1], 0, 0, da[2]])
    return q, dq


def test_fourbar_tree_reactions_include_the_loop_multipliers():
    s = fourbar_relative()
    t1, t2, t3 = _fourbar_start()
    for n, v in (("t1", t1), ("t2", t2), ("t3", t3)):
        s.coordinate_of(n).q0 = v
    assert "lambda_close_x" in str(s.outputs["Rr_F_x"].expr)  # the closure's force acts on the rocker
    eq = s.derive()
    res = simulate(eq, 1.0, dt=0.05, rtol=1e-10, atol=1e-12)
    eq_abs = fourbar_absolute(_fourbar_absolute_state(t1, t2, t3, 0, 0, 0)[0]).derive()
    nm = NumericModel(eq_abs)
    lam_index = {info.name: k for k, info in enumerate(eq_abs.constraint_rows)}
    for k in range(len(res.t)):
        state = [res[n][k] for n in ("t1", "t2", "t3", "dt1", "dt2", "dt3")]
        ddq, lam = nm.accelerations(*_fourbar_absolute_state(*state))
        crank = _rot(state[0])  # the coupler's pin rows are in the crank's base
        for joint, out, R in (("crank", "Rc", np.eye(2)), ("coupler", "Rk", crank), ("rocker", "Rr", np.eye(2))):
            expected = -R @ [lam[lam_index[f"{joint}_{ax}"]] for ax in "xy"]
            got = [res[f"{out}_F_{ax}"][k] for ax in "xy"]
            np.testing.assert_allclose(got, expected, atol=1e-8)
            assert abs(res[f"{out}_M_z"][k]) < 1e-8
    assert np.max(np.abs(res["dt1"])) > 0.5


# ---------------------------------------------------------------------------
# loads on the subtree, and what the joint transmits
# ---------------------------------------------------------------------------
def test_spring_and_force_on_subtree_and_actuation_in_the_joint():
    s = sb.System("cart")
    x = s.coordinate("x", 0.2)
    th = s.coordinate("th", 0.5)
    C = s.point("C", s.origin, (x, 0, 0))
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.solid("cart", C, "xyz", mass=3.0)
    P = s.point("P", C, (0, -1.0, 0), B)
    s.particle("bob", P, 0.5)
    s.gravity((0, -G, 0))
    s.spring_damper("k", s.origin, C, k=20.0, rest_length=0.0, damping=0.3)
    s.force("push", "bob", P, (2.0, 0, 0))
    s.force("link", "bob", P, (0, 1.5, 0), reaction="cart")  # internal to the cart's subtree
    s.generalized_force("motor", th, -0.4 * s.dt(th))
    s.joint_reaction("bob", C, "xyz", name="rod")
    s.joint_reaction("cart", C, "xyz", name="rail")
    res = simulate(s.derive(), 1.0, dt=0.05)
    ths, dth, ddth, ddx = res["th"], res["dth"], res["ddth"], res["ddx"]
    # bob: a_P = ddx ex + d2/dt2 (sin th, -cos th)
    ax = ddx + ddth * np.cos(ths) - dth**2 * np.sin(ths)
    ay = ddth * np.sin(ths) + dth**2 * np.cos(ths)
    np.testing.assert_allclose(res["rod_F_x"], 0.5 * ax - 2.0, atol=1e-9)
    np.testing.assert_allclose(res["rod_F_y"], 0.5 * (ay + G) - 1.5, atol=1e-9)
    # the motor torque on th is transmitted by the joint: M_z = motor torque
    np.testing.assert_allclose(res["rod_M_z"], -0.4 * dth, atol=1e-9)
    # the rail (x free) transmits along x exactly the spring force it does not see: none
    np.testing.assert_allclose(res["rail_F_x"], 0.0, atol=1e-8)
    np.testing.assert_allclose(res["rail_F_y"], (3.0 + 0.5) * G + 0.5 * ay, atol=1e-8)


def test_load_coupling_the_subtree_with_other_joints_is_refused():
    s = sb.System("coupled")
    t1, t2 = s.coordinate("t1"), s.coordinate("t2")
    B1 = s.base("B1", s.ground_base, sb.Rz(t1))
    B2 = s.base("B2", B1, sb.Rz(t2))
    A = s.point("A", s.origin, (1, 0, 0), B1)
    s.solid("b1", s.origin, B1, mass=1.0, com=(0.5, 0, 0), inertia=(0, 0, 0.1))
    s.solid("b2", A, B2, mass=1.0, com=(0.5, 0, 0), inertia=(0, 0, 0.1))
    s.generalized_force("relative", t2, -(t1 + t2))  # in b2's joint, inside b1's subtree
    s.joint_reaction("b2", name="ok")  # a generalized force on the joint's own coordinate is transmitted
    s.joint_reaction("b1", name="ok1")
    s.torsion_spring_damper("absolute", t1 + t2, k=5.0)
    with pytest.raises(ModelError, match="'absolute' acts along coordinates 't1', 't2'"):
        s.joint_reaction("b2", name="R")
    assert not [o for o in s.outputs if o.startswith("R_")]  # the failed call declared nothing
    with pytest.raises(ModelError, match="'absolute' acts along coordinates 't1', 't2'"):
        s.joint_reaction("b1")  # the part on t1 acts in b1's joint, the part on t2 inside: no single reading


def test_unknown_solid_is_an_error():
    s = pendulum("p2")
    with pytest.raises(ModelError, match="nope"):
        s.joint_reaction("nope")


# ---------------------------------------------------------------------------
# (d) the reactions as FMU outputs
# ---------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("fmi_type", ("ModelExchange", "CoSimulation"))
def test_fmu_outputs_equal_the_python_reactions(fmi_type, tmp_path):
    from symbody.fmu import export_fmu
    from symbody.fmu.testing import fmu_simulation, max_relative_error

    s = fourbar_relative()  # outputs with ddq and the closure's multipliers
    for n, v in zip(("t1", "t2", "t3"), _fourbar_start()):
        s.coordinate_of(n).q0 = v
    eq = s.derive()
    fmu = export_fmu(eq, tmp_path / "fb.fmu", fmi_version=3, kind="both")
    r = fmu_simulation(fmu, 1.0, 0.05, fmi_type=fmi_type, relative_tolerance=1e-10)
    nm = NumericModel(eq)
    names = [o.name for o in eq.outputs]
    assert np.max(np.abs(r["Rc_F_y"])) > 5.0
    expected = np.zeros((len(r["time"]), len(names)))
    for k in range(len(r["time"])):  # the Python outputs at the FMU's states
        q = np.array([r[n][k] for n in ("t1", "t2", "t3")])
        dq = np.array([r[n][k] for n in ("dt1", "dt2", "dt3")])
        ddq, lam = nm.accelerations(q, dq, t=float(r["time"][k]))
        expected[k] = nm.outputs(q, dq, t=float(r["time"][k]), u=None, ddq=ddq, lam=lam)
    for j, name in enumerate(names):  # within the loop's drift from Phi = 0 the FMU stabilizes
        assert max_relative_error(r[name], expected[:, j]) < 1e-6, name


def test_coordinate_shared_with_a_sibling_branch_is_refused():
    s = sb.System("belt")
    th = s.coordinate("th")
    B1 = s.base("B1", s.ground_base, sb.Rz(th))
    B2 = s.base("B2", s.ground_base, sb.Rz(th))  # a second wheel turned by the same angle: a belt
    s.solid("w1", s.origin, B1, mass=1.0, com=(0.1, 0, 0), inertia=(0, 0, 0.1))
    s.solid("w2", s.point("D", s.origin, (2, 0, 0)), B2, mass=1.0, com=(0.1, 0, 0), inertia=(0, 0, 0.1))
    with pytest.raises(ModelError, match="coordinate\\(s\\) 'th' move its subtree and bodies outside"):
        s.joint_reaction("w2")


def test_torque_on_a_particle_is_not_counted():
    """The equations give a particle no rotation, so a moment on it does no work: nor does it in the reaction."""
    s = pendulum("pt", reaction=False)
    P = s.point("Pp", s.origin, (0.8, 0, 0), "B")
    s.particle("tip", P, 0.3)
    s.force("twist", "tip", P, moment=(0, 0, 5.0))
    s.joint_reaction("bar", name="R", base="xyz")
    res = simulate(s.derive(), 0.5, dt=0.05)
    np.testing.assert_allclose(res["R_M_z"], 0.0, atol=1e-9)


def test_contact_acting_on_the_subtree_is_refused():
    s = pendulum("walled")
    wall = s.unilateral("wall", s.coordinate_of("th").q + 0.5)  # a stop on the pin angle
    with pytest.raises(ModelError, match="contact 'wall'.*no point of application"):
        s.joint_reaction("bar")
    assert wall.name == "wall"


def test_reaction_taken_before_a_load_is_refused_at_derivation():
    s = pendulum("late")
    s.spring_damper("k", s.origin, s.point("T", s.origin, (0.8, 0, 0), "B"), k=5.0, rest_length=0.1, solid2="bar")
    with pytest.raises(ModelError, match="joint reaction of solid 'bar' was taken before"):
        s.derive()
    s.joint_reaction("bar")  # taking it again does not make the first one right
    with pytest.raises(ModelError, match="taken before"):
        s.derive()


def test_failed_reaction_leaves_nothing_behind():
    s = pendulum("rollback")
    with pytest.raises(ModelError):
        s.joint_reaction("bar", name="pin")  # the outputs pin_* exist already
    assert len(s.reactions) == 1
    assert [o.name for o in s.derive().outputs] == [f"pin_{w}_{ax}" for w in "FM" for ax in "xyz"]


def test_initial_rows_after_the_reaction_are_fine():
    s = pendulum("init")
    s.fix_initial("th")
    eq = s.derive()
    assert [r.name for r in eq.initial_rows] == ["th_init"]
    assert [o.name for o in eq.outputs] == [f"pin_{w}_{ax}" for w in "FM" for ax in "xyz"]
    res = simulate(eq, 2.0, dt=0.05)
    assert res["th"][0] == pytest.approx(0.7, abs=1e-12)  # held by the initial row
    _pin_force_is_m_times_aG_minus_g(res)


def test_free_body_transmits_nothing_whatever_loads_act_on_it():
    """On six relative coordinates the tree joint is free: the body's Newton-Euler balance with every
    load the model applies (springs, dampers, forces, torques, viscous friction) leaves nothing."""
    s = sb.System("free")
    x, y, z, a, b, c = (s.coordinate(n, v) for n, v in zip("xyzabc", (0.1, 0.2, -0.1, 0.3, -0.2, 0.5)))
    for q, v in zip((x, a, c), (0.5, -1.0, 2.0)):
        s.coordinate_of(q).dq0 = v
    B = s.base("B", s.ground_base, sb.EulerAngles("zyx", (a, b, c)))
    O = s.point("Ob", s.origin, (x, y, z))
    s.solid("body", O, B, mass=2.0, com=(0.3, -0.2, 0.25), inertia=(0.2, 0.3, 0.1, 0.01, 0.02, -0.015))
    E = s.point("E", O, (0.5, 0.1, 0), B)
    s.gravity((0.5, -G, -1.0))
    s.spring_damper("k", s.point("A", s.origin, (1, 1, 1)), E, k=30.0, rest_length=0.5, damping=0.7, solid2="body")
    s.force("f", "body", E, (0.0, 1.0, 2.0), moment=(0.3, 0, -0.2), base=B)
    s.torque("twist", "body", (0, 0.4, 0))
    s.viscous_friction("air", c=0.2, base1="xyz", base2=B)
    s.viscous_friction("axle", c=0.3, base1="xyz", base2=B, axis=sb.Vector(B, 0, 0, 1))
    s.joint_reaction("body", s.origin, "xyz", name="free")
    res = simulate(s.derive(), 0.5, dt=0.05, rtol=1e-10, atol=1e-12)
    for part in "FM":
        for ax in "xyz":
            np.testing.assert_allclose(res[f"free_{part}_{ax}"], 0.0, atol=1e-8, err_msg=f"{part}_{ax}")


def test_cart_rail_transmits_the_cart_force_input_of_the_n_link_pendulum():
    """The cart's force input acts along its coordinate: the rail (x free) transmits it along x; across
    the rail it carries the weight and the vertical inertia of every mass (absolute link angles)."""
    s = example("n_link_pendulum_on_cart", n=3)
    s.joint_reaction("Pa0", name="rail", base="xyz")
    with pytest.raises(ModelError, match="'torque_2' acts along coordinates 'q1', 'q2'"):
        s.joint_reaction("Pa1")  # T2 between links 1 and 2 is given along absolute angles
    res = simulate(s.derive(), 1.0, dt=0.05, inputs={"F": lambda t: 3.0 * np.sin(2.0 * t), "T1": 0.5})
    np.testing.assert_allclose(res["rail_F_x"], 3.0 * np.sin(2.0 * res.t), atol=1e-9)
    q, dq, ddq = (np.array([res[f"{p}q{i}"] for i in range(1, 4)]) for p in ("", "d", "dd"))
    ay = np.cumsum(ddq * np.cos(q) - dq**2 * np.sin(q), axis=0)  # y of the masses: sum of l sin(q_i)
    np.testing.assert_allclose(res["rail_F_y"], 4 * G + ay.sum(axis=0), atol=1e-8)
    assert np.max(np.abs(ay)) > 1.0
