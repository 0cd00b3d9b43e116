"""Exact energies: kinetic energy with rheonomic terms, exact potentials of gravity and springs.

Truth: hand formulas, sympy.physics.mechanics, and conservation of energy along
accurate simulations (an Euler-parameter heavy top).
"""

import math

import numpy as np
import pytest
import sympy
import sympy.physics.mechanics as me

import symbody as sb
from symbody.numeric import NumericModel, energy, kinetic_energy, potential_energy, simulate
from symbody.numeric.energy import exact_potential_energy

G = 9.81
RNG = np.random.default_rng(7)


# ---------------------------------------------------------------------------
# kinetic energy of rheonomic models
# ---------------------------------------------------------------------------


def test_kinetic_energy_of_a_prescribed_motion():
    """A 2 kg mass carried at 1.5 m/s along x and free along y: T = 1/2 m (1.5^2 + dy^2)."""
    s = sb.System("carried_mass")
    y = s.coordinate("y", 0.0)
    s.particle("m", s.point("P", s.origin, (1.5 * s.t, y, 0)), 2.0)
    eq = s.derive()
    assert kinetic_energy(eq, [[0.0]], [[0.0]], t=0.7)[0] == pytest.approx(2.25, abs=1e-12)
    dy = np.array([-2.0, 0.5, 3.0])
    np.testing.assert_allclose(kinetic_energy(eq, np.zeros((3, 1)), dy[:, None]), 2.25 + dy**2, atol=1e-12)
    assert NumericModel(eq).kinetic_energy([0.0], [0.5], t=0.3) == pytest.approx(2.25 + 0.25, abs=1e-12)


def test_kinetic_energy_of_a_solid_on_a_driven_turntable():
    """A slider (mass m, centre offset c, inertia Izz) on a rod turning at the prescribed rate W.

    v_G = (dx, W (x + c)) in the rod's base: T = 1/2 m (dx^2 + W^2 (x + c)^2) + 1/2 Izz W^2.
    """
    m, c, Izz, W = 1.7, 0.2, 0.05, 2.5
    s = sb.System("turntable")
    x = s.coordinate("x", 0.5)
    rod = s.base("rod", s.ground_base, sb.Rz(W * s.t))
    s.solid(
        "slider", s.point("Q", s.origin, sb.Vector(rod, x, 0, 0)), rod, mass=m, com=(c, 0, 0), inertia=(0.01, 0.02, Izz)
    )
    eq = s.derive()
    xs, dxs, ts = RNG.normal(size=5), RNG.normal(size=5), RNG.uniform(0, 3, size=5)
    T = kinetic_energy(eq, xs[:, None], dxs[:, None], t=ts)
    np.testing.assert_allclose(T, 0.5 * m * (dxs**2 + W**2 * (xs + c) ** 2) + 0.5 * Izz * W**2, rtol=1e-12)


def moving_support_pendulum(a=0.4, w=3.0, l=1.2, m=0.8):
    s = sb.System("moving_support")
    th = s.coordinate("theta", 0.5)
    B = s.base("B", s.ground_base, sb.Rz(th))
    rate = s.parameter("w", w)  # a parameter (no unit), so that sin(w t) passes the unit check
    S = s.point("S", s.origin, (a * sb.sin(rate * s.t), 0, 0))
    s.particle("bob", s.point("P", S, sb.Vector(B, 0, -l, 0)), m)
    s.gravity((0, -G, 0))
    return s


def test_rheonomic_pendulum_kinetic_energy_along_a_simulation():
    """Support x_s = a sin(w t): T = m/2 (dx_s^2 + 2 dx_s l dth cos(th) + l^2 dth^2)."""
    a, w, l, m = 0.4, 3.0, 1.2, 0.8
    eq = moving_support_pendulum(a, w, l, m).derive()
    res = simulate(eq, 2.0, dt=0.1, rtol=1e-10, atol=1e-12)
    th, dth, t = res["theta"], res["dtheta"], res.t
    dxs = a * w * np.cos(w * t)
    exact = 0.5 * m * (dxs**2 + 2 * dxs * l * dth * np.cos(th) + l**2 * dth**2)
    e = res.energy
    np.testing.assert_allclose(e.kinetic, exact, rtol=1e-12, atol=1e-14)
    # gravity's potential is exact and the only potential: V = -m g l cos(th), zero at the first sample
    np.testing.assert_allclose(e.potential, -m * G * l * (np.cos(th) - np.cos(th[0])), atol=1e-12)
    assert e.exact and e.nonpotential_loads == []


