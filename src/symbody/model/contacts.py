"""Unilateral contacts: a gap that must stay non-negative, with impacts and a compressive force.

``system.unilateral(name, gap, restitution=e)`` declares a :class:`Unilateral`.  The gap is any
expression of the coordinates, parameters and time (a distance, an angle, ``l_rope - |r|``); the
simulation keeps it ``>= 0``:

- while the gap is open no force acts;
- when it closes with an approach velocity an impact happens (Newton's restitution law, the
  normal velocity is reversed times ``e``; see :mod:`symbody.numeric.impacts`);
- when it closes softly (or ``e = 0``) the contact stays closed as a constraint ``gap = 0`` with a
  compressive force along the gap's gradient, until that force would turn negative.

``c.force`` is the contact force (a symbol usable in outputs): ``>= 0``, zero while open, and the
generalized force it exerts is ``force * d gap / dq``.

The derivation (:func:`contact_equations`) gives, for each contact, the atomized blocks the
simulation and the code generators need: the gap ``g``, its Jacobian row ``g_q``, ``beta`` with
``g_q dq = beta`` at rest relative to the gap (``beta = -dg/dt``) and ``gamma`` with
``g_q ddq = gamma`` when ``d2g/dt2 = 0``, the same convention as the bilateral constraint rows.

Example:
    >>> import symbody as sb
    >>> s = sb.System("ball")
    >>> y = s.coordinate("y", 1.0)
    >>> _ = s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    >>> s.gravity((0, -9.81, 0))
    >>> floor = s.unilateral("floor", y, restitution=0.5)
    >>> floor
    Unilateral('floor': gap y, restitution 0.5)
    >>> [str(e) for e in s.derive().contacts[0].gap_q]
    ['1']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ModelError
from ..symbolic.calculus import jacobian, time_derivative
from ..symbolic.expr import Expr, as_expr, neg
from .deprecation import formerly_positional
from .expressions import explicit_rate
from .friction import FrictionInfo
from .registry import Facet, atomic

if TYPE_CHECKING:
    from .system import System

#: symbol kinds a gap may depend on
GAP_KINDS = ("parameter", "coordinate", "time", "motion input")


@dataclass(frozen=True)
class Unilateral:
    """A unilateral contact of a model (see the module docstring).

    Attributes:
        name: the contact's name.
        gap: the gap expression, kept ``>= 0``.
        restitution: Newton's coefficient of restitution (a number or an expression of parameters).
        force: the compressive contact force symbol (``>= 0``), usable in outputs.
    """

    name: str
    gap: Expr
    restitution: Expr
    force: Expr

    def __repr__(self) -> str:
        return f"Unilateral({self.name!r}: gap {self.gap}, restitution {self.restitution})"


@dataclass(frozen=True)
class ContactInfo:
    """The derived blocks of one unilateral contact (no reference back to the model).

    Attributes:
        name: the contact's name.
        gap: ``g(q, t)``.
        gap_q: ``dg/dq`` (one entry per coordinate).
        beta: ``-dg/dt`` (so that ``g_q dq - beta`` is the gap rate).
        gamma: ``-(d/dt (g_q dq) + dg_t/dt)`` without accelerations (``g_q ddq - gamma`` is ``d2g/dt2``).
        restitution: Newton's coefficient of restitution, an expression of parameters.
        force: the contact force symbol (``>= 0``), as it appears in outputs.
    """

    name: str
    gap: Expr
    gap_q: tuple[Expr, ...]
    beta: Expr
    gamma: Expr
    restitution: Expr
    force: Expr


def unilateral_contacts(system: System) -> list[Unilateral]:
    """The unilateral contacts declared on ``system`` (in declaration order)."""
    return list(system.unilaterals)


def add_unilateral(system: System, name: str, gap: Any, restitution: Any = 0.0) -> Unilateral:
    """Unilateral contact keeping ``gap(q, t) >= 0``, with impacts and a compressive force while closed.

    The body of :meth:`symbody.System.unilateral` (documented there, with an example).
    """
    force_name = f"force_{name}"
    system._check_name(name, "unilateral contact")
    system._check_name(force_name, "contact force")
    g = system._expr(gap, f"gap of unilateral contact {name!r}")
    system._require(f"the gap of unilateral contact {name!r}", g, GAP_KINDS)
    if not any(g.depends_on(c.q) for c in system.coordinates):
        raise ModelError(f"unilateral contact {name!r}: the gap {g} contains no coordinate")
    e = system._expr(restitution, f"restitution of unilateral contact {name!r}")
    system._require(f"the restitution of unilateral contact {name!r}", e, ("parameter",))
    e0 = system._default_value(e)
    if not 0.0 <= e0 <= 1.0:
        raise ModelError(f"unilateral contact {name!r}: the restitution is {e0:g}; it must lie in [0, 1]")
    system._claim(name, "unilateral contact")
    system._claim(force_name, "contact force")
    c = Unilateral(name, g, e, system.ctx.symbol(force_name, "multiplier"))
    system.unilaterals.append(c)
    return c


def contact_equations(system: System) -> list[ContactInfo]:
    """The derived blocks of every unilateral contact of ``system`` (see the module docstring)."""
    q = [c.q for c in system.coordinates]
    out = []
    for c in unilateral_contacts(system):
        g_q = jacobian([c.gap], q)[0]
        gdot = time_derivative(c.gap, system.ctx, accelerations=False)
        gamma = neg(time_derivative(gdot, system.ctx, accelerations=False))
        out.append(
            ContactInfo(c.name, c.gap, tuple(g_q), neg(explicit_rate(system, c.gap)), gamma, c.restitution, c.force)
        )
    return out


class DerivedEvents(Protocol):
    """What :func:`event_force_symbols` reads of derived equations (a :class:`symbody.Equations`)."""

    contacts: list[ContactInfo]
    frictions: list[FrictionInfo]


def event_force_symbols(eq: DerivedEvents) -> list[Expr]:
    """The contact forces, then the stick-slip friction forces, of derived equations: the symbols that
    follow the multipliers in the ``lam`` argument of generated functions."""
    return [c.force for c in eq.contacts] + [f.force for f in eq.frictions]


def contact_blocks(contacts: list[ContactInfo], nq: int) -> dict[str, tuple[list[Expr], tuple[int, ...]]]:
    """The contacts' blocks for ``symbody.codegen.evaluators.evaluator(eq, ..., extra=...)``: ``gap``,
    ``gap_q``, ``gap_beta``, ``gap_gamma`` and ``restitution`` (one row per contact)."""
    k = len(contacts)
    return {
        "gap": ([c.gap for c in contacts], (k,)),
        "gap_q": ([e for c in contacts for e in c.gap_q], (k, nq)),
        "gap_beta": ([c.beta for c in contacts], (k,)),
        "gap_gamma": ([c.gamma for c in contacts], (k,)),
        "restitution": ([as_expr(c.restitution) for c in contacts], (k,)),
    }


class ContactsMixin(Facet):
    """The methods of :class:`symbody.System` that add unilateral contacts."""

    @atomic
    @formerly_positional("restitution")
    def unilateral(self, name: str, gap: Any, *, restitution: Any = 0.0) -> Unilateral:
        """Unilateral contact keeping ``gap(q, t) >= 0``, with impacts (Newton's ``restitution``) and a
        compressive force ``c.force`` while closed (``System.unilateral``; see the module docstring).

        Example:
            >>> import symbody as sb
            >>> s = sb.System("ball"); y = s.coordinate("y", 1.0)
            >>> _ = s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
            >>> floor = s.unilateral("floor", y - 0.1, restitution=0.8)
            >>> s.output("N", floor.force)
            force_floor

        Raises:
            ModelError: a taken or invalid name, a gap that depends on velocities or inputs or on no
                coordinate, a restitution that is not an expression of parameters or lies outside ``[0, 1]``.
        """
        return add_unilateral(self._system, name, gap, restitution)


__all__ = [
    "ContactsMixin",
    "event_force_symbols",
    "Unilateral",
    "ContactInfo",
    "add_unilateral",
    "contact_equations",
    "contact_blocks",
    "unilateral_contacts",
]
