"""assemble(eq, q_guess) on coordinates held by initial-position conditions (fix_initial).

The held value wins over the guess, and a guess that differs is reported by a
HeldCoordinateWarning naming the coordinates; ``fixed`` replaces the held value.
"""

import math
import warnings

import numpy as np
import pytest

import symbody as sb
from symbody.numeric import HeldCoordinateWarning, assemble, static_equilibrium


def slider_crank() -> sb.System:
    """Crank (length 1) and rod (length 3) with the slider on the x axis; the crank is held at 1.0 rad."""
    s = sb.System("held_slider_crank")
    a, b = s.coordinate("a", 1.0), s.coordinate("b", -0.3)
    A = s.point("A", s.origin, (sb.cos(a), sb.sin(a), 0))
    B = s.point("B", A, (3 * sb.cos(b), 3 * sb.sin(b), 0))
    s.particle("slider", B, 1.0)
    s.constraint("guide", s.position(B).components(s.ground_base)[1])
    s.fix_initial(a)
    return s


def rod_angle(a: float) -> float:
    return -math.asin(math.sin(a) / 3.0)


def test_a_differing_guess_is_reported_and_the_held_value_wins():
    eq = slider_crank().derive()
    with pytest.warns(
        HeldCoordinateWarning, match=r"coordinate 'a' \(0\.4\) differs from the value 1 held by .*'a_init'"
    ):
        res = assemble(eq, [0.4, -0.1])
    assert res["a"] == pytest.approx(1.0, abs=1e-12)
    assert res["b"] == pytest.approx(rod_angle(1.0), abs=1e-10)


def test_a_matching_guess_or_the_default_guess_is_silent():
    eq = slider_crank().derive()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assemble(eq)
        assemble(eq, [1.0, 0.2])  # only the free coordinate's guess differs from q0
        assemble(eq, [0.4, 0.2], use_initial=False)  # no initial conditions imposed


def test_fixed_replaces_the_held_value():
    eq = slider_crank().derive()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        at_guess = assemble(eq, [0.4, -0.1], fixed=["a"])
        at_value = assemble(eq, [1.0, -0.1], fixed={"a": 0.7})
    assert at_guess["a"] == pytest.approx(0.4, abs=1e-12)
    assert at_guess["b"] == pytest.approx(rod_angle(0.4), abs=1e-10)
    assert at_value["a"] == pytest.approx(0.7, abs=1e-12)
    assert "a_init" not in at_value.rows and "a = 0.7" in at_value.rows
    np.testing.assert_allclose(at_value.residual, 0.0, atol=1e-10)


def test_static_equilibrium_with_the_initial_conditions_reports_an_overridden_guess():
    s = slider_crank()
    s.gravity((0, -9.81, 0))
    eq = s.derive()
    with pytest.warns(HeldCoordinateWarning, match=r"static_equilibrium .*coordinate 'a' \(0\.4\).*use_initial=False"):
        res = static_equilibrium(eq, [0.4, -0.1], use_initial=True)
    assert res.q[0] == pytest.approx(1.0, abs=1e-12)
    assert res.q[1] == pytest.approx(rod_angle(1.0), abs=1e-10)