def test_kinetic_energy_of_a_carried_3d_body_matches_sympy_mechanics():
    """A body on ZXZ Euler angles whose support moves with (a sin t, 0, b t); offset centre of mass."""
    a, b, d, c = 0.3, 0.7, 0.2, -0.4
    m, Ix, Iy, Iz = 1.3, 0.11, 0.17, 0.23
    s = sb.System("carried_body")
    psi, th, phi = s.coordinate("psi", 0.1), s.coordinate("th", 0.7), s.coordinate("phi", 0.2)
    B1 = s.base("B1", s.ground_base, sb.Rz(psi))
    B2 = s.base("B2", B1, sb.Rx(th))
    B3 = s.base("B3", B2, sb.Rz(phi))
    w = s.parameter("w", 1.0)  # a parameter (no unit), so that sin(w t) passes the unit check
    S = s.point("S", s.origin, (a * sb.sin(w * s.t), 0, b * s.t))
    s.solid("body", S, B3, mass=m, com=(d, 0, c), inertia=(Ix, Iy, Iz))
    eq = s.derive()

    t = me.dynamicsymbols._t
    q = me.dynamicsymbols("q1:4")
    N = me.ReferenceFrame("N")
    A = N.orientnew("A", "Body", q, "ZXZ")
    O = me.Point("O0")
    O.set_vel(N, 0)
    Gp = O.locatenew("G", a * sympy.sin(t) * N.x + b * t * N.z + d * A.x + c * A.z)
    Gp.set_vel(N, Gp.pos_from(O).dt(N))  # sympy's t is the time of its dynamicsymbols
    body = me.RigidBody("body", Gp, A, m, (me.inertia(A, Ix, Iy, Iz), Gp))
    qd = [sympy.Symbol(f"u{i}") for i in range(3)]
    qs = [sympy.Symbol(f"x{i}") for i in range(3)]
    KE = body.kinetic_energy(N).subs(dict(zip([qi.diff(t) for qi in q], qd))).subs(dict(zip(q, qs)))
    f = sympy.lambdify([t, qs, qd], KE)
    for _ in range(5):
        tt, qq, dd = RNG.uniform(0, 3), RNG.normal(size=3), RNG.normal(size=3)
        assert kinetic_energy(eq, [qq], [dd], t=tt)[0] == pytest.approx(f(tt, qq, dd), rel=1e-12)


# ---------------------------------------------------------------------------
# exact potentials: an Euler-parameter heavy top
# ---------------------------------------------------------------------------

TOP = {"m": 2.0, "h": 0.3, "A": 0.05, "C": 0.08}
ANCHOR, TIP, K, L0 = np.array([0.5, 0.2, 0.6]), np.array([0.1, 0.0, 0.4]), 30.0, 0.2


def heavy_top(spring: bool) -> sb.System:
    """Symmetric top on a fixed point, Euler parameters, tilted 0.4 rad about x; optionally a spring to its tip."""
    s = sb.System("heavy_top")
    m, h, A, C = (s.parameter(n, v) for n, v in TOP.items())
    e = [s.coordinate(n, v) for n, v in zip(("e0", "e1", "e2", "e3"), (math.cos(0.2), math.sin(0.2), 0.0, 0.0))]
    B = s.base("B", s.ground_base, sb.EulerParameters(*e))
    s.solid("top", s.origin, B, mass=m, com=(0, 0, h), inertia=(A, A, C))
    s.gravity((0, 0, -G))
    if spring:
        tip = s.point("tip", s.origin, sb.Vector(B, *TIP))
        s.spring_damper("spring", s.point("anchor", s.origin, tuple(ANCHOR)), tip, k=K, rest_length=L0)
    return s


def rotation(e: np.ndarray) -> np.ndarray:
    e0, e1, e2, e3 = e
    return np.array(
        [
            [e0**2 + e1**2 - e2**2 - e3**2, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
            [2 * (e1 * e2 + e0 * e3), e0**2 - e1**2 + e2**2 - e3**2, 2 * (e2 * e3 - e0 * e1)],
            [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), e0**2 - e1**2 - e2**2 + e3**2],
        ]
    )


