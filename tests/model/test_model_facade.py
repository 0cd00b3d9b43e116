"""System's public interface is the one users program against: names, parameters, defaults and docs.

``System`` is a facade over the model's concept modules; this table pins every public method's
parameters (names, order, kinds, defaults), so that moving code between modules cannot change a
user's call.  Methods added later extend the table.  The spellings before 0.2 (options by position,
``parameters_``, the axes of ``universal_joint`` between the points) still work with a
``DeprecationWarning``.
"""

from __future__ import annotations

import inspect
import pydoc
import warnings

import pytest

import symbody as sb

SIGNATURES = {
    "acceleration": "(point, frame=None)",
    "angular_acceleration": "(base, relative_to=None)",
    "angular_velocity": "(base, relative_to=None)",
    "aux_coordinate": "(name, q0=0.0, dq0=0.0, *, unit=None, description='')",
    "base": "(name, parent, rotation=None, angle=None)",
    "constraint": "(name, expr, base=None, *, components=None)",
    "coordinate": "(name, q0=0.0, dq0=0.0, *, unit=None, description='', aux=False)",
    "coordinate_of": "(symbol)",
    "coulomb_friction": "(name, coordinate, force, *, smoothing=0.001)",
    "cylindrical_joint": "(name, point1, base1, point2, base2, *, axis='z')",
    "ddq": "property",
    "default_values": "()",
    "derive": "(*, progress=None, check=True, formulation='auto')",
    "description": "property",
    "distance_joint": "(name, point1, point2, length)",
    "dq": "property",
    "dt": "(expr)",
    "fix_initial": "(coordinate, *, name=None)",
    "force": "(name, solid, point, force=None, moment=None, *, base=None, reaction=None)",
    "frame": "(name, point, base)",
    "generalized_force": "(name, coordinate, force)",
    "generic_joint": "(name, equations, *, reactions=None)",
    "gravity": "(g, base=None, *, name='gravity')",
    "initial_constraint": "(name, expr, base=None, *, components=None)",
    "input": "(name, value=0.0, *, unit=None, description='', min=None, max=None)",
    "joint_reaction": "(solid, point=None, base=None, *, name=None, unit=('N', 'N*m'))",
    "motion_input": "(name, *, unit=None, description='', value=0.0)",
    "multiplier": "(row)",
    "output": "(name, expr, *, unit=None, description='')",
    "output_vector": "(name, vector, base=None, *, unit=None, description='')",
    "parameter": "(name, value=0.0, *, unit=None, description='', min=None, max=None)",
    "parameter_group": "(names, value=0.0, *, unit=None)",
    "parameters_": "(spec, value=0.0, unit=None)",
    "particle": "(name, point, mass)",
    "point": "(name, parent, vector, base=None)",
    "position": "(a, b=None)",
    "prescribe": "(name, coordinate, motion)",
    "prismatic_joint": "(name, point1, base1, point2, base2, *, axis='x')",
    "q": "property",
    "rate": "(state, expr)",
    "revolute_joint": "(name, point1, base1, point2, base2, *, axis='z')",
    "rotation_matrix": "(a, b)",
    "shape": "(shape, on=None, *, offset=(0, 0, 0), rotation=None, color=None, opacity=1.0, name=None)",
    "solid": "(name, frame, base=None, *, mass, com=(0, 0, 0), inertia=None, inertia_at='com', inertia_base=None)",
    "spherical_joint": "(name, point1, point2, base=None)",
    "spring_damper": "(name, point1, point2, *, k=0, rest_length=0, damping=0, actuator=0, solid1=None, solid2=None)",
    "state": "(name, x0=0.0, *, unit=None, description='', rate=None)",
    "stick_slip": "(name, along, normal, mu, *, mu_static=None)",
    "symbol": "(name)",
    "time_function": "(name, expr)",
    "torque": "(name, solid, moment, *, base=None, reaction=None)",
    "torsion_spring_damper": "(name, angle, *, k=0, rest_angle=0, damping=0, base1=None, base2=None, axis=None)",
    "unilateral": "(name, gap, *, restitution=0.0)",
    "universal_joint": "(name, point1, base1, point2, base2, *, axis1, axis2)",
    "velocity": "(point, frame=None, solid=None)",
    "velocity_constraint": "(name, expr, base=None, *, components=None)",
    "viscous_friction": "(name, coordinate=None, c=0, *, base1=None, base2=None, axis=None)",
    # hoisting and actuation (modules ropes, winches, hydraulics, one_sided)
    "rope": "(name, path, *, stiffness, unstretched_length, damping=0, falls=1, outputs=True)",
    "winch": (
        "(name, rope, *, radius, inertia, drive='torque', torque=None, speed=None, speed_gain=None, "
        "motor_time_constant=0, point=None, base=None)"
    ),
    "hydraulic_cylinder": (
        "(name, point1, point2, *, piston_area, rod_area, stroke, retracted_length, dead_volume, bulk_modulus, "
        "valve=None, flow_gain=0, supply_pressure=20000000.0, tank_pressure=100000.0, leakage=0, friction=0, "
        "laminar_pressure=10000.0, cavitation_pressure=20000.0, initial_pressures=(100000.0, 100000.0), "
        "restitution=0.0)"
    ),
    "sling": "(name, point1, point2, *, k, rest_length, damping=0)",
    "buffer": "(name, point1, point2, *, k, free_length, damping=0)",
}


