"""System's public interface is the one users program against: names, parameters, defaults and docs.

``System`` is a facade over the model's concept modules; this table pins every public method's
parameters (names, order, kinds, defaults) as they were before the split, so that moving code
between modules cannot change a user's call.  Methods added later extend the table.
"""

from __future__ import annotations

import inspect

import pytest

import symbody as sb

SIGNATURES = {
    "acceleration": "(point, frame=None)",
    "angular_acceleration": "(base, relative_to=None)",
    "angular_velocity": "(base, relative_to=None)",
    "aux_coordinate": "(name, q0=0.0, dq0=0.0, unit=None, description='')",
    "base": "(name, parent, rotation=None, angle=None)",
    "beam": "(name, frame1, frame2, *, E=None, G=None, area=None, Iy=None, Iz=None, J=None, length=None, "
    "stiffness=None, damping=None)",
    "bushing": "(name, frame1, frame2, *, stiffness, damping=None, preload=None)",
    "constraint": "(name, expr, base=None, components=None)",
    "coordinate": "(name, q0=0.0, dq0=0.0, unit=None, description='', aux=False)",
    "coordinate_of": "(symbol)",
    "coulomb_friction": "(name, coordinate, force, smoothing=0.001)",
    "cylindrical_joint": "(name, point1, base1, point2, base2, axis='z')",
    "ddq": "property",
    "default_values": "()",
    "derive": "(progress=None, check=True, formulation='auto')",
    "description": "property",
    "distance_joint": "(name, point1, point2, length)",
    "dq": "property",
    "dt": "(expr)",
    "fix_initial": "(coordinate, name=None)",
    "flexible_beam": "(name, root_frame, *, length, segments, E, G, rho, area, Iy, Iz, J, damping=None, axial=True, "
    "torsion=True)",
    "force": "(name, solid, point, force=None, moment=None, base=None, reaction=None)",
    "frame": "(name, point, base)",
    "generalized_force": "(name, coordinate, force)",
    "generic_joint": "(name, equations, reactions=None)",
    "gravity": "(g, base=None, name='gravity')",
    "initial_constraint": "(name, expr, base=None, components=None)",
    "input": "(name, value=0.0, unit=None, description='', min=None, max=None)",
    "joint_reaction": "(solid, point=None, base=None, name=None, unit=('N', 'N*m'))",
    "motion_input": "(name, unit=None, description='', *, value=0.0)",
    "multiplier": "(row)",
    "output": "(name, expr, unit=None, description='')",
    "output_vector": "(name, vector, base=None, unit=None, description='')",
    "parameter": "(name, value=0.0, unit=None, description='', min=None, max=None)",
    "parameters_": "(spec, value=0.0, unit=None)",
    "particle": "(name, point, mass)",
    "point": "(name, parent, vector, base=None)",
    "position": "(a, b=None)",
    "prescribe": "(name, coordinate, motion)",
    "prismatic_joint": "(name, point1, base1, point2, base2, axis='x')",
    "q": "property",
    "rate": "(state, expr)",
    "revolute_joint": "(name, point1, base1, point2, base2, axis='z')",
    "rotation_matrix": "(a, b)",
    "shape": "(shape, on=None, offset=(0, 0, 0), rotation=None, color=None, opacity=1.0, name=None)",
    "solid": "(name, frame, base=None, *, mass, com=(0, 0, 0), inertia=None, inertia_at='com', inertia_base=None)",
    "spherical_joint": "(name, point1, point2, base=None)",
    "state": "(name, x0=0.0, unit=None, description='', rate=None)",
    "spring_damper": "(name, point1, point2, k=0, rest_length=0, damping=0, actuator=0, solid1=None, solid2=None)",
    "symbol": "(name)",
    "time_function": "(name, expr)",
    "torque": "(name, solid, moment, base=None, reaction=None)",
    "torsion_spring_damper": "(name, angle, k=0, rest_angle=0, damping=0, base1=None, base2=None, axis=None)",
    "universal_joint": "(name, point1, base1, axis1, point2, base2, axis2)",
    "velocity": "(point, frame=None, solid=None)",
    "velocity_constraint": "(name, expr, base=None, components=None)",
    "viscous_friction": "(name, coordinate=None, c=0, *, base1=None, base2=None, axis=None)",
}

NEW = {"unilateral", "stick_slip"}  # declared by the contact and friction modules


def _signature(name: str) -> str:
    if isinstance(inspect.getattr_static(sb.System, name), property):
        return "property"
    sig = inspect.signature(getattr(sb.System, name))
    params = [p.replace(annotation=inspect.Parameter.empty) for p in list(sig.parameters.values())[1:]]
    return str(sig.replace(parameters=params, return_annotation=inspect.Signature.empty))


def test_public_methods_are_those_of_the_model_api() -> None:
    public = {n for n in dir(sb.System) if not n.startswith("_")} - NEW
    assert public == set(SIGNATURES)


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_public_method_keeps_its_parameters_and_documentation(name: str) -> None:
    assert _signature(name) == SIGNATURES[name]
    doc = inspect.getdoc(getattr(sb.System, name))
    assert doc and len(doc.split()) >= 4, f"System.{name} needs a docstring"


def test_factories_document_a_runnable_example_in_their_module() -> None:
    """The factories bound from the concept modules carry those modules' examples (run as doctests there)."""
    bound = [
        n
        for n, sig in SIGNATURES.items()
        if sig != "property" and getattr(sb.System, n).__module__ != "symbody.model.system"
    ]
    assert len(bound) > 30
    missing = [n for n in bound if ">>>" not in (inspect.getdoc(getattr(sb.System, n)) or "")]
    assert missing == []
