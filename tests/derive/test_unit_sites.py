"""A bare number in a unit-checked model is reported on the object where it was written.

The tower crane of the examples declares every unit; one number written without its unit in a
point, a gravity or a force used to surface at derive time in another coordinate's equation as
a sum of internal atoms (``a3983 + a4069 adds m and kg*m2/s2``).  The message names the point,
gravity or load in the user's symbols, with the unit the number needs.
"""

import re

import pytest

import symbody as sb
from symbody.dimensions import DimensionChecker, parse_dimension

from support import example

ATOM = re.compile(r"\ba\d+\b")  # an internal atom name


def crane() -> sb.System:
    return example("tower_crane", hoist=True)


def derive_error(s: sb.System) -> str:
    with pytest.raises(sb.ModelError) as err:
        s.derive()
    return str(err.value)


def test_point_placed_with_bare_numbers_in_a_turning_base():
    s = crane()
    lamp = s.point("lamp_point", "trolley", sb.Vector(s.bases["rope"], 1.0, 0, 0.8))
    s.particle("lamp", lamp, s.parameter("m_lamp", 5.0, unit="kg"))
    message = derive_error(s)
    assert "point 'lamp_point' is placed at (1, 0, 0.8) in base 'rope' from point 'trolley'" in message
    assert "its velocity adds m/s and 1/s" in message  # omega x (1, 0, 0.8) is in 1/s
    assert "s.parameter('lamp_point_x', 1, unit='m')" in message
    assert not ATOM.search(message)


def test_gravity_given_as_bare_numbers():
    s = crane()
    s.gravity((0, 0, -9.81), name="gravity_again")
    message = derive_error(s)
    assert "gravity 'gravity_again' is written with bare numbers (g = (0, 0, -9.81) in base 'xyz')" in message
    assert "unit='m/s2'" in message  # the unit the numbers need, from the generalized force they give
    assert not ATOM.search(message)


def test_force_given_as_bare_numbers():
    s = crane()
    s.force("wind", "payload_bar", "payload_cog", (100.0, 0, 0))
    message = derive_error(s)
    assert "load 'wind' is written with bare numbers (force = (100, 0, 0) in base 'xyz')" in message
    assert "unit='kg*m/s2'" in message  # a newton
    assert not ATOM.search(message)


def test_bare_mass_of_a_solid():
    s = crane()
    s.particle("lamp", s.point("lamp_point", "trolley", sb.Vector(s.bases["jib"], 1.0, 0, 0)), 5.0)
    message = derive_error(s)
    assert "solid 'lamp' has the bare number(s) 5 in its mass" in message
    assert "s.parameter('m_lamp', 5, unit='kg')" in message
    assert not ATOM.search(message)


def test_numbers_that_keep_the_units_consistent_are_accepted():
    # a number beside a length in a sum takes its unit; a fixed point in the ground base never moves
    s = crane()
    H = s.parameters["H"].symbol
    s.particle(
        "lamp", s.point("lamp_point", "trolley", sb.Vector(s.bases["jib"], 1.0 + H, 0, 0)), s.parameters["m_jib"].symbol
    )
    s.point("marker", s.origin, (1.0, 2.0, 0.0))
    chk = DimensionChecker(s.derive())  # derive() runs the check
    assert {chk.dim(c) for c in s.position("lamp_point").components(s.ground_base)} == {parse_dimension("m")}
    vx, vy, _ = s.velocity("lamp_point").components(s.ground_base)
    assert chk.dim(vx) == chk.dim(vy) == parse_dimension("m/s")
    assert s.velocity("marker").components(s.ground_base) == (0, 0, 0)
