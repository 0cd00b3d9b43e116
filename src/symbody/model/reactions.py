"""Reactions of tree joints: the wrench a body's parent exerts on its subtree.

With relative coordinates, a body's joint is no constraint and has no multiplier;
its reaction follows from the Newton-Euler equations of the *subtree* of the body
(the body and every solid whose point and base hang below the body's point and
base): the wrench the parent exerts on the subtree through the joint is::

    F = sum_S (m a_G - m g) - F_ext
    M_J = sum_S (dH_G/dt + r_JG x m (a_G - g)) - M_J,ext

over the solids ``S`` of the subtree, where ``F_ext`` and ``M_J,ext`` are the
loads acting on the subtree from outside it: forces and moments of
:meth:`~symbody.System.force`/:meth:`~symbody.System.torque`, spring-dampers
and viscous friction with one end outside, and the constraint forces of
joints written as constraints (:meth:`~symbody.System.revolute_joint`, ...) with
one side outside (multiplier terms).  This is the backward pass of the
recursive Newton-Euler algorithm (Featherstone, "Rigid Body Dynamics
Algorithms", Springer, 2008, sec. 5.3) written for one joint with the full
accelerations ``ddq``.

Loads given along coordinates (generalized forces, torsion springs,
Coulomb friction, plain constraint rows) act *in* the joints of those
coordinates: on the joint's own coordinates they are part of the transmitted
wrench (its component along the joint's free direction equals the generalized
force), inside the subtree or outside it they are internal.  A load of that
kind that couples coordinates of the subtree with coordinates of other joints
has no point of application: :class:`ModelError`; so is a unilateral contact or
stick-slip element acting on the subtree.  A reaction is the balance of the model
when it is taken: :func:`check_reactions` (run by the derivation) refuses one
taken before later solids, loads or joints.

Example:
    >>> import symbody as sb
    >>> s = sb.System("pend")
    >>> th = s.coordinate("th"); m = s.parameter("m", 1.0); l = s.parameter("l", 1.0)
    >>> g = s.parameter("g", 9.81)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> bob = s.particle("bob", s.point("P", s.origin, (l, 0, 0), B), m)
    >>> s.gravity((0, -g, 0))
    >>> pin = joint_reaction(s, bob, s.origin, B)
    >>> pin.force.components(B)
    (sin(th)*m*g - m*l*dth**2, m*ddth*l + cos(th)*m*g, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import time_derivative
from ..symbolic.expr import Expr, add, as_expr, div, mul, neg, sqrt, sub
from .base import Base, axis_index
from .bodies import Solid, resolve_solid
from .deprecation import formerly_positional
from .geometry import Point, relative_position, resolve_base, resolve_point
from .joints import AXES, DistanceJoint, Joint, SphericalJoint, UniversalJoint, _FramesJoint
from .kinematics import Kinematics
from .loads import Gravity, Load, ScalarForce, Wrench
from .quantities import declare_output_vector
from .registry import Facet, atomic
from .ropes import PathForce
from .springs import CoulombFriction, RelativeDamper, SpringDamper, TorsionSpringDamper
from .vector import Tensor, Vector

if TYPE_CHECKING:
    from .system import System


@dataclass(frozen=True)
class JointWrench:
    """The wrench the parent exerts on the subtree of ``solid``: ``force`` and ``moment`` about ``point``.

    ``components()`` gives ``(Fx, Fy, Fz, Mx, My, Mz)`` in ``base``; the vectors are
    usable in :meth:`~symbody.System.output_vector` and in any expression.
    """

    solid: Solid
    point: Point
    base: Base
    force: Vector
    moment: Vector
    subtree: tuple[Solid, ...]
    taken: tuple[int, ...] = ()  # the model's size when it was taken (see :func:`check_reactions`)

    def components(self) -> tuple[Expr, ...]:
        """``(Fx, Fy, Fz, Mx, My, Mz)`` in ``base``."""
        return self.force.components(self.base) + self.moment.components(self.base)


def _below(a: Any, b: Any) -> bool:
    """True if ``b`` is ``a`` or hangs below ``a`` (points or bases: ``depth`` and ``parent``)."""
    while b is not None and b.depth > a.depth:
        b = b.parent
    return b is a


class _Subtree:
    """Which solids, points and bases move with the subtree of one solid, and its coordinates."""

    def __init__(self, system: System, root: Solid):
        self.system = system
        self.kin: Kinematics = system.kinematics
        self.root = root
        solids = [s for s in system.solids.values() if s.has_inertia or s is root]
        self.solids = [s for s in solids if self._carries(s)]
        inside, outside, above = 0, 0, 0
        for s in solids:
            m = self._pose_mask(s.point, s.base)
            if s in self.solids:
                inside |= m
            else:
                outside |= m
                if _below(s.point, root.point) and _below(s.base, root.base):
                    above |= m
        self._check_shared(inside & outside & ~above)
        self.coords = inside & ~outside  # coordinates moving the subtree only
        self.own = self._pose_mask(root.point, root.base) & ~outside  # those of the root's joint

    def _carries(self, solid: Solid) -> bool:
        """True if ``solid`` hangs below the root: its point (and base, unless a particle) below the root's."""
        if not _below(self.root.point, solid.point):
            return False
        return self._carried(solid.point) if solid.is_particle else _below(self.root.base, solid.base)

    def _check_shared(self, shared: int) -> None:
        """Coordinates moving the subtree and bodies outside it other than its ancestors couple them."""
        if shared:
            names = [c.name for c in self.system.coordinates if c.q.mask & shared]
            raise ModelError(
                f"reaction of joint of solid {self.root.name!r}: coordinate(s) {', '.join(map(repr, names))} move "
                f"its subtree and bodies outside it that are not its ancestors: the forces of that coupling "
                "have no joint to pass through (model the bodies as a tree of relative coordinates)"
            )

    def _pose_mask(self, point: Point, base: Base) -> int:
        """The coordinate bits (``q``) of the position of ``point`` and the orientation of ``base``."""
        kin = self.kin
        m = 0
        for e in kin.position(point).components(self.system.ground_base):
            m |= e.mask
        for row in kin.rotation(base, self.system.ground_base):
            for e in row:
                m |= e.mask
        return m & _q_bits(self.system)

    def has_solid(self, solid: Solid | None) -> bool:
        return solid is not None and solid in self.solids

    def has_point(self, point: Point, what: str) -> bool:
        """True if ``point`` moves with the subtree; :class:`ModelError` if it moves partly with it."""
        if _below(self.root.point, point) and self._carried(point):
            return True
        self._check_outside(self._pose_mask(point, self.system.ground_base), what)
        return False

    def _carried(self, point: Point) -> bool:
        """True if every vector from the root's point down to ``point`` is fixed in a base of the subtree."""
        p: Point | None = point
        while p is not None and p is not self.root.point:
            if p.vector is not None and not all(_below(self.root.base, B) for B in p.vector.parts):
                return False
            p = p.parent
        return True

    def has_base(self, base: Base, what: str) -> bool:
        """True if ``base`` turns with the subtree; :class:`ModelError` if it turns partly with it."""
        if _below(self.root.base, base):
            return True
        self._check_outside(self._pose_mask(self.system.origin, base), what)
        return False

    def _check_outside(self, mask: int, what: str) -> None:
        if mask & self.coords:
            raise ModelError(
                f"reaction of joint of solid {self.root.name!r}: {what} is not attached to the subtree of "
                f"{self.root.name!r} but moves with its coordinates: attach it to a solid of the subtree"
            )

    def check_contact(self, mask: int, what: str) -> None:
        """A contact or stick-slip element (bits ``mask``) acts on bodies, not in a joint: only off the subtree
        or inside it."""
        if mask & self.coords and not (mask & self.coords == mask and not mask & self.own):
            raise ModelError(
                f"reaction of joint of solid {self.root.name!r}: {what} acts on the subtree of "
                f"{self.root.name!r} along coordinates and has no point of application: joint reactions of "
                "models with such contacts are not available"
            )

    def check_coordinate_load(self, mask: int, what: str) -> None:
        """A load along coordinates (bits ``mask``) must act in one joint's coordinates or off the subtree."""
        mine = mask & self.coords
        if not mine or mask & self.coords == mask and not mask & self.own:
            return  # outside the subtree, or inside it (internal)
        if mask & ~self.own == 0:
            return  # along the joint's own coordinates: transmitted by the joint
        names = ", ".join(repr(c.name) for c in self.system.coordinates if c.q.mask & mask)
        raise ModelError(
            f"reaction of joint of solid {self.root.name!r}: {what} acts along coordinates {names}, of the "
            f"joint of {self.root.name!r} and of other joints: it has no point of application; write it as "
            "a force or torque between bodies (System.force, System.torque with reaction, ...)"
        )