def _signature(name: str) -> str:
    if isinstance(inspect.getattr_static(sb.System, name), property):
        return "property"
    sig = inspect.signature(getattr(sb.System, name))
    params = [p.replace(annotation=inspect.Parameter.empty) for p in list(sig.parameters.values())[1:]]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def test_public_methods_are_those_of_the_model_api() -> None:
    public = {n for n in dir(sb.System) if not n.startswith("_")}
    assert public == set(SIGNATURES)


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_public_method_keeps_its_parameters_and_documentation(name: str) -> None:
    assert _signature(name) == SIGNATURES[name]
    doc = inspect.getdoc(getattr(sb.System, name))
    assert doc and len(doc.split()) >= 4, f"System.{name} needs a docstring"


METHODS = sorted(n for n, sig in SIGNATURES.items() if sig != "property")


@pytest.mark.parametrize("name", METHODS)
def test_every_method_is_its_own_with_an_example_of_its_call(name: str) -> None:
    """``help(sb.System.x)`` shows System.x itself: its name, its signature, its example ``s.x(...)``."""
    method = getattr(sb.System, name)
    assert method.__name__ == name
    assert f"s.{name}(" in (inspect.getdoc(method) or ""), f"System.{name} needs an example calling s.{name}(...)"
    text = pydoc.render_doc(method, renderer=pydoc.plaintext)
    assert text.splitlines()[2].startswith(f"{name}(self"), text.splitlines()[:3]


def test_help_of_a_method_is_the_methods_own() -> None:
    text = pydoc.render_doc(sb.System.parameter, renderer=pydoc.plaintext)
    assert "declare_parameter" not in text
    assert "s.parameter(" in text and "parameter(self, name: 'str', value: 'float' = 0.0, *, unit" in text


def _model() -> sb.System:
    s = sb.System("old_spellings")
    s.coordinate("x", 0.5)
    s.coordinate("y")
    s.point("P", s.origin, (s.symbol("x"), s.symbol("y"), 0))
    s.base("B", s.ground_base, sb.Rz(s.symbol("y")))
    s.particle("bob", "P", 1.0)
    return s


def _plain(value: object) -> object:
    """A value of a load's field as text (expressions, named objects, vectors by their components)."""
    if isinstance(value, sb.Vector):
        return sorted((base.name, _plain(list(comps))) for base, comps in value.parts.items())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return getattr(value, "name", None) or str(value)


