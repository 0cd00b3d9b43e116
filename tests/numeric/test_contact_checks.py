"""The smooth analyses on models with unilateral contacts or stick-slip friction: right, or refused.

A pendulum resting on a stop at 0.3 rad: the equilibrium without the contact (hanging at 0)
penetrates the stop and is refused; holding the angle gives the contact force ``m g L sin 0.3``;
linearization and modes at the stop (where the contact carries a force) are refused, away
from it (the contact open) they are the pendulum's.  Stick-slip friction has no linear model.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symbody as sb
from symbody.errors import ModelError
from symbody.numeric import linearize, modal_analysis, simulate, static_equilibrium

G, L, M, STOP = 9.81, 1.2, 2.0, 0.3


def pendulum_on_a_stop() -> sb.Equations:
    s = sb.System("pendulum_on_stop")
    th = s.coordinate("th", STOP)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("b", s.point("P", s.origin, sb.Vector(B, 0, -L, 0)), M)
    s.gravity((0, -G, 0))
    s.unilateral("stop", th - STOP, restitution=0.5)
    return s.derive()


def test_equilibrium_through_the_stop_is_refused_and_holding_gives_the_contact_force():
    eq = pendulum_on_a_stop()
    with pytest.raises(ModelError, match="penetrates unilateral contact 'stop'"):
        static_equilibrium(eq)
    held = static_equilibrium(eq, fixed=["th"])
    force = M * G * L * math.sin(STOP)
    assert abs(held.holding["th"] - force) < 1e-9
    rest = simulate(eq, 1.0, dt=0.5)  # the simulation agrees: at rest on the stop
    assert np.allclose(rest["stop"], force, rtol=1e-9)


def test_linearization_and_modes_at_the_stop_are_refused():
    eq = pendulum_on_a_stop()
    for analysis in (lambda: linearize(eq), lambda: modal_analysis(eq)):
        with pytest.raises(ModelError, match="at unilateral contact 'stop'"):
            analysis()
    with pytest.raises(ModelError, match="penetrates unilateral contact 'stop'"):
        linearize(eq, q=[0.0])


def test_linearization_with_the_contact_open_is_the_pendulum():
    lin = linearize(pendulum_on_a_stop(), q=[0.5])
    assert np.allclose(lin.A, [[0.0, 1.0], [-G / L * math.cos(0.5), 0.0]], rtol=1e-12, atol=1e-12)


def test_stick_slip_has_no_linear_model():
    s = sb.System("block")
    x = s.coordinate("x")
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.generalized_force("spring", x, -10.0 * x)
    s.stick_slip("fr", x, normal=G, mu=0.3)
    eq = s.derive()
    with pytest.raises(ModelError, match="stick-slip friction 'fr'"):
        linearize(eq, q=[0.0])
    with pytest.raises(ModelError, match="stick-slip friction 'fr'"):
        modal_analysis(eq, q=[0.0])