def _q_bits(system: System) -> int:
    m = 0
    for c in system.coordinates:
        m |= c.q.mask
    return m


def _coordinate_bits(system: System, *exprs: Expr) -> int:
    """The coordinate bits (``q``) of the coordinates whose ``q`` or ``dq`` appear in ``exprs``."""
    m = 0
    for e in exprs:
        for c in system.coordinates:
            if e.mask & (c.q.mask | c.dq.mask):
                m |= c.q.mask
    return m


class _Accumulator:
    """Sums the wrench (force, moment about ``J``) of the subtree's inertia minus the loads acting on it."""

    def __init__(self, tree: _Subtree, J: Point):
        self.tree = tree
        self.kin = tree.kin
        self.J = J
        self.force = Vector.zero(self.kin)
        self.moment = Vector.zero(self.kin)

    def add(self, F: Vector | None, at: Point, M: Vector | None = None) -> None:
        if F is not None and not F.is_zero:
            self.force = self.force + F
            self.moment = self.moment + relative_position(self.kin, self.J, at).cross(F)
        if M is not None and not M.is_zero:
            self.moment = self.moment + M

    def load(self, F: Vector | None, at: Point, M: Vector | None = None) -> None:
        """An external load on the subtree: subtracted."""
        self.add(None if F is None else -F, at, None if M is None else -M)

    def inertia(self, solid: Solid, g: Vector) -> None:
        kin = self.kin
        m = solid.mass
        a = kin.acceleration(solid.point) - g
        F = a * m
        if solid.is_particle:
            self.add(F, solid.point)
            return
        w, al = kin.omega(solid.base), kin.alpha(solid.base)
        h = Vector(solid.base, *solid.first_moment)
        I = Tensor._make(solid.base, solid.inertia_origin)
        F = F + al.cross(h) + w.cross(w.cross(h))
        self.add(F, solid.point, (I @ al) + w.cross(I @ w) + h.cross(a))