def top_energy(e: np.ndarray, de: np.ndarray, spring: bool) -> tuple[float, float]:
    """Hand formulas: body rates w = 2 G(e) de; T = 1/2 (A w1^2 + A w2^2 + C w3^2) (fixed point);
    V = m g h R33 (+ 1/2 k (|R tip - anchor| - l0)^2)."""
    e0, e1, e2, e3 = e
    Gm = np.array([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])
    w = 2 * Gm @ de
    A = TOP["A"] + TOP["m"] * TOP["h"] ** 2  # inertia at the fixed point
    T = 0.5 * (A * w[0] ** 2 + A * w[1] ** 2 + TOP["C"] * w[2] ** 2)
    R = rotation(e)
    V = TOP["m"] * G * TOP["h"] * R[2, 2]
    if spring:
        V += 0.5 * K * (np.linalg.norm(R @ TIP - ANCHOR) - L0) ** 2
    return T, V


def spinning_start(eq) -> np.ndarray:
    e = eq.q0
    e0, e1, e2, e3 = e
    Gm = np.array([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])
    return 0.5 * Gm.T @ np.array([0.0, 1.0, 20.0])  # body rates (0, 1, 20) rad/s


@pytest.mark.parametrize("spring", [False, True], ids=["gravity", "gravity_and_spring"])
def test_euler_parameter_top_conserves_energy_in_the_energy_report(spring):
    eq = heavy_top(spring).derive()
    res = simulate(eq, 1.5, dt=0.01, dq0=spinning_start(eq), rtol=1e-12, atol=1e-12)
    e = res.energy
    # the motion exchanges energy between T and V; the integration conserves it to ~1e-10
    assert np.ptp(e.kinetic) > 0.5
    assert e.drift < 1e-8, e.drift
    assert e.exact and e.conservative and e.nonpotential_loads == []
    assert np.all(e.potential_work == 0.0)
    # against the hand formulas, sample by sample
    TV = np.array([top_energy(q, dq, spring) for q, dq in zip(res.q, res.dq)])
    np.testing.assert_allclose(e.kinetic, TV[:, 0], rtol=1e-12)
    np.testing.assert_allclose(e.potential, TV[:, 1] - TV[0, 1], atol=1e-11)


def test_exact_potential_of_the_top_matches_the_closed_form_off_the_trajectory():
    """Far-apart samples (the straight segments between them leave the unit sphere): V stays exact."""
    eq = heavy_top(True).derive()
    E = RNG.normal(size=(6, 4))
    E /= np.linalg.norm(E, axis=1)[:, None]
    V_true = np.array([top_energy(e, np.zeros(4), True)[1] for e in E])
    np.testing.assert_allclose(potential_energy(eq, E, reference=E[2]), V_true - V_true[2], atol=1e-12)
    np.testing.assert_allclose(exact_potential_energy(eq, E), V_true, rtol=1e-12)


# ---------------------------------------------------------------------------
# which part is exact
# ---------------------------------------------------------------------------


def test_the_result_says_which_part_is_exact():
    """Gravity (exact), a damped spring (exact elastic part, damper vanishes at rest) and a
    constant generalized force without potential (integrated: V = -F x)."""
    s = sb.System("mixed")
    x, y = s.coordinate("x", 0.3), s.coordinate("y", -0.2)
    P = s.point("P", s.origin, (x, y, 0))
    s.particle("m", P, 1.5)
    s.gravity((0, -G, 0))
    s.spring_damper("spring", s.point("A", s.origin, (0, 1.0, 0)), P, k=7.0, rest_length=0.5, damping=0.3)
    eq0 = s.derive()
    s.generalized_force("push", x, 2.0)
    eq = s.derive()
    qs = np.array([[0.3, -0.2], [1.1, 0.4], [-0.7, -1.3], [0.2, 2.0]])
    dqs = RNG.normal(size=qs.shape)
    V_true = 1.5 * G * qs[:, 1] + 0.5 * 7.0 * (np.hypot(qs[:, 0], qs[:, 1] - 1.0) - 0.5) ** 2

    e0 = energy(eq0, np.arange(4.0), qs, dqs)
    assert e0.exact and e0.nonpotential_loads == ["spring"]  # the damper part of the spring
    np.testing.assert_allclose(e0.potential, V_true - V_true[0], atol=1e-12)

    e = energy(eq, np.arange(4.0), qs, dqs)
    assert not e.exact and e.conservative and set(e.nonpotential_loads) == {"spring", "push"}
    np.testing.assert_allclose(e.potential_exact, V_true - V_true[0], atol=1e-12)
    np.testing.assert_allclose(e.potential_work, -2.0 * (qs[:, 0] - qs[0, 0]), atol=1e-12)
    np.testing.assert_allclose(e.kinetic, 0.5 * 1.5 * (dqs**2).sum(axis=1), rtol=1e-12)


