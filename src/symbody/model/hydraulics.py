"""Hydraulic cylinders: a differential cylinder between two points, fed by a proportional valve.

The barrel is pinned at ``point1`` and the rod end at ``point2``; their distance is
``retracted_length`` fully retracted, and the extension ``x = d - retracted_length`` runs over
``[0, stroke]``.  The cap-side chamber (piston area ``A_p``) and the rod-side chamber (annulus
``A_a = piston_area - rod_area``) hold the absolute pressures ``p1`` and ``p2``, first-order states
(``<name>_p1``, ``<name>_p2``, in Pa) with volumes ``V1 = V01 + A_p x`` and
``V2 = V02 + A_a (stroke - x)`` (``dead_volume`` one value or the pair ``(V01, V02)``).  The
cylinder pushes the points apart with ``F = p1 A_p - p2 A_a - friction dx/dt``, and::

    dp1/dt = beta_e(p1) / V1 (Q1 - A_p dx/dt - Q_leak)
    dp2/dt = beta_e(p2) / V2 (Q2 + A_a dx/dt + Q_leak)

with ``Q_leak = leakage (p1 - p2)`` across the piston.  A critical-centre proportional valve, spool
``u`` in ``[-1, 1]`` (``valve``; by default the input ``<name>_spool``), connects the supply to the
cap side and the rod side to the tank for ``u > 0``, the other way round for ``u < 0``, through
orifices ``Q = flow_gain |u| f(dp)`` with ``f(dp) = dp / (dp^2 + dp_l^2)^(1/4)``: ``sign(dp)
sqrt(|dp|)`` (turbulent) for ``|dp| >> dp_l = laminar_pressure``, linear (laminar) near ``dp = 0``,
so that its Jacobians stay finite.  ``flow_gain`` is the nominal flow over the square root of its
pressure drop (m^3/s/sqrt(Pa)).

Cavitation: the pressures are absolute and cannot become negative: the effective bulk modulus
``beta_e(p) = beta p^2 / (p^2 + p_c^2)`` (``p_c = cavitation_pressure``, released air and vapour)
vanishes at zero pressure, so a chamber emptied faster than it fills approaches zero pressure but never
crosses it.  Far above ``p_c`` it is ``beta`` (relative difference ``(p_c/p)^2``).

End of stroke: the unilateral contacts ``<name>_retracted`` (``x >= 0``) and ``<name>_extended``
(``x <= stroke``), with ``restitution``.  Outputs: ``<name>_extension``, ``<name>_force``,
``<name>_flow1``, ``<name>_flow2`` (valve flows into the chambers, m^3/s).

A mass ``m`` held by the closed cylinder oscillates at ``sqrt(beta (A_p^2 / V1 + A_a^2 / V2) / m)``.

Example:
    >>> import symbody as sb
    >>> s = sb.System("lift")
    >>> y = s.coordinate("y", 1.2)
    >>> top = s.point("top", s.origin, (0, y, 0)); _ = s.particle("load", top, 500.0)
    >>> cyl = s.hydraulic_cylinder("lift", s.origin, top, piston_area=5e-3, rod_area=2e-3, stroke=0.5,
    ...                            retracted_length=1.0, dead_volume=1e-4, bulk_modulus=1.4e9,
    ...                            flow_gain=1e-7, supply_pressure=2e7)
    >>> sorted(s.states), cyl.spool
    (['lift_p1', 'lift_p2'], lift_spool)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.expr import Expr, add, as_expr, div, mul, neg, pow_, sub
from ..symbolic.nonsmooth import positive_part
from .contacts import Unilateral, add_unilateral
from .expressions import LOADS, default_value, require, to_expr, to_number, total_derivative
from .geometry import Point, resolve_point
from .loads import add_load
from .quantities import declare_input, declare_output
from .registry import Facet, atomic
from .ropes import PathForce, path_length, virtual_rate
from .states import declare_state, set_rate

if TYPE_CHECKING:
    from .system import System


@dataclass
class HydraulicCylinder:
    """A hydraulic cylinder of a model (:meth:`symbody.System.hydraulic_cylinder`).

    Attributes:
        name: its name (prefix of its states, contacts and outputs).
        extension: ``x``, from 0 (retracted) to the stroke.
        p1, p2: the cap-side and rod-side pressures (states, Pa absolute).
        spool: the valve opening in ``[-1, 1]``.
        flow1, flow2: the valve flows into the chambers (m^3/s).
        force: the force pushing the points apart (N).
        stops: the end-of-stroke contacts (retracted, extended).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("c")
        >>> x = s.coordinate("x", 1.1)
        >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("m", P, 10.0)
        >>> c = s.hydraulic_cylinder("c", s.origin, P, piston_area=1e-3, rod_area=4e-4, stroke=0.3,
        ...                          retracted_length=1.0, dead_volume=(5e-5, 6e-5), bulk_modulus=1e9)
        >>> [u.name for u in c.stops]
        ['c_retracted', 'c_extended']
    """

    name: str
    extension: Expr
    p1: Expr
    p2: Expr
    spool: Expr
    flow1: Expr
    flow2: Expr
    force: Expr
    stops: tuple[Unilateral, Unilateral]
    kind: str = "hydraulic cylinder"


def orifice(dp: Expr, laminar: Expr) -> Expr:
    """``dp / (dp^2 + laminar^2)^(1/4)``: ``sign(dp) sqrt(|dp|)`` far from 0, linear near it.

    Example:
        >>> from symbody.symbolic.expr import Context
        >>> from symbody.symbolic.evaluate import evaluate
        >>> ctx = Context(); dp = ctx.symbol("dp")
        >>> [round(evaluate(orifice(dp, as_expr(1.0)), {dp: v}), 4) for v in (-1e6, 0.0, 1e-3, 1e6)]
        [-1000.0, 0.0, 0.001, 1000.0]
    """
    return div(dp, pow_(add(mul(dp, dp), mul(laminar, laminar)), as_expr(0.25)))


def _positive(system: System, value: Any, what: str, allow_zero: bool = False) -> Expr:
    e = to_expr(system, value, what)
    require(system, what, e, ("parameter",))
    v = default_value(system, e)
    if not (v >= 0.0 if allow_zero else v > 0.0):
        raise ModelError(f"{what} must be {'non-negative' if allow_zero else 'positive'}, not {v:g}")
    return e


def add_hydraulic_cylinder(
    system: System,
    name: str,
    point1: Point | str,
    point2: Point | str,
    *,
    piston_area: Any,
    rod_area: Any,
    stroke: Any,
    retracted_length: Any,
    dead_volume: Any,
    bulk_modulus: Any,
    valve: Any = None,
    flow_gain: Any = 0,
    supply_pressure: Any = 2.0e7,
    tank_pressure: Any = 1.0e5,
    leakage: Any = 0,
    friction: Any = 0,
    laminar_pressure: Any = 1.0e4,
    cavitation_pressure: Any = 2.0e4,
    initial_pressures: tuple[float, float] = (1.0e5, 1.0e5),
    restitution: Any = 0.0,
) -> HydraulicCylinder:
    """A differential hydraulic cylinder between ``point1`` (barrel) and ``point2`` (rod end); see the
    module documentation.  SI units: m^2, m, m^3, Pa, m^3/s/sqrt(Pa), m^3/s/Pa, N s/m.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("hc")
        >>> x = s.coordinate("x", 1.1)
        >>> P = s.point("P", s.origin, (x, 0, 0)); _ = s.particle("m", P, 10.0)
        >>> c = add_hydraulic_cylinder(s, "c", s.origin, P, piston_area=1e-3, rod_area=4e-4, stroke=0.3,
        ...                            retracted_length=1.0, dead_volume=5e-5, bulk_modulus=1e9, valve=0)
        >>> c.flow1
        0
    """
    what = f"hydraulic cylinder {name!r}"
    system.registry.check(name, "hydraulic cylinder")
    p1_, p2_ = resolve_point(system, point1, what), resolve_point(system, point2, what)
    a_p = _positive(system, piston_area, f"piston area of {what}")
    a_r = _positive(system, rod_area, f"rod area of {what}")
    a_a = sub(a_p, a_r)
    if default_value(system, a_a) <= 0.0:
        raise ModelError(f"{what}: the rod area must be smaller than the piston area")
    h = _positive(system, stroke, f"stroke of {what}")
    l_r = _positive(system, retracted_length, f"retracted length of {what}")
    v01, v02 = dead_volume if isinstance(dead_volume, (tuple, list)) else (dead_volume, dead_volume)
    v01, v02 = _positive(system, v01, f"dead volume of {what}"), _positive(system, v02, f"dead volume of {what}")
    beta = _positive(system, bulk_modulus, f"bulk modulus of {what}")
    k_v = _positive(system, flow_gain, f"flow gain of {what}", allow_zero=True)
    p_s = _positive(system, supply_pressure, f"supply pressure of {what}", allow_zero=True)
    p_t = _positive(system, tank_pressure, f"tank pressure of {what}", allow_zero=True)
    c_l = _positive(system, leakage, f"leakage of {what}", allow_zero=True)
    c_f = _positive(system, friction, f"friction of {what}", allow_zero=True)
    dp_l = _positive(system, laminar_pressure, f"laminar pressure of {what}")
    p_c = _positive(system, cavitation_pressure, f"cavitation pressure of {what}", allow_zero=True)
    start = [to_number(p, f"initial pressure of {what}") for p in initial_pressures]
    if len(start) != 2 or min(start) <= 0.0:
        raise ModelError(f"{what}: initial_pressures must be two positive absolute pressures, not {initial_pressures}")
    if valve is None:
        u = declare_input(
            system, f"{name}_spool", 0.0, None, f"valve spool of {name} (-1 retract, 1 extend)", -1.0, 1.0
        )
    else:
        u = to_expr(system, valve, f"valve of {what}")
        require(system, f"the valve of {what}", u, LOADS)

    d = path_length(system, [p1_, p2_], 1, what)
    x = sub(d, l_r)
    dx = total_derivative(system, d)  # the extension rate (points moved by motion inputs included)
    # units on the states and outputs when the cylinder is given in parameters with units (bare numbers have none)
    unit = (lambda text: text) if all(e.mask for e in (a_p, a_r, h, l_r, v01, v02, beta)) else (lambda text: None)
    p1 = declare_state(system, f"{name}_p1", start[0], unit("Pa"), f"cap-side pressure of {name} (absolute)")
    p2 = declare_state(system, f"{name}_p2", start[1], unit("Pa"), f"rod-side pressure of {name} (absolute)")
    u_in, u_out = positive_part(u), positive_part(neg(u))
    q1 = mul(k_v, sub(mul(u_in, orifice(sub(p_s, p1), dp_l)), mul(u_out, orifice(sub(p1, p_t), dp_l))))
    q2 = mul(k_v, sub(mul(u_out, orifice(sub(p_s, p2), dp_l)), mul(u_in, orifice(sub(p2, p_t), dp_l))))
    q_leak = mul(c_l, sub(p1, p2))
    v1 = add(v01, mul(a_p, x))
    v2 = add(v02, mul(a_a, sub(h, x)))
    set_rate(system, p1, mul(div(_effective(beta, p1, p_c), v1), sub(sub(q1, mul(a_p, dx)), q_leak)))
    set_rate(system, p2, mul(div(_effective(beta, p2, p_c), v2), add(add(q2, mul(a_a, dx)), q_leak)))
    force = sub(sub(mul(p1, a_p), mul(p2, a_a)), mul(c_f, dx))
    load = PathForce(name, "hydraulic cylinder", [(p1_, p2_, 1)], force, virtual_rate(system, d))
    add_load(system, name, load)
    stops = (
        add_unilateral(system, f"{name}_retracted", x, restitution),
        add_unilateral(system, f"{name}_extended", sub(h, x), restitution),
    )
    declare_output(system, f"{name}_extension", x, unit("m"), f"extension of cylinder {name} (0 retracted)")
    declare_output(system, f"{name}_force", force, unit("N"), f"force of cylinder {name} (positive pushing)")
    declare_output(system, f"{name}_flow1", q1, unit("m3/s"), f"valve flow into the cap side of {name}")
    declare_output(system, f"{name}_flow2", q2, unit("m3/s"), f"valve flow into the rod side of {name}")
    cyl = HydraulicCylinder(name, x, p1, p2, u, q1, q2, force, stops)
    system.elements[name] = cyl
    return cyl


def _effective(beta: Expr, p: Expr, p_c: Expr) -> Expr:
    """``beta p^2 / (p^2 + p_c^2)`` (``beta`` itself when ``p_c`` is zero)."""
    if p_c.is_zero:
        return beta
    p2 = mul(p, p)
    return div(mul(beta, p2), add(p2, mul(p_c, p_c)))


__all__ = ["HydraulicCylinder", "add_hydraulic_cylinder", "orifice"]


class HydraulicsMixin(Facet):
    """The methods of :class:`symbody.System` that add hydraulic cylinders."""

    @atomic
    def hydraulic_cylinder(
        self,
        name: str,
        point1: Point | str,
        point2: Point | str,
        *,
        piston_area: Any,
        rod_area: Any,
        stroke: Any,
        retracted_length: Any,
        dead_volume: Any,
        bulk_modulus: Any,
        valve: Any = None,
        flow_gain: Any = 0,
        supply_pressure: Any = 2.0e7,
        tank_pressure: Any = 1.0e5,
        leakage: Any = 0,
        friction: Any = 0,
        laminar_pressure: Any = 1.0e4,
        cavitation_pressure: Any = 2.0e4,
        initial_pressures: tuple[float, float] = (1.0e5, 1.0e5),
        restitution: Any = 0.0,
    ) -> HydraulicCylinder:
        """A differential hydraulic cylinder, barrel at ``point1``, rod end at ``point2``, fed by a valve.

        Its two chamber pressures are first-order states (``<name>_p1`` cap side, ``<name>_p2`` rod
        side, absolute, Pa) with the oil's compressibility (``bulk_modulus``) in the chamber volumes of
        the current extension ``x = distance - retracted_length`` (``dead_volume``: one value or the
        pair), flows from a critical-centre proportional valve (spool ``valve`` in [-1, 1], by default
        the input ``<name>_spool``; orifice law ``flow_gain |u| sign(dp) sqrt(|dp|)``, laminar within
        ``laminar_pressure`` of ``dp = 0``), ``leakage`` across the piston (m^3/s/Pa) and viscous
        ``friction`` (N s/m).  End-of-stroke stops are the unilateral contacts ``<name>_retracted``
        and ``<name>_extended``; the bulk modulus vanishes near zero absolute pressure
        (``cavitation_pressure``), so no pressure becomes negative.  Outputs ``<name>_extension``,
        ``<name>_force``, ``<name>_flow1``, ``<name>_flow2``.  See :mod:`symbody.model.hydraulics`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("boom_lift")
            >>> y = s.coordinate("y", 1.2)
            >>> rod_end = s.point("rod_end", s.origin, (0, y, 0)); _ = s.particle("boom", rod_end, 800.0)
            >>> s.gravity((0, -9.81, 0))
            >>> lift = s.hydraulic_cylinder("lift", s.origin, rod_end, piston_area=8e-3, rod_area=3e-3,
            ...     stroke=0.6, retracted_length=1.0, dead_volume=2e-4, bulk_modulus=1.4e9, flow_gain=2e-7,
            ...     supply_pressure=2.1e7, initial_pressures=(1.2e6, 1e5))
            >>> eq = s.derive()
            >>> [x.name for x in eq.states], [u.name for u in eq.inputs]
            (['lift_p1', 'lift_p2'], ['lift_spool'])
        """
        return add_hydraulic_cylinder(
            self._system, name, point1, point2, piston_area=piston_area, rod_area=rod_area, stroke=stroke,
            retracted_length=retracted_length, dead_volume=dead_volume, bulk_modulus=bulk_modulus, valve=valve,
            flow_gain=flow_gain, supply_pressure=supply_pressure, tank_pressure=tank_pressure, leakage=leakage,
            friction=friction, laminar_pressure=laminar_pressure, cavitation_pressure=cavitation_pressure,
            initial_pressures=initial_pressures, restitution=restitution,
        )  # fmt: skip
