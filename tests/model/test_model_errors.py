"""Bad models raise :class:`symbody.ModelError` naming the object at fault, and leave the system unchanged."""

from __future__ import annotations

import math

import numpy
import pytest
import sympy

import symbody as sb


@pytest.fixture
def s():
    """A pendulum to break: coordinate q, parameters l, m, base B, point P."""
    s = sb.System("pend")
    q = s.coordinate("q", 0.3)
    l = s.parameter("l", 1.0)
    s.parameter("m", 1.0)
    B = s.base("B", s.ground_base, sb.Rz(q))
    s.point("P", s.origin, sb.Vector(B, l, 0, 0))
    return s


# ---------------------------------------------------------------------------
# duplicate names
# ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda s: s.parameter("l", 2.0),
        lambda s: s.coordinate("m"),
        lambda s: s.parameter("dq"),  # the velocity symbol of q
        lambda s: s.parameter("ddq"),
        lambda s: s.input("B"),
        lambda s: s.base("B", s.ground_base, sb.Rx(0.1)),
        lambda s: s.point("P", s.origin, (1, 0, 0)),
        lambda s: s.particle("P", "P", 1.0),
        lambda s: s.frame("B", "P", "B"),
        lambda s: s.output("l", s.symbol("q")),
        lambda s: s.constraint("P", s.symbol("q")),
        lambda s: s.spring_damper("m", s.origin, "P", k=1.0),
        lambda s: s.parameter("t"),
    ],
)
def test_duplicate_names(s, make):
    with pytest.raises(sb.ModelError, match=r"duplicate name '(l|m|dq|ddq|B|P|t)'"):
        make(s)


def test_duplicate_name_created_by_a_helper(s):
    s.constraint("loop", s.symbol("q") - 0.1)
    with pytest.raises(sb.ModelError, match="duplicate name 'lambda_loop'"):
        s.parameter("lambda_loop")
    with pytest.raises(sb.ModelError, match="duplicate name 'loop'"):
        s.initial_constraint("loop", s.symbol("q"))


def test_euler_angle_bases_clash():
    s = sb.System("e")
    a = [s.coordinate(n) for n in "abc"]
    s.base("C_2", s.ground_base, sb.Rx(0.3))
    with pytest.raises(sb.ModelError, match="duplicate name 'C_2'"):
        s.base("C", s.ground_base, sb.EulerAngles("zyx", a))


# ---------------------------------------------------------------------------
# symbols used but never declared
# ---------------------------------------------------------------------------
W = sympy.Symbol("w")


@pytest.mark.parametrize(
    "what,make",
    [
        ("point 'Q'", lambda s: s.point("Q", "P", (W, 0, 0))),
        ("mass of particle 'b'", lambda s: s.particle("b", "P", W)),
        ("mass of solid 'S'", lambda s: s.solid("S", "P", "B", mass=W)),
        ("inertia of solid 'S'", lambda s: s.solid("S", "P", "B", mass=1, inertia=(1, W, 1))),
        ("centre of mass of solid 'S'", lambda s: s.solid("S", "P", "B", mass=1, com=(W, 0, 0))),
        ("base 'C'", lambda s: s.base("C", "B", sb.Rx(W))),
        ("output 'o'", lambda s: s.output("o", W**2)),
        ("force 'f'", lambda s: s.force("f", None, "P", (W, 0, 0))),
        ("force of 'g'", lambda s: s.generalized_force("g", s.symbol("q"), W)),
        ("stiffness of 'k'", lambda s: s.spring_damper("k", s.origin, "P", k=W)),
        ("constraint 'c'", lambda s: s.constraint("c", W)),
        ("constraint 'c'", lambda s: s.constraint("c", [sympy.Symbol("q") - W])),
        ("time function 'z'", lambda s: s.time_function("z", sympy.sin(W))),
        ("gravity", lambda s: s.gravity((0, -W, 0))),
    ],
)
def test_undeclared_symbol(s, what, make):
    with pytest.raises(sb.ModelError, match=rf"{what}.*symbol 'w' is used but never declared"):
        make(s)