def _material_velocity(kin: Kinematics, point: Point, solid: Solid | None) -> Vector:
    if solid is None or solid.point is point or solid.mass is None:
        return kin.velocity(point)
    return kin.velocity(solid.point) + kin.omega(solid.base).cross(relative_position(kin, solid.point, point))


def _on_side(tree: _Subtree, solid: Solid | None, point: Point, what: str) -> bool:
    if solid is not None:
        return solid.mass is not None and tree.has_solid(solid)
    return tree.has_point(point, what)


def _apply_load(acc: _Accumulator, load: Load) -> None:
    """Subtract from ``acc`` what ``load`` exerts on the subtree from outside it."""
    tree, kin, system = acc.tree, acc.kin, acc.tree.system
    what = f"load {load.name!r}"
    if isinstance(load, Gravity):
        return  # in the inertia terms
    if isinstance(load, Wrench):
        for solid, sign in ((load.solid, 1), (load.reaction, -1)):
            if solid is None and sign < 0:
                continue
            if _on_side(tree, solid, load.point, what):
                F = None if load.force is None else load.force * sign
                turns = solid is not None and not solid.is_particle  # a particle takes no moment
                M = None if load.moment is None or not turns else load.moment * sign
                acc.load(F, load.point, M)
        return
    if isinstance(load, SpringDamper):
        r = relative_position(kin, load.p1, load.p2)
        d = sqrt(r.norm2())
        f = add(neg(mul(load.k, sub(d, load.l0))), load.actuator)
        if not load.c.is_zero:
            vrel = _material_velocity(kin, load.p2, load.solid2) - _material_velocity(kin, load.p1, load.solid1)
            f = sub(f, mul(load.c, div(r.dot(vrel), d)))
        F2 = r * div(f, d)  # on p2, pushing the points apart for f > 0
        if _on_side(tree, load.solid2, load.p2, what):
            acc.load(F2, load.p2)
        if _on_side(tree, load.solid1, load.p1, what):
            acc.load(-F2, load.p1)
        return
    if isinstance(load, RelativeDamper):
        wrel = kin.omega(load.base2) - kin.omega(load.base1)
        if load.axis is not None:
            T = load.axis * neg(mul(load.c, wrel.dot(load.axis)))
        else:
            T = wrel * neg(load.c)
        if tree.has_base(load.base2, what):
            acc.load(None, acc.J, T)
        if tree.has_base(load.base1, what):
            acc.load(None, acc.J, -T)
        return
    if isinstance(load, PathForce):  # ropes, slings, buffers, cylinders: forces along segments between points
        for F, point in load.point_forces(kin):
            if _on_side(tree, None, point, what):
                acc.load(F, point)
        if load.extra_rate is not None:
            tree.check_coordinate_load(_coordinate_bits(system, load.extra_rate), what)
        return
    if isinstance(load, (ScalarForce, CoulombFriction)):
        tree.check_coordinate_load(_coordinate_bits(system, load.rate), what)
        return
    if isinstance(load, TorsionSpringDamper):
        rate = time_derivative(load.angle, load.ctx, accelerations=False)
        tree.check_coordinate_load(_coordinate_bits(system, load.angle, rate), what)
        return
    raise ModelError(f"reaction of joint of solid {tree.root.name!r}: {what} of kind {load.kind!r} is not supported")


