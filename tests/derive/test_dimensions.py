"""Dimensional analysis: every example is consistent, and unit mismatches are reported by name."""

import math

import pytest

import symbody as sb
from symbody.dimensions import DimensionChecker, parse_dimension
from symbody.symbolic.evaluate import evaluate

from support import EXAMPLES, example  # noqa: F401


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.py")))
def test_examples_are_dimensionally_consistent(name):
    eq = example(name).derive()  # derive() runs the check
    from symbody.dimensions import check_dimensions

    check_dimensions(eq)


def pendulum(unit_l="m", unit_theta="rad"):
    s = sb.System("p")
    g = s.parameter("g", 9.81, unit="m/s2")
    l = s.parameter("l", 1.0, unit=unit_l)
    m = s.parameter("m", 1.0, unit="kg")
    th = s.coordinate("theta", 0.2, unit=unit_theta)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, sb.Vector(B, 0, -l, 0)), m)
    s.gravity((0, -g, 0))
    return s, g, l, m, th


def test_consistent_pendulum_with_torque_passes():
    s, g, l, m, th = pendulum()
    s.generalized_force("motor", th, s.input("tau", unit="N*m"))
    s.output("height", -l * sb.cos(th), unit="m")
    eq = s.derive()  # derive() runs the check
    chk = DimensionChecker(eq)
    at = {s.inputs["tau"].symbol: 1.0, m: 2.0, l: 0.5, g: 9.81, th: 0.3}
    assert evaluate(eq.delta[0], at) == pytest.approx(1.0 - 2.0 * 0.5 * 9.81 * math.sin(0.3), rel=1e-14)
    assert chk.dim(eq.delta[0]) == parse_dimension("N*m")  # the equation of an angle balances torques
    assert chk.dim(eq.M[0][0]) == parse_dimension("kg*m2")
    assert chk.dim(eq.outputs[0].expr) == parse_dimension("m")


def test_force_added_to_mass_is_reported():
    s, g, l, m, th = pendulum()
    s.generalized_force("motor", th, s.input("tau", unit="N*m") + m)
    with pytest.raises(sb.ModelError, match=r"unit mismatch in the equation of coordinate 'theta'.*kg"):
        s.derive()


def test_function_of_a_length_is_reported():
    s, g, l, m, th = pendulum()
    s.output("bad", sb.sin(l), unit="1")
    with pytest.raises(sb.ModelError, match=r"output 'bad'.*function of an argument in m"):
        s.derive()


def test_constraint_mixing_length_and_angle_is_reported():
    s = sb.System("c")
    m = s.parameter("m", 1.0, unit="kg")
    x = s.coordinate("x", 0.0, unit="m")
    a = s.coordinate("a", 0.0, unit="rad")
    s.particle("p", s.point("P", s.origin, (x, a * s.parameter("r", 1.0, unit="m"), 0)), m)
    s.constraint("roll", x - a)
    with pytest.raises(sb.ModelError, match=r"constraint 'roll'"):
        s.derive()


def test_models_without_units_are_never_rejected():
    s = sb.System("nounits")
    m = s.parameter("m", 1.0)
    x = s.coordinate("x", 0.0)
    s.particle("p", s.point("P", s.origin, (x, 0, 0)), m)
    s.generalized_force("f", x, m + 3)
    eq = s.derive()  # derive() runs the check: a sum of a mass and a number passes when nothing has a unit
    assert len(eq.delta) == 1 and evaluate(eq.delta[0], {m: 2.0}) == 5.0 and eq.M == [[m]]
    assert DimensionChecker(eq).dim(eq.delta[0]) is None  # no dimension known: nothing to compare


def test_atan2_of_different_dimensions_is_reported():
    s, g, l, m, th = pendulum()
    s.output("angle", sb.atan2(l, g), unit="rad")
    with pytest.raises(sb.ModelError, match=r"output 'angle'.*compares m with m/s2"):
        s.derive()


def test_unknown_unit_strings_are_refused_where_declared():
    """A unit that does not parse would switch unit checking off and land in the FMU: refused at once."""
    with pytest.raises(sb.ModelError, match=r"parameter 'l': unknown unit 'furlong'"):
        pendulum(unit_l="furlong")
