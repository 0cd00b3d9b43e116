"""Coulomb friction with stick and slip: :class:`StickSlip`.

``system.stick_slip(name, along, normal, mu, mu_static=None)`` declares dry friction on a sliding
rate ``v`` (a coordinate's velocity, or the rate of an expression ``s(q, t)``, as for
``coulomb_friction``).  ``normal`` is the normal force pressing the surfaces together: any
expression of the state, parameters, inputs and time, and also of constraint multipliers and
contact forces (``c.force`` of a unilateral contact: a block pressed on a surface by its weight).

The simulation switches between two modes (:mod:`symbody.numeric.events`):

- slip: the force ``-mu |N| sign(v)`` acts along the rate, the sign held through the mode;
- stick: the rate is held at zero as a constraint, with the friction force it needs, while that
  force stays within ``mu_static |N|``.

Slip turns into stick when the rate reaches zero and the force to hold it is within the static
limit, stick turns into slip when the force reaches the static limit.  ``f.force`` is the friction
force along the rate (a symbol usable in outputs).

Example:
    >>> import math, symbody as sb
    >>> s = sb.System("block"); x = s.coordinate("x")
    >>> _ = s.particle("b", s.point("P", s.origin, (x, 0, 0)), 1.0)
    >>> s.stick_slip("floor_friction", x, normal=9.81, mu=0.3)
    StickSlip('floor_friction': along dx, normal 9.81, mu 0.3, static 0.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ModelError
from ..symbolic.calculus import jacobian, subs_many, time_derivative
from ..symbolic.expr import ZERO, Expr, neg
from .deprecation import formerly_positional
from .registry import Facet, atomic

if TYPE_CHECKING:
    from .system import System

#: symbol kinds a normal force may depend on
NORMAL_KINDS = (
    "parameter",
    "coordinate",
    "velocity",
    "time",
    "input",
    "multiplier",
    "motion input",
    "motion velocity",
    "motion acceleration",
    "state",
)


@dataclass(frozen=True)
class StickSlip:
    """Coulomb friction with stick and slip modes (see the module docstring)."""

    name: str
    rate: Expr
    normal: Expr
    mu: Expr
    mu_static: Expr
    force: Expr

    def __repr__(self) -> str:
        return (
            f"StickSlip({self.name!r}: along {self.rate}, normal {self.normal}, mu {self.mu}, static {self.mu_static})"
        )


@dataclass(frozen=True)
class FrictionInfo:
    """Derived blocks of one stick-slip element: the rate is ``A dq - beta``, ``A ddq - gamma`` its derivative."""

    name: str
    A: tuple[Expr, ...]
    beta: Expr
    gamma: Expr
    normal: Expr
    mu: Expr
    mu_static: Expr
    force: Expr


def add_stick_slip(system: System, name: str, along: Any, normal: Any, mu: Any, mu_static: Any = None) -> StickSlip:
    """Coulomb friction with stick and slip modes on the rate of ``along``, pressed by ``normal`` (which may be

    The body of :meth:`symbody.System.stick_slip` (documented there, with an example).
    """
    force_name = f"force_{name}"
    system._check_name(name, "friction")
    system._check_name(force_name, "friction force")
    rate = system._rate(along, name)
    n = system._expr(normal, f"normal force of friction {name!r}")
    system._require(f"the normal force of friction {name!r}", n, NORMAL_KINDS)
    coeffs = []
    for what, value in (("mu", mu), ("mu_static", mu if mu_static is None else mu_static)):
        e = system._expr(value, f"{what} of friction {name!r}")
        system._require(f"the coefficient {what} of friction {name!r}", e, ("parameter",))
        if system._default_value(e) < 0:
            raise ModelError(f"friction {name!r}: the coefficient {what} is negative")
        coeffs.append(e)
    if system._default_value(coeffs[1]) < system._default_value(coeffs[0]):
        raise ModelError(f"friction {name!r}: the static coefficient is below the sliding one")
    system._claim(name, "friction")
    system._claim(force_name, "friction force")
    f = StickSlip(name, rate, n, coeffs[0], coeffs[1], system.ctx.symbol(force_name, "multiplier"))
    system.frictions.append(f)
    return f


def friction_equations(system: System) -> list[FrictionInfo]:
    """The derived blocks of every stick-slip element of ``system``."""
    dq = [c.dq for c in system.coordinates]
    zero = {v: ZERO for v in dq}
    out = []
    for f in system.frictions:
        A = jacobian([f.rate], dq)[0]
        beta = neg(subs_many([f.rate], zero)[0])
        gamma = neg(time_derivative(f.rate, system.ctx, accelerations=False))
        out.append(FrictionInfo(f.name, tuple(A), beta, gamma, f.normal, f.mu, f.mu_static, f.force))
    return out


def friction_blocks(frictions: list[FrictionInfo], nq: int) -> dict[str, tuple[list[Expr], tuple[int, ...]]]:
    """The blocks for ``symbody.codegen.evaluators.evaluator(eq, ..., extra=...)``: ``fr_A``, ``fr_beta``,
    ``fr_gamma``, ``fr_mu``, ``fr_mu_static`` (``fr_normal`` apart: it may need the multipliers)."""
    k = len(frictions)
    return {
        "fr_A": ([e for f in frictions for e in f.A], (k, nq)),
        "fr_beta": ([f.beta for f in frictions], (k,)),
        "fr_gamma": ([f.gamma for f in frictions], (k,)),
        "fr_mu": ([f.mu for f in frictions], (k,)),
        "fr_mu_static": ([f.mu_static for f in frictions], (k,)),
    }


class FrictionMixin(Facet):
    """The methods of :class:`symbody.System` that add stick-slip friction."""

    @atomic
    @formerly_positional("mu_static")
    def stick_slip(self, name: str, along: Any, normal: Any, mu: Any, *, mu_static: Any = None) -> StickSlip:
        """Coulomb friction with stick and slip modes on the rate of ``along``, pressed by ``normal`` (which may be
        a contact force or a multiplier): ``System.stick_slip``; see the module docstring.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("block"); x, y = s.coordinate("x"), s.coordinate("y")
            >>> _ = s.particle("b", s.point("P", s.origin, (x, y, 0)), 2.0)
            >>> floor = s.unilateral("floor", y)
            >>> s.stick_slip("friction", x, normal=floor.force, mu=0.3, mu_static=0.4).force
            force_friction

        Raises:
            ModelError: a taken name, a rate not linear in the velocities, a normal force of accelerations,
                friction coefficients that are not expressions of parameters or are negative, or
                ``mu_static < mu``.
        """
        return add_stick_slip(self._system, name, along, normal, mu, mu_static)


__all__ = ["FrictionMixin", "StickSlip", "FrictionInfo", "add_stick_slip", "friction_equations", "friction_blocks"]
