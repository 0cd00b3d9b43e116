"""Descriptors of the named quantities of a model.

The user manipulates the symbols (:class:`symbody.symbolic.expr.Expr`); these
records keep what the symbols stand for: default value, unit, description,
bounds, initial conditions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..symbolic.expr import Expr


@dataclass
class Parameter:
    """A constant of the model (tunable in the FMU)."""

    name: str
    symbol: Expr
    value: float
    unit: str | None = None
    description: str = ""
    min: float | None = None
    max: float | None = None


@dataclass
class Coordinate:
    """A generalized coordinate with its velocity and acceleration symbols."""

    name: str
    q: Expr
    dq: Expr
    ddq: Expr
    q0: float
    dq0: float
    unit: str | None = None
    description: str = ""
    aux: bool = False
    index: int = 0

    @property
    def velocity_unit(self) -> str | None:
        return None if self.unit is None else (f"{self.unit}/s" if self.unit else "1/s")

    @property
    def acceleration_unit(self) -> str | None:
        return None if self.unit is None else (f"{self.unit}/s2" if self.unit else "1/s2")


@dataclass
class Input:
    """An external action given at run time (actuator force, torque, excitation)."""

    name: str
    symbol: Expr
    value: float = 0.0
    unit: str | None = None
    description: str = ""
    min: float | None = None
    max: float | None = None


@dataclass
class Output:
    """A named expression of the state reported by simulations and FMUs."""

    name: str
    expr: Expr
    unit: str | None = None
    description: str = ""


@dataclass
class ConstraintRow:
    """One scalar constraint equation with its Lagrange multiplier symbol."""

    name: str
    expr: Expr
    kind: str  # "holonomic", "velocity" or "initial"
    multiplier: Expr | None = None
    group: str = ""


@dataclass
class Joint:
    """A joint made by a helper: its constraint rows and reaction components.

    ``reactions`` maps a reaction component name (``"Fx"``, ``"Mz"``, ``"tension"``)
    to ``(row name, factor, base name)``: the component equals ``factor * lambda_row``;
    the factor is a number or an expression of parameters (``2 * length`` for a
    distance joint).
    """

    name: str
    kind: str
    rows: list[str] = field(default_factory=list)
    reactions: dict[str, tuple[str, float | Expr, str | None]] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
