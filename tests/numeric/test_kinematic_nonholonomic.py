"""Kinematic simulation of non-holonomic models: a disc rolling without slipping on a plane.

Closed form (independent of the model): with heading ``psi`` (about the vertical),
lean ``theta`` (about the heading direction) and spin ``phi`` (about the disc's
axis) of a disc of radius ``R``, the rolling condition ``v_C + omega x (P - C) = 0``
at the contact point ``P`` gives ``dP/dt = R dphi/dt (cos psi, sin psi, 0)``
whatever the lean (the lean and heading rates move the centre, not the contact).
"""

import math

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import kinematic_simulation

R = 0.5


def rolling_disc(contact_coordinates: bool = True) -> sb.System:
    """Disc on the plane z = 0.

    ``contact_coordinates``: coordinates ``x, y`` of the contact point (the contact
    lies on the plane by construction: no holonomic row); otherwise ``x, y, z`` of
    the centre with the holonomic row "contact on the plane".
    """
    s = sb.System("rolling_disc")
    r = s.parameter("R", R)
    x, y = s.coordinate("x", 0.0), s.coordinate("y", 0.0)
    z = None if contact_coordinates else s.coordinate("z", R)
    psi, th, phi = s.coordinate("psi", 0.0), s.coordinate("theta", 0.0), s.coordinate("phi", 0.0)
    heading = s.base("heading", s.ground_base, sb.Rz(psi))
    lean = s.base("lean", heading, sb.Rx(th))
    spin = s.base("spin", lean, sb.Ry(phi))
    if contact_coordinates:
        P = s.point("P", s.origin, (x, y, 0))
        C = s.point("C", P, sb.Vector(lean, 0, 0, r))
    else:
        C = s.point("C", s.origin, (x, y, z))
        P = s.point("P", C, sb.Vector(lean, 0, 0, -r))
        s.constraint("on_plane", s.position(P).components(s.ground_base)[2])
    body = s.solid("disc", C, spin, mass=1.0, inertia=(0.25 * R**2, 0.5 * R**2, 0.25 * R**2))
    s.velocity_constraint("roll", s.velocity(P, solid=body), base=s.ground_base, components="xy")
    return s


def test_rolling_angle_follows_the_exact_integral():
    """Drivers x, psi, theta: the spin and the lateral position are integrated.

    ``x = rho sin(W t)``, ``psi = W t``: ``dphi/dt = dx/dt / (R cos psi) = rho W / R`` and
    ``y = rho (1 - cos W t)``: the contact runs on a circle of radius rho and the disc
    turns by the arc length over R.
    """
    eq = rolling_disc().derive()
    rho, W = 1.3, 1.1
    t = eq.t
    law = {"x": rho * sb.sin(W * t), "psi": W * t, "theta": 0.3 + 0.2 * sb.sin(2 * t)}
    ts = np.linspace(0.0, 1.0, 21)  # psi stays below 1.1 rad, away from cos(psi) = 0
    res = kinematic_simulation(eq, ts, law)
    np.testing.assert_allclose(res["phi"], rho * W * ts / R, atol=1e-8)
    np.testing.assert_allclose(res["y"], rho * (1.0 - np.cos(W * ts)), atol=1e-8)
    np.testing.assert_allclose(res["dphi"], rho * W / R, atol=1e-8)
    np.testing.assert_allclose(res["dy"], rho * W * np.sin(W * ts), atol=1e-8)
    np.testing.assert_allclose(res["ddy"], rho * W**2 * np.cos(W * ts), atol=1e-7)
    np.testing.assert_allclose(res["theta"], 0.3 + 0.2 * np.sin(2 * ts), atol=1e-12)


def test_contact_path_of_a_turning_disc():
    """Drivers psi = W t, theta, phi = a t: the contact point runs on a circle of radius R a / W."""
    eq = rolling_disc().derive()
    W, a = 0.8, 3.0
    t = eq.t
    ts = np.linspace(0.0, 6.0, 13)  # almost a full turn, coarse output grid
    res = kinematic_simulation(eq, ts, {"psi": W * t, "theta": 0.4 * sb.cos(t), "phi": a * t})
    np.testing.assert_allclose(res["x"], R * a / W * np.sin(W * ts), atol=1e-8)
    np.testing.assert_allclose(res["y"], R * a / W * (1.0 - np.cos(W * ts)), atol=1e-8)


def test_holonomic_rows_are_projected_and_the_rest_integrated():
    """Centre coordinates x, y, z: z by the holonomic row, x, y by the rolling rates.

    Centre = contact + R * (sin psi sin theta, -cos psi sin theta, cos theta).
    """
    eq = rolling_disc(contact_coordinates=False).derive()
    W, a = 0.8, 3.0
    t = eq.t
    ts = np.linspace(0.0, 4.0, 9)
    res = kinematic_simulation(eq, ts, {"psi": W * t, "theta": 0.3 + 0.3 * sb.sin(t), "phi": a * t})
    psi, th = W * ts, 0.3 + 0.3 * np.sin(ts)
    xp, yp = R * a / W * np.sin(W * ts), R * a / W * (1.0 - np.cos(W * ts))
    # the contact point starts under the centre's initial position shifted by the initial lean
    x0 = -R * math.sin(0.0) * math.sin(0.3)
    y0 = R * math.cos(0.0) * math.sin(0.3)
    np.testing.assert_allclose(res["x"], xp + x0 + R * np.sin(psi) * np.sin(th), atol=1e-8)
    np.testing.assert_allclose(res["y"], yp + y0 - R * np.cos(psi) * np.sin(th), atol=1e-8)
    np.testing.assert_allclose(res["z"], R * np.cos(th), atol=1e-10)
    assert np.all(res.residual < 1e-10)


def test_too_few_drivers_are_still_reported():
    eq = rolling_disc().derive()
    with pytest.raises(sb.NumericalError, match="1 more driver"):
        kinematic_simulation(eq, [0.0, 0.1], {"psi": eq.t, "theta": 0.1 + 0 * eq.t})
