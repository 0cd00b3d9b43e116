"""Static equilibrium of a stiff model: a slewing crane whose slew joint is held by a PD servo.

The servo's stiffness ``J omega_n^2`` (5.5e9 N m/rad at 20 rad/s) stands next to the payload's
swing stiffness ``m g l`` (3.9e5 N m/rad) and the unit entries of the holds: the Newton step
decides rank on the scaled matrix (symbody.numeric.scaling), so the holds' efforts are not cut
as small.  Closed forms: the payload hangs vertically under the trolley, the servo's torque
``J omega_n^2 (slew_ref - slew)`` is what holds a slew angle off the reference, and the hoist
force ``m g`` holds the rope length with no further effort.
"""

import warnings

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import NonIsolatedEquilibriumWarning, NumericModel, static_equilibrium

G = 9.81
M_PAYLOAD = 2000.0
J_SLEW, M_TROLLEY, RADIUS = 1.2e7, 800.0, 25.0


def servo_crane(omega_n: float) -> sb.System:
    """A tower crane's jib slewed by a PD servo of natural frequency ``omega_n`` (rad/s), with hoisting."""
    s = sb.System("servo_crane")
    P = s.parameter
    g, m = P("g", G, unit="m/s2"), P("m_payload", M_PAYLOAD, unit="kg")
    J, mt, R = P("J_slew", J_SLEW, unit="kg.m2"), P("m_trolley", M_TROLLEY, unit="kg"), P("R", RADIUS, unit="m")
    wn, zeta = P("omega_n", omega_n, unit="rad/s"), P("zeta", 0.7, unit="1")
    ref = s.input("slew_ref", 0.0, unit="rad")
    slew = s.coordinate("slew", 0.0, unit="rad")
    l = s.coordinate("l", 20.0, unit="m")
    beta_r, beta_t = s.coordinate("beta_r", 0.0, unit="rad"), s.coordinate("beta_t", 0.0, unit="rad")
    jib = s.base("jib", s.ground_base, sb.Rz(slew))
    rope = s.base("rope", s.base("rope_1", jib, sb.Ry(-beta_r)), sb.Rx(beta_t))
    top = s.point("top", s.origin, (0, 0, P("H", 40.0, unit="m")))
    trolley = s.point("trolley", top, sb.Vector(jib, R, 0, 0))
    structure = s.solid("jib_structure", top, jib, mass=P("m_jib", 3e4, unit="kg"), inertia=(0, J, J))
    s.particle("trolley_mass", trolley, mt)
    s.particle("payload", s.point("hook", trolley, sb.Vector(rope, 0, 0, -l)), m)
    s.particle("winch", s.point("winch_equivalent", s.origin, (l, 0, 0)), P("m_winch", 400.0, unit="kg"))
    s.gravity((0, 0, -g))
    inertia = J + (mt + m) * R**2  # about the slew axis, payload hanging
    servo = inertia * wn**2 * (ref - slew) - 2 * zeta * wn * inertia * s.dt(slew)
    s.torque("slew_servo", structure, (0, 0, servo))
    s.generalized_force("hoist", l, -s.input("F_hoist", M_PAYLOAD * G, unit="N"))
    c = P("c_swing", 30.0, unit="N.m.s/rad")
    s.viscous_friction("radial_damping", beta_r, c)
    s.viscous_friction("tangential_damping", beta_t, c)
    return s


def servo_stiffness(omega_n: float) -> float:
    return (J_SLEW + (M_TROLLEY + M_PAYLOAD) * RADIUS**2) * omega_n**2


@pytest.fixture(scope="module", params=[0.5, 20.0, 2000.0])
def crane(request):
    return request.param, servo_crane(request.param).derive()


@pytest.mark.parametrize("guess", [[0.1, 20.0, 0.2, 0.1], [0.0, 20.0, 0.3, -0.2], [0.5, 20.0, 0.5, 0.5]])
def test_slew_and_rope_length_held_by_a_stiff_servo(crane, guess):
    omega_n, eq = crane
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonIsolatedEquilibriumWarning)
        res = static_equilibrium(eq, guess, fixed=["slew", "l"])
    assert res["slew"] == pytest.approx(guess[0], abs=1e-15) and res["l"] == pytest.approx(guess[1], rel=1e-15)
    # the payload hangs straight down, to the residual tolerance: 1e-12 of the largest force at the guess
    # (here the servo's torque on the held jib) over the swing stiffness m g l
    largest = float(np.max(np.abs(NumericModel(eq).delta(guess, np.zeros(4)))))
    swing = 2.0 * 1e-12 * largest / (M_PAYLOAD * G * guess[1])
    assert abs(res["beta_r"]) < swing and abs(res["beta_t"]) < swing
    torque = servo_stiffness(omega_n) * guess[0]  # what the hold takes off the servo
    assert res.holding["slew"] == pytest.approx(torque, rel=1e-12, abs=1e-6)
    assert abs(res.holding["l"]) < 1e-9 * max(torque, M_PAYLOAD * G)  # F_hoist = m g holds the load


def test_stiff_servo_brings_the_jib_back_to_its_reference(crane):
    omega_n, eq = crane
    res = static_equilibrium(eq, [0.3, 20.0, 0.2, -0.1], u={"slew_ref": 0.25}, fixed=["l"])
    assert res["slew"] == pytest.approx(0.25, abs=1e-12)
    largest = float(
        np.max(np.abs(NumericModel(eq).delta([0.3, 20.0, 0.2, -0.1], np.zeros(4), u=[0.25, M_PAYLOAD * G])))
    )
    swing = 2.0 * 1e-12 * largest / (M_PAYLOAD * G * 20.0)
    assert abs(res["beta_r"]) < swing and abs(res["beta_t"]) < swing


def test_no_convergence_never_names_a_held_coordinate():
    eq = servo_crane(20.0).derive()
    with pytest.raises(sb.NumericalError, match="no convergence") as err:
        static_equilibrium(eq, [0.5, 20.0, 1.2, 1.0], fixed=["slew", "l"], max_iter=1)
    message = str(err.value)
    assert "'beta_r'" in message or "'beta_t'" in message
    assert "'slew'" not in message and "'l'" not in message
    np.testing.assert_equal(eq.q0, [0.0, 20.0, 0.0, 0.0])  # the guess is not written back