def _apply_joint(acc: _Accumulator, joint: Joint) -> None:
    """Subtract the constraint forces (multiplier terms) ``joint`` exerts on the subtree from outside it."""
    tree, kin, system = acc.tree, acc.kin, acc.tree.system
    what = f"joint {joint.name!r}"
    p1, p2 = (resolve_point(system, p) for p in joint._points)  # type: ignore[attr-defined]
    in1, in2 = tree.has_point(p1, what + " point1"), tree.has_point(p2, what + " point2")
    lam = {r: system._multipliers[r] for r in joint.rows}
    F2 = Vector.zero(kin)  # force on the side of point2, at point2
    if isinstance(joint, DistanceJoint):
        F2 = relative_position(kin, p1, p2) * mul(as_expr(-2), lam[joint.name])
    else:
        if isinstance(joint, SphericalJoint):
            b_pos = resolve_base(system, joint._base)
        else:
            b_pos = resolve_base(system, joint._bases[0])  # type: ignore[attr-defined]
        for i in range(3):
            row = f"{joint.name}_{AXES[i]}"
            if row in lam:
                F2 = F2 - b_pos.unit(i) * lam[row]
    if in1 != in2:
        acc.load(F2 if in2 else -F2, p2 if in2 else p1)
    if not isinstance(joint, _FramesJoint):
        return
    b1, b2 = joint.bases(system)
    M2 = Vector.zero(kin)  # moment on the side of base2
    for row, lam_r in lam.items():
        pair = _dot_row(joint, row, b1, b2)
        if pair is not None:
            a2, c1 = pair  # row = a2 . c1, a2 fixed in base2, c1 in base1: moment on base2 -lam a2 x c1
            M2 = M2 - a2.cross(c1) * lam_r
    t1, t2 = tree.has_base(b1, what + " base1"), tree.has_base(b2, what + " base2")
    if t1 != t2:
        acc.load(None, acc.J, M2 if t2 else -M2)


def _dot_row(joint: _FramesJoint, row: str, b1: Base, b2: Base) -> tuple[Vector, Vector] | None:
    """``(a2, c1)`` of an orientation row ``a2 . c1`` of ``joint`` (``None`` for a position row)."""
    name = joint.name
    if isinstance(joint, UniversalJoint):
        return (b2.unit(joint.axis2), b1.unit(joint.axis)) if row == f"{name}_perp" else None
    if row.startswith(f"{name}_a"):  # revolute, cylindrical: axis of base2 normal to axis i of base1
        return b2.unit(axis_index(joint.axis)), b1.unit(row[-1])
    if row.startswith(f"{name}_r"):  # prismatic: axis i of base2 normal to axis k of base1
        return b2.unit(row[-2]), b1.unit(row[-1])
    return None


def _is_point_joint(joint: Joint) -> bool:
    return isinstance(joint, (SphericalJoint, _FramesJoint, DistanceJoint))


def reaction_wrench(system: System, solid: Solid, point: Point, base: Base) -> JointWrench:
    """The :class:`JointWrench` of ``solid``'s tree joint about ``point``, components in ``base``."""
    tree = _Subtree(system, solid)
    acc = _Accumulator(tree, point)
    g = Vector.zero(system.kinematics)
    for load in system.loads:
        if isinstance(load, Gravity):
            g = g + load.g
    for s in tree.solids:
        acc.inertia(s, g)
    for load in system.loads:
        _apply_load(acc, load)
    point_joints = [j for j in system.joints.values() if _is_point_joint(j)]
    grouped = {r for j in point_joints for r in j.rows}
    for j in point_joints:
        _apply_joint(acc, j)
    for row in system.constraints:
        if row.kind != "initial" and row.name not in grouped:
            tree.check_coordinate_load(_coordinate_bits(system, row.expr), f"constraint row {row.name!r}")
    for contact in system.unilaterals:
        tree.check_contact(_coordinate_bits(system, contact.gap), f"contact {contact.name!r}")
    for element in system.frictions:
        tree.check_contact(_coordinate_bits(system, element.rate), f"stick-slip friction {element.name!r}")
    return JointWrench(solid, point, base, acc.force, acc.moment, tuple(tree.solids), _model_size(system))


