"""Winches: a drum whose angle heaves a rope in or pays it out.

``s.winch(name, rope, radius=r, inertia=J)`` declares the drum angle ``name`` (rad; positive heaves
in, i.e. hoists) and its drum, a solid of inertia ``J`` about the axle (axis z of ``base``, at
``point``), and rebinds the rope's unstretched length to ``L0 - r * angle`` (``L0`` the rope's
unstretched length at angle 0).  The rope's tension then acts on the drum with the torque ``-T r``
and on the rope's path with the tension; the drum is driven by

- ``drive="torque"``: a torque ``torque`` (an expression; by default the input ``<name>_torque``);
- ``drive="speed"``: a speed controller ``speed_gain (w_m - d angle/dt)`` tracking the motor speed
  ``w_m``, which follows the speed reference ``speed`` (by default the input ``<name>_speed_ref``)
  directly or, with ``motor_time_constant`` ``T_m > 0``, through the first-order lag
  ``T_m dw_m/dt = speed - w_m`` (the state ``<name>_motor_speed``).

Output ``<name>_drive_torque``: the drive torque on the drum (N m, positive hoisting).  With a
constant drum acceleration ``alpha`` and a payload ``m`` on ``n`` falls the line pull tends to
``m (g + alpha r / n) / n`` and the drive torque to ``T r + J alpha``.

Example:
    >>> import symbody as sb
    >>> s = sb.System("hoist")
    >>> y = s.coordinate("y", -5.0, unit="m")
    >>> hook = s.point("hook", s.origin, (0, y, 0))
    >>> _ = s.particle("payload", hook, 200.0)
    >>> line = s.rope("line", [s.origin, hook], stiffness=1e6, unstretched_length=5.0)
    >>> drum = s.winch("drum", line, radius=0.25, inertia=2.0)
    >>> line.unstretched_length, drum.torque
    (5 - 0.25*drum, drum_torque)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..errors import ModelError
from ..symbolic.expr import Expr, div, mul, sub
from .base import Base, Rz
from .bodies import Solid, create_solid
from .expressions import LOADS, default_value, require, to_expr
from .geometry import Point, create_base, resolve_base, resolve_point
from .loads import ScalarForce, add_load
from .quantities import declare_coordinate, declare_input, declare_output
from .registry import Facet, atomic
from .ropes import Rope, rebind_unstretched_length
from .states import declare_state, set_rate

if TYPE_CHECKING:
    from .system import System


@dataclass
class Winch:
    """A winch of a model (:meth:`symbody.System.winch`).

    Attributes:
        name: the winch's name, that of its drum angle.
        rope: the rope it heaves in.
        angle: the drum angle (rad, positive heaving in).
        radius: the drum radius (m).
        drum: the drum solid.
        torque: the drive torque on the drum (N m, positive heaving in).
        motor_speed: the motor speed the speed drive tracks (``None`` for a torque drive).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("w")
        >>> y = s.coordinate("y", -2.0)
        >>> P = s.point("P", s.origin, (0, y, 0)); _ = s.particle("m", P, 1.0)
        >>> r = s.rope("r", [s.origin, P], stiffness=1e4, unstretched_length=2.0)
        >>> w = s.winch("w", r, radius=0.1, inertia=0.05, drive="speed", speed_gain=50.0, motor_time_constant=0.1)
        >>> w.motor_speed, s.states["w_motor_speed"].rate
        (w_motor_speed, 10*(w_speed_ref - w_motor_speed))
    """

    name: str
    rope: Rope
    angle: Expr
    radius: Expr
    drum: Solid
    torque: Expr
    motor_speed: Expr | None
    kind: str = "winch"


def add_winch(
    system: System,
    name: str,
    rope: Rope | str,
    *,
    radius: Any,
    inertia: Any,
    drive: str = "torque",
    torque: Any = None,
    speed: Any = None,
    speed_gain: Any = None,
    motor_time_constant: Any = 0,
    point: Point | str | None = None,
    base: Base | str | None = None,
) -> Winch:
    """A winch heaving in ``rope``; see the module documentation.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("aw")
        >>> y = s.coordinate("y", -2.0)
        >>> P = s.point("P", s.origin, (0, y, 0)); _ = s.particle("m", P, 1.0)
        >>> r = s.rope("r", [s.origin, P], stiffness=1e4, unstretched_length=2.0)
        >>> add_winch(s, "w", "r", radius=0.1, inertia=0.05, torque=3.0).torque
        3
    """
    what = f"winch {name!r}"
    r = _rope(system, rope, what)
    if drive not in ("torque", "speed"):
        raise ModelError(f"{what}: drive must be 'torque' or 'speed', not {drive!r}")
    rad = to_expr(system, radius, f"radius of {what}")
    J = to_expr(system, inertia, f"inertia of {what}")
    require(system, f"the radius and inertia of {what}", [rad, J], ("parameter",))
    if default_value(system, rad) <= 0.0 or default_value(system, J) < 0.0:
        raise ModelError(f"{what}: needs a positive radius and a non-negative inertia")
    angle = declare_coordinate(system, name, 0.0, 0.0, "rad", f"drum angle of winch {name} (positive heaving in)")
    axle = create_base(system, f"{name}_axle", resolve_base(system, base, what), Rz(angle))
    at = resolve_point(system, point, what) if point is not None else system.origin
    drum = create_solid(system, f"{name}_drum", at, axle, mass=0, inertia=(0, 0, J))
    rebind_unstretched_length(system, r, sub(r.unstretched_length, mul(rad, angle)))
    rate = system.dt(angle)
    motor = None
    if drive == "torque":
        if speed is not None or speed_gain is not None:
            raise ModelError(f"{what}: speed and speed_gain belong to drive='speed'")
        tau = to_expr(system, torque, f"torque of {what}") if torque is not None else _input(system, name, "torque")
    else:
        if torque is not None or speed_gain is None:
            raise ModelError(f"{what}: drive='speed' takes speed and speed_gain (N m s/rad), not torque")
        gain = to_expr(system, speed_gain, f"speed gain of {what}")
        ref = to_expr(system, speed, f"speed of {what}") if speed is not None else _input(system, name, "speed_ref")
        motor = _motor(system, name, ref, to_expr(system, motor_time_constant, f"motor time constant of {what}"))
        tau = mul(gain, sub(motor, rate))
    require(system, f"the drive torque of {what}", tau, LOADS)
    add_load(system, f"{name}_drive", ScalarForce(f"{name}_drive", rate, tau))
    declare_output(system, f"{name}_drive_torque", tau, None, f"drive torque of winch {name} (positive hoisting)")
    winch = system.elements[name] = Winch(name, r, angle, rad, drum, tau, motor)
    return winch


def _rope(system: System, rope: Rope | str, what: str) -> Rope:
    found: Any = system.elements.get(rope) if isinstance(rope, str) else rope
    if not isinstance(found, Rope) or system.elements.get(found.name) is not found:
        raise ModelError(f"{what}: {rope!r} is not a rope of system {system.name!r} (make it with System.rope)")
    r = cast(Rope, found)
    if any(isinstance(e, Winch) and e.rope is r for e in system.elements.values()):
        raise ModelError(f"{what}: rope {r.name!r} already has a winch")
    return r


def _input(system: System, name: str, what: str) -> Expr:
    unit = {"torque": "N*m", "speed_ref": "rad/s"}[what]
    text = {"torque": "drive torque", "speed_ref": "speed reference"}[what]
    return declare_input(system, f"{name}_{what}", 0.0, unit, f"{text} of winch {name} (positive hoisting)")


def _motor(system: System, name: str, ref: Expr, lag: Expr) -> Expr:
    """The motor speed: the reference itself, or its first-order lag when the time constant is positive."""
    require(system, f"the speed reference of winch {name!r}", ref, LOADS)
    require(system, f"the motor time constant of winch {name!r}", lag, ("parameter",))
    t_m = default_value(system, lag)
    if t_m < 0.0:
        raise ModelError(f"winch {name!r}: motor_time_constant must be >= 0, not {t_m:g}")
    if lag.is_zero:
        return ref
    unit = "rad/s" if lag.mask else None  # a bare number has no unit to check the rate's against
    w = declare_state(system, f"{name}_motor_speed", 0.0, unit, f"motor speed of winch {name}")
    set_rate(system, w, div(sub(ref, w), lag))
    return w


__all__ = ["Winch", "add_winch"]


class WinchesMixin(Facet):
    """The methods of :class:`symbody.System` that add winches."""

    @atomic
    def winch(
        self,
        name: str,
        rope: Rope | str,
        *,
        radius: Any,
        inertia: Any,
        drive: str = "torque",
        torque: Any = None,
        speed: Any = None,
        speed_gain: Any = None,
        motor_time_constant: Any = 0,
        point: Point | str | None = None,
        base: Base | str | None = None,
    ) -> Winch:
        """A winch whose drum angle ``name`` (rad, positive heaving in) sets the rope's unstretched length.

        The rope's unstretched length becomes ``L0 - radius * angle`` (``L0`` as the rope was given);
        the drum (``inertia`` about axis z of ``base`` at ``point``) is driven by a torque
        (``drive="torque"``: ``torque``, by default the input ``<name>_torque``) or by a speed
        controller (``drive="speed"``: ``speed_gain (w_m - d angle/dt)``, the motor speed ``w_m``
        following ``speed``, by default the input ``<name>_speed_ref``, through a first-order lag of
        ``motor_time_constant`` when it is positive: the state ``<name>_motor_speed``).  Output
        ``<name>_drive_torque``.  See :mod:`symbody.model.winches`.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("winch_demo")
            >>> y = s.coordinate("y", -4.0)
            >>> hook = s.point("hook", s.origin, (0, y, 0))
            >>> _ = s.particle("payload", hook, 100.0)
            >>> s.gravity((0, -9.81, 0))
            >>> line = s.rope("line", [s.origin, hook], stiffness=5e5, damping=2e3, unstretched_length=4.0)
            >>> drum = s.winch("drum", line, radius=0.2, inertia=1.5, drive="speed", speed_gain=2e3,
            ...                motor_time_constant=0.2)
            >>> sorted(s.derive().inputs[k].name for k in range(1)), [x.name for x in s.derive().states]
            (['drum_speed_ref'], ['drum_motor_speed'])
        """
        return add_winch(
            self._system, name, rope, radius=radius, inertia=inertia, drive=drive, torque=torque, speed=speed,
            speed_gain=speed_gain, motor_time_constant=motor_time_constant, point=point, base=base,
        )  # fmt: skip