def _describe(s: sb.System) -> tuple:
    """What a call made: every declared object with the data the options set."""
    return (
        [(p.name, p.value, p.unit, p.description, p.min, p.max) for p in s.parameters.values()],
        [(c.name, c.q0, c.dq0, c.unit, c.description, c.aux) for c in s.coordinates],
        [(u.name, u.value, u.unit, u.description) for u in s.inputs.values()],
        [(o.name, str(o.expr), o.unit, o.description) for o in s.outputs.values()],
        [(ld.name, ld.kind, sorted((k, _plain(v)) for k, v in vars(ld).items() if k != "ctx")) for ld in s.loads],
        [(r.name, str(r.expr), r.kind) for r in s.constraints],
        sorted((j.name, tuple(j.rows), tuple(sorted(j.reactions.items()))) for j in s.joints.values()),
        [(st.name, st.x0, st.unit, st.description) for st in s.states.values()],
        [(a.name, a.color, a.opacity) for a in s.shapes],
    )


# (method, call before 0.2, the same call spelled as from 0.2)
OLD_SPELLINGS = [
    ("parameter", lambda s: s.parameter("k", 2.0, "N/m", "stiffness", 0.0, 5.0),
     lambda s: s.parameter("k", 2.0, unit="N/m", description="stiffness", min=0.0, max=5.0)),
    ("parameters_", lambda s: s.parameters_("m1 m2", 1.0, "kg"),
     lambda s: s.parameter_group("m1 m2", 1.0, unit="kg")),
    ("coordinate", lambda s: s.coordinate("z", 1.0, 2.0, "m", "height", True),
     lambda s: s.coordinate("z", 1.0, 2.0, unit="m", description="height", aux=True)),
    ("aux_coordinate", lambda s: s.aux_coordinate("z", 1.0, 0.0, "m"), lambda s: s.aux_coordinate("z", 1.0, unit="m")),
    ("input", lambda s: s.input("F", 1.0, "N", "push", -2.0, 2.0),
     lambda s: s.input("F", 1.0, unit="N", description="push", min=-2.0, max=2.0)),
    ("motion_input", lambda s: s.motion_input("h", "m", "heave"), lambda s: s.motion_input("h", unit="m", description="heave")),
    ("state", lambda s: s.state("w", 1.0, "V", "voltage", 0), lambda s: s.state("w", 1.0, unit="V", description="voltage", rate=0)),
    ("output", lambda s: s.output("o", 2 * s.symbol("x"), "m", "twice x"),
     lambda s: s.output("o", 2 * s.symbol("x"), unit="m", description="twice x")),
    ("output_vector", lambda s: s.output_vector("r", s.position("P"), "B", "m", "where"),
     lambda s: s.output_vector("r", s.position("P"), "B", unit="m", description="where")),
    ("gravity", lambda s: s.gravity((0, -9.81, 0), None, "g"), lambda s: s.gravity((0, -9.81, 0), name="g")),
    ("force", lambda s: s.force("push", "bob", "P", (1, 0, 0), None, "B", None),
     lambda s: s.force("push", "bob", "P", (1, 0, 0), base="B", reaction=None)),
    ("torque", lambda s: s.torque("turn", "bob", (0, 0, 1), "B"), lambda s: s.torque("turn", "bob", (0, 0, 1), base="B")),
    ("spring_damper", lambda s: s.spring_damper("k", s.origin, "P", 4.0, 0.5, 0.1, 1.0),
     lambda s: s.spring_damper("k", s.origin, "P", k=4.0, rest_length=0.5, damping=0.1, actuator=1.0)),
    ("torsion_spring_damper", lambda s: s.torsion_spring_damper("coil", s.symbol("y"), 2.0, 0.1, 0.3),
     lambda s: s.torsion_spring_damper("coil", s.symbol("y"), k=2.0, rest_angle=0.1, damping=0.3)),
    ("coulomb_friction", lambda s: s.coulomb_friction("dry", s.symbol("x"), 3.0, 0.01),
     lambda s: s.coulomb_friction("dry", s.symbol("x"), 3.0, smoothing=0.01)),
    ("constraint", lambda s: s.constraint("c", (s.symbol("x"), s.symbol("y"), s.symbol("x")), "B", "xy"),
     lambda s: s.constraint("c", (s.symbol("x"), s.symbol("y"), s.symbol("x")), "B", components="xy")),
    ("velocity_constraint", lambda s: s.velocity_constraint("v", s.velocity("P"), None, "x"),
     lambda s: s.velocity_constraint("v", s.velocity("P"), components="x")),
    ("initial_constraint", lambda s: s.initial_constraint("i", s.position("P"), None, "x"),
     lambda s: s.initial_constraint("i", s.position("P"), components="x")),
    ("fix_initial", lambda s: s.fix_initial("x", "hold"), lambda s: s.fix_initial("x", name="hold")),
    ("joint_reaction", lambda s: s.joint_reaction("bob", "P", "B", "R"), lambda s: s.joint_reaction("bob", "P", "B", name="R")),
    ("revolute_joint", lambda s: s.revolute_joint("j", s.origin, "xyz", "P", "B", "z"),
     lambda s: s.revolute_joint("j", s.origin, "xyz", "P", "B", axis="z")),
    ("prismatic_joint", lambda s: s.prismatic_joint("j", s.origin, "xyz", "P", "B", "y"),
     lambda s: s.prismatic_joint("j", s.origin, "xyz", "P", "B", axis="y")),
    ("cylindrical_joint", lambda s: s.cylindrical_joint("j", s.origin, "xyz", "P", "B", "x"),
     lambda s: s.cylindrical_joint("j", s.origin, "xyz", "P", "B", axis="x")),
    ("universal_joint", lambda s: s.universal_joint("j", s.origin, "xyz", "x", "P", "B", "y"),
     lambda s: s.universal_joint("j", s.origin, "xyz", "P", "B", axis1="x", axis2="y")),
    ("generic_joint", lambda s: s.generic_joint("g", [s.symbol("x")], ["N"]),
     lambda s: s.generic_joint("g", [s.symbol("x")], reactions=["N"])),
    ("unilateral", lambda s: s.unilateral("floor", s.symbol("y") + 1, 0.5),
     lambda s: s.unilateral("floor", s.symbol("y") + 1, restitution=0.5)),
    ("stick_slip", lambda s: s.stick_slip("grip", s.symbol("x"), 1.0, 0.3, 0.4),
     lambda s: s.stick_slip("grip", s.symbol("x"), 1.0, 0.3, mu_static=0.4)),
    ("shape", lambda s: s.shape(sb.Sphere(0.1), "bob", (0, 0, 0), None, "red", 0.5),
     lambda s: s.shape(sb.Sphere(0.1), "bob", offset=(0, 0, 0), color="red", opacity=0.5)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "old", "new"), OLD_SPELLINGS, ids=[c[0] for c in OLD_SPELLINGS])