def test_undeclared_symbol_in_arithmetic_with_a_symbody_expression(s):
    """``q - sympy.Symbol('w')`` is evaluated before any System method sees it."""
    with pytest.raises(sb.ModelError, match="'w'.* never declared"):
        s.constraint("c", s.symbol("q") - W)


# ---------------------------------------------------------------------------
# missing parents and objects of another system
# ---------------------------------------------------------------------------
def test_parent_base_does_not_exist(s):
    with pytest.raises(sb.ModelError, match="parent of base 'C' 'nobase' does not exist"):
        s.base("C", "nobase", sb.Rz(0.1))
    s.base("C", "B", sb.Rz(0.1))  # the name was not taken by the failed call


def test_parent_point_does_not_exist(s):
    with pytest.raises(sb.ModelError, match="parent of point 'Q' 'nopoint' does not exist"):
        s.point("Q", "nopoint", (1, 0, 0))
    with pytest.raises(sb.ModelError, match="point 'Q'.*base 'nobase' does not exist"):
        s.point("Q", "P", (1, 0, 0), base="nobase")
    s.point("Q", "P", (1, 0, 0))


def test_objects_of_another_system(s):
    other = sb.System("other")
    x = other.coordinate("x")
    Bo = other.base("Bo", other.ground_base, sb.Rz(x))
    Po = other.point("Po", other.origin, (x, 0, 0))
    with pytest.raises(sb.ModelError, match="parent of base 'C' 'Bo' belongs to another system"):
        s.base("C", Bo, sb.Rz(0.1))
    with pytest.raises(sb.ModelError, match="parent of point 'Q' 'Po' belongs to another system"):
        s.point("Q", Po, (1, 0, 0))
    with pytest.raises(sb.ModelError, match="point 'Q': the expression x belongs to another system"):
        s.point("Q", "P", (x, 0, 0))
    with pytest.raises(sb.ModelError, match="point 'Q': the vector belongs to another system"):
        s.point("Q", "P", sb.Vector(Bo, 1, 0, 0))
    with pytest.raises(sb.ModelError, match="solid 'S': frame 'abs' belongs to another system"):
        s.solid("S", other.ground, mass=1.0)


def test_other_missing_objects(s):
    with pytest.raises(sb.ModelError, match="solid of load 'f' 'nosolid' does not exist"):
        s.force("f", "nosolid", "P", (1, 0, 0))
    with pytest.raises(sb.ModelError, match="point of frame 'F' 'nop' does not exist"):
        s.frame("F", "nop", "B")
    with pytest.raises(sb.ModelError, match="point1 of joint 'j' 'nop' does not exist"):
        s.spherical_joint("j", "nop", "P")
    with pytest.raises(sb.ModelError, match="no constraint row named 'zz'"):
        s.multiplier("zz")
    with pytest.raises(sb.ModelError, match="Vector: the first argument must be a Base"):
        sb.Vector("B", 1, 0, 0)
    with pytest.raises(sb.ModelError, match="prescribed motion 'pr': l is not a coordinate"):
        s.prescribe("pr", s.symbol("l"), 0.0)


# ---------------------------------------------------------------------------
# inertia and mass
# ---------------------------------------------------------------------------
def test_inertia_not_symmetric(s):
    with pytest.raises(sb.ModelError, match=r"inertia tensor of solid 'S' is not symmetric \(Ixy = 0.5 but Iyx = 0\)"):
        s.solid("S", "P", "B", mass=1, inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]])
    l = s.symbol("l")
    with pytest.raises(sb.ModelError, match="inertia tensor of solid 'S' is not symmetric"):
        s.solid("S", "P", "B", mass=1, inertia=[[1, 0, l], [0, 1, 0], [0, 0, 1]])
    s.solid("S", "P", "B", mass=1, inertia=[[1, 0, l / 4], [0, 1, 0], [l / 4, 0, 1]])  # name still free