def test_a_spring_with_a_stiffness_that_depends_on_the_state_has_no_declared_potential():
    """k = k0 (1 + x^2) is not the stiffness of 1/2 k (d - l0)^2: its work is integrated instead."""
    s = sb.System("hardening")
    x = s.coordinate("x", 0.5)
    P = s.point("P", s.origin, (x, 0, 0))
    s.particle("m", P, 1.0)
    s.spring_damper("spring", s.point("A", s.origin, (-1, 0, 0)), P, k=3.0 * (1 + x**2), rest_length=1.0)
    e = energy(s.derive(), [0.0, 1.0], [[0.0], [1.0]], [[0.0], [0.0]])
    assert not e.exact and e.nonpotential_loads == ["spring"]
    # V = int_0^x 3 (1 + s^2) s ds = 3 (x^2/2 + x^4/4)
    assert e.potential[1] == pytest.approx(3 * (0.5 + 0.25), abs=1e-12)


def test_a_spring_acting_on_a_solid_at_a_sliding_point_has_no_declared_potential():
    """The spring pulls the rod's material point under a slider: its length changes with the
    slider's coordinate s, but the force does no work on s, so 1/2 k (d - l0)^2 is no potential."""
    s = sb.System("sliding_attachment")
    th, u = s.coordinate("theta", 0.3), s.coordinate("s", 0.5)
    R = s.base("R", s.ground_base, sb.Rz(th))
    body = s.solid("rod", s.origin, R, mass=1.0, com=(0.5, 0, 0), inertia=(0.0, 0.1, 0.1))
    P = s.point("P", s.origin, sb.Vector(R, u, 0, 0))
    s.particle("slider", P, 0.5)
    s.spring_damper("spring", s.point("A", s.origin, (0, 1.0, 0)), P, k=5.0, rest_length=0.2, solid2=body)
    eq = s.derive()
    assert eq.nonpotential_loads == ["spring"]
    with pytest.warns(RuntimeWarning, match="'spring' in 'sliding_attachment' are not conservative"):
        e = energy(eq, [0.0, 1.0], [[0.3, 0.5], [0.3, 0.9]], np.zeros((2, 2)))
    assert not e.exact and not e.conservative
    assert e.potential[1] == pytest.approx(0.0, abs=1e-12)  # moving s alone: the spring does no work


def test_a_constant_force_has_an_exact_potential_and_a_follower_force_has_none():
    """A pendulum (rod of length 1) pushed by a constant horizontal force F: V = -F sin(th) - m g (-cos th).
    The same force turning with the rod (a follower force) has no potential."""

    def pendulum(follower: bool) -> sb.System:
        s = sb.System("pushed")
        th = s.coordinate("th", 0.2)
        B = s.base("B", s.ground_base, sb.Rz(th))
        P = s.point("P", s.origin, sb.Vector(B, 0, -1, 0))
        s.particle("bob", P, 2.0)
        s.gravity((0, -G, 0))
        if follower:
            s.force("push", None, P, (3.0, 0, 0), base=B)
        else:
            s.force("push", None, P, (3.0, 0, 0))
        return s

    th = np.array([0.2, 1.5, -2.0, 4.0])
    e = energy(pendulum(False).derive(), np.arange(4.0), th[:, None], np.zeros((4, 1)))
    V = -3.0 * np.sin(th) - 2.0 * G * np.cos(th)
    assert e.exact and e.nonpotential_loads == []
    np.testing.assert_allclose(e.potential, V - V[0], atol=1e-12)
    ef = energy(pendulum(True).derive(), np.arange(4.0), th[:, None], np.zeros((4, 1)))
    assert not ef.exact and ef.nonpotential_loads == ["push"]
    # the follower force (3, 0) in B does the work 3 dth per radian
    np.testing.assert_allclose(ef.potential_work, -3.0 * (th - th[0]), atol=1e-12)