def _model_size(system: System) -> tuple[int, ...]:
    """How many solids, loads, constraint rows, joints, contacts and friction elements the model has."""
    rows = [r for r in system.constraints if r.kind != "initial"]  # assembly rows exert no force
    parts = (system.solids, system.loads, rows, system.joints, system.unilaterals, system.frictions)
    return tuple(len(x) for x in parts)


def check_reactions(system: System) -> None:
    """:class:`ModelError` if a joint reaction was taken before solids, loads or joints were added.

    A reaction is the balance of the model as it was when :func:`joint_reaction` ran;
    the derivation calls this check so that no reaction silently misses a later load.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("late")
        >>> th = s.coordinate("th")
        >>> bar = s.solid("bar", s.origin, s.base("B", s.ground_base, sb.Rz(th)), mass=1.0, com=(1, 0, 0))
        >>> _ = s.joint_reaction(bar)
        >>> s.gravity((0, -9.81, 0))
        >>> try:
        ...     check_reactions(s)
        ... except ModelError as e:
        ...     print(e)  # doctest: +ELLIPSIS
        the joint reaction of solid 'bar' was taken before the model's last solids, loads, ...
    """
    now = _model_size(system)
    for w in system.reactions:
        if w.taken != now:
            raise ModelError(
                f"the joint reaction of solid {w.solid.name!r} was taken before the model's last solids, loads, "
                "constraints or joints were added: call joint_reaction after them"
            )


def joint_reaction(
    system: System,
    solid: Solid | str,
    point: Point | str | None = None,
    base: Base | str | None = None,
    name: str | None = None,
    unit: tuple[str | None, str | None] = ("N", "N*m"),
) -> JointWrench:
    """The wrench the parent exerts on the subtree of ``solid`` through its tree joint.

    The body of :meth:`symbody.System.joint_reaction` (documented there, with an example).
    """
    body = resolve_solid(system, solid, "solid of a joint reaction")
    if body is None or body.mass is None:
        raise ModelError("a joint reaction needs a solid of the model (the ground has no joint)")
    J = body.point if point is None else resolve_point(system, point, f"point of the reaction of {body.name!r}")
    B = body.base if base is None else resolve_base(system, base, f"base of the reaction of {body.name!r}")
    w = reaction_wrench(system, body, J, B)
    system.reactions.append(w)
    if name is not None:
        declare_output_vector(system, f"{name}_F", w.force, B, unit[0], f"force on {body.name!r} from its parent")
        declare_output_vector(system, f"{name}_M", w.moment, B, unit[1], f"moment on {body.name!r} about {J.name!r}")
    return w


class ReactionsMixin(Facet):
    """The methods of :class:`symbody.System` that output the reaction wrench a body receives from its parent."""

    @atomic
    @formerly_positional("name", "unit")
    def joint_reaction(
        self,
        solid: Solid | str,
        point: Point | str | None = None,
        base: Base | str | None = None,
        *,
        name: str | None = None,
        unit: tuple[str | None, str | None] = ("N", "N*m"),
    ) -> JointWrench:
        """The wrench the parent exerts on the subtree of ``solid`` through its tree joint.

        Args:
            solid: the body (or its name) whose joint transmits the wrench; its subtree is
                every solid whose point and base hang below the body's point and base.
            point: the moment's reference point (default: the body's point, its joint).
            base: the base of the components (default: the body's base).
            name: if given, also declare the outputs ``<name>_F_x ... <name>_F_z`` and
                ``<name>_M_x ... <name>_M_z`` (components in ``base``).
            unit: units of the force and moment outputs.

        The expressions depend on ``q``, ``dq``, ``ddq`` (and on the multipliers of
        constraint joints acting on the subtree); outputs that use them are evaluated
        with the accelerations of the solved dynamics.  See the module docstring for the
        loads counted as acting through the joint.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("pend")
            >>> th = s.coordinate("th"); m = s.parameter("m", 2.0); g = s.parameter("g", 9.81)
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> bob = s.particle("bob", s.point("P", s.origin, (0, -1, 0), B), m)
            >>> s.gravity((0, -g, 0))
            >>> pin = s.joint_reaction(bob, s.origin, B, name="pin")
            >>> s.outputs["pin_F_y"].expr  # along the rod (l = 1): m (l dth^2 + g cos th)
            m*dth**2 + cos(th)*m*g
        """
        return joint_reaction(self._system, solid, point, base, name, unit)


__all__ = ["ReactionsMixin", "JointWrench", "check_reactions", "joint_reaction", "reaction_wrench"]