def test_inertia_not_positive_semidefinite(s):
    with pytest.raises(sb.ModelError, match="inertia tensor of solid 'S' is not positive semi-definite"):
        s.solid("S", "P", "B", mass=1, inertia=(1, 1, -1))
    with pytest.raises(sb.ModelError, match="inertia tensor of solid 'S' is not positive semi-definite"):
        s.solid("S", "P", "B", mass=1, inertia=sb.inertia(1, 1, 1, ixy=2))
    # moved to the centre of mass, a tensor given at a point may stop being physical
    with pytest.raises(sb.ModelError, match="inertia tensor of solid 'S' is not positive semi-definite"):
        s.solid("S", "P", "B", mass=10, com=(1, 0, 0), inertia=(1, 1, 1), inertia_at="origin")


@pytest.mark.parametrize(
    "inertia,match",
    [
        ([[1, 0], [0, 1]], "inertia of solid 'S': an inertia tensor is a 3x3 matrix"),
        ((1, 2), "inertia of solid 'S': an inertia tensor is a 3x3 matrix"),
        ((1, 1, float("nan")), r"inertia (tensor )?of solid 'S'.* not finite"),
    ],
)
def test_inertia_bad_shape_or_values(s, inertia, match):
    with pytest.raises(sb.ModelError, match=match):
        s.solid("S", "P", "B", mass=1, inertia=inertia)


def test_negative_mass(s):
    with pytest.raises(sb.ModelError, match=r"mass of 'b' is negative or not finite \(-1\)"):
        s.particle("b", "P", -1)
    mneg = s.parameter("mneg", -2.0)
    with pytest.raises(sb.ModelError, match=r"mass of 'S' is negative or not finite \(-2\)"):
        s.solid("S", "P", "B", mass=mneg)
    with pytest.raises(sb.ModelError, match=r"mass of (particle )?'b'.* not finite"):
        s.particle("b", "P", float("nan"))
    s.particle("b", "P", 1.0)  # the failed calls left the name free


def test_mass_and_body_data_must_be_constant(s):
    q = s.symbol("q")
    with pytest.raises(
        sb.ModelError, match="mass of 'b' depends on the coordinate 'q'; it may depend only on parameters"
    ):
        s.particle("b", "P", q)
    with pytest.raises(sb.ModelError, match="inertia tensor of solid 'S' depends on the velocity 'dq'"):
        s.solid("S", "P", "B", mass=1, inertia=(s.dt(q), 1, 1))
    with pytest.raises(sb.ModelError, match="centre of mass of solid 'S'.* depends on the coordinate 'q'"):
        s.solid("S", "P", "B", mass=1, com=(q, 0, 0))
    u = s.input("u")
    with pytest.raises(sb.ModelError, match="mass of 'b' depends on the input 'u'"):
        s.particle("b", "P", u)
    with pytest.raises(sb.ModelError, match="solid 'S': the inertia base must be fixed to the body base"):
        s.solid("S", "P", s.ground_base, mass=1, inertia=(1, 1, 1), inertia_base="B")
    with pytest.raises(sb.ModelError, match="solid 'S': the inertia point 'Z' must be fixed in the body"):
        s.solid("S", "P", "B", mass=1, inertia=(1, 1, 1), inertia_at=s.point("Z", s.origin, (1, 2, 0)))
    with pytest.raises(sb.ModelError, match="solid 'S': inertia_at='cog' is neither 'com', 'origin'"):
        s.solid("S", "P", "B", mass=1, inertia=(1, 1, 1), inertia_at="cog")


# ---------------------------------------------------------------------------
# constraints
# ---------------------------------------------------------------------------
def test_constraint_without_coordinate(s):
    l = s.symbol("l")
    with pytest.raises(sb.ModelError, match="holonomic constraint 'c' contains no coordinate"):
        s.constraint("c", l - 1)
    with pytest.raises(sb.ModelError, match="holonomic constraint 'c' contains no coordinate"):
        s.constraint("c", 0)
    with pytest.raises(sb.ModelError, match="velocity constraint 'v' contains no coordinate"):
        s.velocity_constraint("v", l * s.t)
    with pytest.raises(sb.ModelError, match="initial constraint 'i' contains no coordinate"):
        s.initial_constraint("i", l)
    # a list: the second row fails, the first is not added either
    with pytest.raises(sb.ModelError, match="holonomic constraint 'c_2' contains no coordinate"):
        s.constraint("c", [s.symbol("q") - 0.3, l])
    assert s.constraints == []
    s.constraint("c", s.symbol("q") - 0.3)  # no name was taken