def test_old_spelling_warns_and_does_what_the_new_one_does(name, old, new) -> None:
    s_old, s_new = _model(), _model()
    with pytest.warns(DeprecationWarning, match=rf"System\.{name}") as caught:
        old(s_old)
    assert caught[0].filename == __file__, "the warning points at the caller"
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new(s_new)
    assert _describe(s_old) == _describe(s_new)


def test_derive_takes_its_options_by_keyword_and_by_position_with_a_warning() -> None:
    s = _model()
    s.gravity((0, -9.81, 0))
    with pytest.warns(DeprecationWarning, match="System.derive: pass progress, check by keyword"):
        old = s.derive(None, True)
    new = s.derive(progress=None, check=True)
    assert str(old.M) == str(new.M) and str(old.delta) == str(new.delta)


def test_too_many_or_repeated_arguments_still_fail_as_in_python() -> None:
    s = _model()
    with pytest.raises(TypeError, match="at most 7 positional"):
        s.parameter("k", 1.0, "N", "d", 0.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="multiple values for argument 'unit'"):
        s.parameter("k", 1.0, "N", unit="N")
    assert "k" not in s.parameters


def test_warnings_of_a_wrapped_method_point_at_the_caller() -> None:
    """The deprecation wrapper of derive adds a frame: the redundancy warning still names the user's line."""
    s = sb.System("twice")
    x = s.coordinate("x", 0.0)
    s.particle("p", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.constraint("a", x)
    s.constraint("b", 2 * x)
    with pytest.warns(sb.RedundantConstraintWarning) as caught:
        s.derive()
    assert caught[0].filename == __file__
