"""A factory of System that fails leaves the system exactly as before; the corrected call then succeeds.

Every public factory is called once with an argument that makes it fail (several of them
half-way, after they have claimed names, created bases or symbols, or bounded a parameter),
the complete observable state is compared with the state before, and the same call with
the argument corrected must then succeed.  A model built through many failed calls derives
the same equations as the model built without them.
"""

from __future__ import annotations

import pytest

import symbody as sb
from symbody.model.registry import Registry, atomic


def build() -> sb.System:
    s = sb.System("rb")
    l = s.parameter("l", 1.0)
    s.parameter("mass", 2.0)  # used as a mass only by the cases below
    x, y = s.coordinate("x"), s.coordinate("y")
    th = s.coordinate("th", 0.1)
    for e in ("e0", "e1", "e2", "e3"):
        s.coordinate(e, 1.0 if e == "e0" else 0.0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    P = s.point("P", s.origin, (x, y, 0))
    s.point("A", s.origin, (-l, 0, 0))
    s.solid("body", P, B, mass=1.0, inertia=(1, 1, 1))
    s.output("w_y", x)  # makes output_vector("w", ...) fail after w_x
    s.output("Q_norm", y)  # makes the norm constraint of an Euler-parameter base "Q" fail
    s.output("cc_2", y)  # makes the second row of constraint "cc" fail
    return s


def state(s: sb.System) -> dict:
    """Everything a factory may change, in comparable form."""
    return {
        "names": s.registry.items(),
        "symbols": [(e.name, e.kind, e.mask) for e in s.ctx.symbols],
        "by_name": list(s.ctx.by_name),
        "time_rates": len(s.ctx.time_rates),
        "parameters": {n: (p.value, p.min, p.max) for n, p in s.parameters.items()},
        "coordinates": [c.name for c in s.coordinates],
        "inputs": list(s.inputs),
        "outputs": list(s.outputs),
        "time_functions": list(s.time_functions),
        "bases": list(s.bases),
        "children": {n: [c.name for c in b.children] for n, b in s.bases.items()},
        "points": list(s.points),
        "frames": list(s.frames),
        "solids": list(s.solids),
        "loads": [ld.name for ld in s.loads],
        "constraints": [(r.name, r.kind) for r in s.constraints],
        "joints": list(s.joints),
        "multipliers": list(s._multipliers),
        "shapes": [a.name for a in s.shapes],
    }


def euler_parameters(s: sb.System) -> sb.EulerParameters:
    return sb.EulerParameters(*(s.symbol(e) for e in ("e0", "e1", "e2", "e3")))


# (factory, failing call, corrected call): each a function of the system
CASES = {
    "parameter": (lambda s: s.parameter("k", "stiff"), lambda s: s.parameter("k", 1.0)),
    "parameter_group": (lambda s: s.parameter_group("k1 k2 x"), lambda s: s.parameter_group("k1 k2 k3")),
    "coordinate": (lambda s: s.coordinate("z", 0.0, "fast"), lambda s: s.coordinate("z", 0.0, 1.0)),
    "aux_coordinate": (lambda s: s.aux_coordinate("dz", unit="parsec"), lambda s: s.aux_coordinate("dz")),
    "input": (lambda s: s.input("u", float("nan")), lambda s: s.input("u", 0.0)),
    "time_function": (
        lambda s: s.time_function("zt", s.symbol("x")),
        lambda s: s.time_function("zt", sb.sin(s.t)),
    ),
    "output": (lambda s: s.output("o", 1.0, unit="parsec"), lambda s: s.output("o", 1.0)),
    "output_vector": (
        lambda s: s.output_vector("w", s.position("P")),
        lambda s: s.output_vector("w2", s.position("P")),
    ),
    "base (Euler angles)": (
        lambda s: s.base("E", "xyz", sb.EulerAngles("zyx", (s.symbol("th"), s.symbol("x"), s.symbol("dth")))),
        lambda s: s.base("E", "xyz", sb.EulerAngles("zyx", (s.symbol("th"), s.symbol("x"), s.symbol("y")))),
    ),
    "base (Euler parameters)": (
        lambda s: s.base("Q", "B", euler_parameters(s)),
        lambda s: s.base("Q2", "B", euler_parameters(s)),
    ),
    "point": (lambda s: s.point("R", "P", (s.symbol("dx"), 0, 0)), lambda s: s.point("R", "P", (1, 0, 0))),
    "frame": (lambda s: s.frame("F", "P", "nowhere"), lambda s: s.frame("F", "P", "B")),
    "solid": (
        lambda s: s.solid(
            "bar", "P", "B", mass=s.symbol("mass"), com=(1, 0, 0), inertia=(1, 1, 1), inertia_at="origin"
        ),
        lambda s: s.solid(
            "bar", "P", "B", mass=s.symbol("mass"), com=(1, 0, 0), inertia=(1, 3, 3), inertia_at="origin"
        ),
    ),
    "particle": (lambda s: s.particle("bob", "A", -1.0), lambda s: s.particle("bob", "A", s.symbol("mass"))),
    "gravity": (lambda s: s.gravity((0, s.symbol("x"), 0)), lambda s: s.gravity((0, -9.81, 0))),
    "force": (
        lambda s: s.force("f", None, "P", moment=(0, 0, 1)),
        lambda s: s.force("f", "body", "P", moment=(0, 0, 1)),
    ),
    "torque": (lambda s: s.torque("tq", "nobody", (0, 0, 1)), lambda s: s.torque("tq", "body", (0, 0, 1))),
    "generalized_force": (
        lambda s: s.generalized_force("gf", s.symbol("x"), s.symbol("ddx")),
        lambda s: s.generalized_force("gf", s.symbol("x"), 1.0),
    ),
    "spring_damper": (
        lambda s: s.spring_damper("sp", "P", "P", k=1.0),
        lambda s: s.spring_damper("sp", "A", "P", k=1.0),
    ),
    "torsion_spring_damper": (
        lambda s: s.torsion_spring_damper("ts", s.symbol("dth"), k=1.0),
        lambda s: s.torsion_spring_damper("ts", s.symbol("th"), k=1.0),
    ),
    "viscous_friction": (
        lambda s: s.viscous_friction("vf", c=1.0, base1="xyz", base2="nowhere"),
        lambda s: s.viscous_friction("vf", c=1.0, base1="xyz", base2="B"),
    ),
    "coulomb_friction": (
        lambda s: s.coulomb_friction("cf", s.symbol("x"), s.symbol("ddx")),
        lambda s: s.coulomb_friction("cf", s.symbol("x"), 1.0),
    ),
    "constraint": (
        lambda s: s.constraint("cc", [s.symbol("x") - 1, s.symbol("y")]),
        lambda s: s.constraint("cd", [s.symbol("x") - 1, s.symbol("y")]),
    ),
    "velocity_constraint": (
        lambda s: s.velocity_constraint("vc", s.symbol("dx") ** 2),
        lambda s: s.velocity_constraint("vc", s.symbol("dx") - s.symbol("dy")),
    ),
    "initial_constraint": (
        lambda s: s.initial_constraint("ic", s.symbol("l") - 1),
        lambda s: s.initial_constraint("ic", s.symbol("x") - 1),
    ),
    "fix_initial": (lambda s: s.fix_initial("x", name="w_y"), lambda s: s.fix_initial("x")),
    "prescribe": (
        lambda s: s.prescribe("drive", "th", s.symbol("x")),
        lambda s: s.prescribe("drive", "th", 2 * s.t),
    ),
    "spherical_joint": (
        lambda s: s.spherical_joint("J", "P", "P"),
        lambda s: s.spherical_joint("J", "A", "P"),
    ),
    "revolute_joint": (
        lambda s: s.revolute_joint("J", "A", "xyz", "P", "B", axis="w"),
        lambda s: s.revolute_joint("J", "A", "xyz", "P", "B", axis="z"),
    ),
    "prismatic_joint": (
        lambda s: s.prismatic_joint("J", "A", "xyz", "P", "nowhere"),
        lambda s: s.prismatic_joint("J", "A", "xyz", "P", "B"),
    ),
    "cylindrical_joint": (
        lambda s: s.cylindrical_joint("w_y", "A", "xyz", "P", "B"),
        lambda s: s.cylindrical_joint("J", "A", "xyz", "P", "B"),
    ),
    "universal_joint": (
        lambda s: s.universal_joint("J", "A", "xyz", "nowhere", "B", axis1="x", axis2="y"),
        lambda s: s.universal_joint("J", "A", "xyz", "P", "B", axis1="x", axis2="y"),
    ),
    "distance_joint": (
        lambda s: s.distance_joint("J", "P", "P", s.symbol("l")),
        lambda s: s.distance_joint("J", "A", "P", s.symbol("l")),
    ),
    "generic_joint": (
        lambda s: s.generic_joint("J", [s.symbol("x"), s.symbol("y")], reactions=["N"]),
        lambda s: s.generic_joint("J", [s.symbol("x"), s.symbol("y")], reactions=["N", "T"]),
    ),
    "shape": (
        lambda s: s.shape(sb.Box(1, 1, s.symbol("x")), on="body", name="box"),
        lambda s: s.shape(sb.Box(1, 1, s.symbol("l")), on="body", name="box"),
    ),
}


@pytest.mark.parametrize("factory", list(CASES))
def test_failed_factory_leaves_system_unchanged_and_corrected_call_succeeds(factory: str) -> None:
    failing, corrected = CASES[factory]
    s = build()
    before = state(s)
    with pytest.raises(sb.ModelError):
        failing(s)
    assert state(s) == before
    corrected(s)
    assert state(s) != before


def test_failed_calls_leave_no_trace_in_the_equations() -> None:
    """Symbols created and dropped by failed calls must not shift the symbols declared after them."""
    clean, tried = build(), build()
    for failing, _ in CASES.values():
        with pytest.raises(sb.ModelError):
            failing(tried)
    for s in (clean, tried):
        s.parameter("g", 9.81)
        s.input("F", 0.5)
        s.gravity((0, -s.symbol("g"), 0))
        s.force("push", "body", "P", (s.symbol("F"), 0, 0))
        s.distance_joint("bar", "A", "P", s.symbol("l"))
        s.constraint("held", [s.symbol("e0") - 1, s.symbol("e1"), s.symbol("e2"), s.symbol("e3")])
    assert state(tried) == state(clean)
    a, b = clean.derive(), tried.derive()
    assert [str(e) for e in a.delta] == [str(e) for e in b.delta]
    assert [[str(e) for e in row] for row in a.M] == [[str(e) for e in row] for row in b.M]


def test_mass_bound_survives_only_a_successful_solid() -> None:
    """A mass parameter gets the lower bound 0 from the solid that succeeds, not from one that fails."""
    s = build()
    with pytest.raises(sb.ModelError, match="not positive semi-definite"):
        CASES["solid"][0](s)
    assert s.parameters["mass"].min is None
    CASES["solid"][1](s)
    assert s.parameters["mass"].min == 0.0


def test_velocity_of_the_ground_material_point_is_zero() -> None:
    s = build()
    assert s.velocity("P", solid="ground").is_zero
    assert not s.velocity("P").is_zero


def test_unknown_frame_is_a_model_error() -> None:
    s = build()
    with pytest.raises(sb.ModelError, match="frame 'nowhere' does not exist"):
        s.velocity("P", frame="nowhere")
    with pytest.raises(sb.ModelError, match="frame 'nowhere' does not exist"):
        s.acceleration("P", frame="nowhere")


def test_nested_transactions_roll_back_as_one() -> None:
    reg = Registry()
    items: list[str] = []
    table: dict[str, int] = {"kept": 0}
    reg.track(items, table)
    undone: list[str] = []
    with pytest.raises(sb.ModelError):
        with reg.transaction():
            reg.claim("a", "item")
            items.append("a")
            with reg.transaction():  # joins the outer transaction
                reg.claim("b", "item")
                table["b"] = 1
                reg.on_rollback(lambda: undone.append("b"))
            reg.claim("a", "item")
    assert list(reg) == [] and items == [] and table == {"kept": 0} and undone == ["b"]
    assert not reg.in_transaction
    with reg.transaction():
        reg.claim("a", "item")
    assert list(reg) == ["a"]


def test_atomic_methods_undo_on_any_exception() -> None:
    class Catalogue:
        def __init__(self) -> None:
            self.registry = Registry()

        @atomic
        def add(self, name: str) -> None:
            self.registry.claim(name, "item")
            raise KeyError(name)

    c = Catalogue()
    with pytest.raises(KeyError):
        c.add("x")
    assert "x" not in c.registry