def test_constraint_with_symbols_of_the_wrong_kind(s):
    q = s.symbol("q")
    with pytest.raises(sb.ModelError, match="holonomic constraint 'c' depends on the velocity 'dq'"):
        s.constraint("c", q + s.dt(q))
    with pytest.raises(sb.ModelError, match="velocity constraint 'v' depends on the acceleration 'ddq'"):
        s.velocity_constraint("v", s.dt(q) + s.dt(s.dt(q)))
    with pytest.raises(sb.ModelError, match="velocity constraint 'v' must be linear in the velocities"):
        s.velocity_constraint("v", s.dt(q) ** 2)
    u = s.input("u")
    with pytest.raises(sb.ModelError, match="holonomic constraint 'c' depends on the input 'u'"):
        s.constraint("c", q - u)
    with pytest.raises(sb.ModelError, match="time function 'z' depends on the coordinate 'q'"):
        s.time_function("z", q * s.t)


def test_joint_errors(s):
    P = s.points["P"]
    with pytest.raises(sb.ModelError, match="joint 'rj': all its constraint equations vanish identically"):
        s.revolute_joint("rj", P, "B", P, "B", axis="z")
    with pytest.raises(sb.ModelError, match="joint 'dj': its points 'P' and 'P' always coincide"):
        s.distance_joint("dj", P, P, 1.0)
    with pytest.raises(sb.ModelError, match="joint 'g': 1 equations but 2 reaction names"):
        s.generic_joint("g", [s.symbol("q")], reactions=["a", "b"])
    with pytest.raises(sb.ModelError, match="unknown axis 'w'"):
        s.prismatic_joint("pj", s.origin, s.ground_base, P, "B", axis="w")


# ---------------------------------------------------------------------------
# geometry and loads
# ---------------------------------------------------------------------------
def test_geometry_errors(s):
    q = s.symbol("q")
    with pytest.raises(sb.ModelError, match="the position of point 'Q' depends on the velocity 'dq'"):
        s.point("Q", "P", (s.dt(q), 0, 0))
    with pytest.raises(sb.ModelError, match="point 'Q': expected 3 components, got 2"):
        s.point("Q", "P", (1, 0))
    with pytest.raises(sb.ModelError, match="point 'Q': expected a Vector or 3 components, got None"):
        s.point("Q", "P", None)
    with pytest.raises(sb.ModelError, match="base 'C': its rotation depends on the velocity 'dq'"):
        s.base("C", "B", sb.Rz(s.dt(q)))
    with pytest.raises(sb.ModelError, match=r"base 'C': expected a rotation \(e.g. sb.Rz\(angle\)\), got 0.3"):
        s.base("C", "B", 0.3)
    with pytest.raises(sb.ModelError, match="base 'C': rotation angle: cannot use 'q'"):
        s.base("C", "B", sb.Rz("q"))
    with pytest.raises(sb.ModelError, match="base 'C': the axis of an AxisAngle rotation must be a unit vector"):
        s.base("C", "B", sb.AxisAngle((1, 1, 0), q))
    with pytest.raises(sb.ModelError, match="base 'C': RotationMatrix is not a proper orthonormal matrix"):
        s.base("C", "B", sb.RotationMatrix([[1, 0, 0], [0, 2, 0], [0, 0, 1]]))
    with pytest.raises(sb.ModelError, match="base 'C': condition 'C_norm' of its rotation fails"):
        s.base("C", "B", sb.EulerParameters(1, 1, 0, 0))
    s.base("C", "B", sb.EulerParameters(math.cos(0.2), 0, 0, math.sin(0.2)))  # constant and unit: accepted
    with pytest.raises(sb.ModelError, match="unknown axis 'w'"):
        sb.AxisRotation("w", 0.1)
    with pytest.raises(sb.ModelError, match="EulerAngles: the sequence and the angles must have the same length"):
        sb.EulerAngles("zyx", (1, 2))


def test_load_errors(s):
    q = s.symbol("q")
    s.particle("bob", "P", s.symbol("m"))
    ddq = s.dt(s.dt(q))
    with pytest.raises(sb.ModelError, match="load 'f' depends on the acceleration 'ddq'"):
        s.force("f", "bob", "P", (ddq, 0, 0))
    with pytest.raises(sb.ModelError, match="force of 'g' depends on the acceleration 'ddq'"):
        s.generalized_force("g", q, ddq)
    s.constraint("c", q - 0.3)
    with pytest.raises(sb.ModelError, match="spring 'k' depends on the multiplier 'lambda_c'"):
        s.spring_damper("k", s.origin, "P", k=s.multiplier("c"))
    with pytest.raises(sb.ModelError, match="spring 'sp': its points 'P' and 'P' always coincide"):
        s.spring_damper("sp", "P", "P", k=1.0)
    with pytest.raises(
        sb.ModelError, match="spring 'sp': its points 'O' and 'Z' coincide at the initial configuration"
    ):
        s.spring_damper("sp", s.origin, s.point("Z", s.origin, (q - 0.3, 0, 0)), k=1.0)
    with pytest.raises(sb.ModelError, match="gravity 'gravity' depends on the coordinate 'q'"):
        s.gravity((0, q, 0))
    with pytest.raises(sb.ModelError, match="load 'f': a moment must act on a solid"):
        s.force("f", None, "P", (1, 0, 0), (0, 0, 1))
    with pytest.raises(sb.ModelError, match="torque 'tq': needs a solid"):
        s.torque("tq", None, (0, 0, 1))
    with pytest.raises(sb.ModelError, match="'ts': bases 'B' and 'C' are not related by rotations about one axis"):
        s.torsion_spring_damper("ts", None, k=1, base1="B", base2=s.base("C", s.ground_base, sb.Rx(q)))


# ---------------------------------------------------------------------------
# names, values, derivation
# ---------------------------------------------------------------------------
def test_names_and_values():
    s = sb.System("v")
    with pytest.raises(sb.ModelError, match="invalid parameter name '1x'"):
        s.parameter("1x")
    with pytest.raises(sb.ModelError, match="invalid parameter name 'sin': it is reserved in generated code"):
        s.parameter("sin")
    with pytest.raises(sb.ModelError, match="parameter 'k': value nan is not finite"):
        s.parameter("k", float("nan"))
    with pytest.raises(sb.ModelError, match="coordinate 'x' initial position: value 'abc' is not a number"):
        s.coordinate("x", "abc")
    with pytest.raises(sb.ModelError, match="invalid system name 'my model'"):
        sb.System("my model")


def test_derivation_errors():
    s = sb.System("d")
    with pytest.raises(sb.ModelError, match="system 'd' has no coordinates"):
        s.derive()
    q = s.coordinate("q")
    P = s.point("P", s.origin, (q, 0, 0))
    with pytest.raises(sb.ModelError, match="system 'd' has no solid or particle with mass"):
        s.derive()
    s.particle("b", P, 1.0)
    s.input("u")
    with pytest.raises(sb.ModelError, match="input 'u' is never used"):
        s.derive()


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, numpy.float64("nan")])
def test_non_finite_numbers_cannot_enter_a_model_expression(bad):
    """An infinite or NaN constant would reach the generated code and every result without a word."""
    s = sb.System("p")
    th = s.coordinate("th", 0.1)
    with pytest.raises(sb.ModelError, match="not finite and cannot be part of a model expression"):
        s.output("y", th * bad)
    with pytest.raises(sb.ModelError, match="not finite and cannot be part of a model expression"):
        s.gravity((0, bad, 0))
