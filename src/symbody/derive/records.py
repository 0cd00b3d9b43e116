"""Metadata records copied from the model, so that the consumers of the equations never need it.

Example:
    >>> import symbody as sb
    >>> from symbody.derive.records import parameter_records
    >>> s = sb.System("spring"); k = s.parameter("k", 2.0, unit="N/m")
    >>> [(p.name, p.value, p.unit) for p in parameter_records(s)]
    [('k', 2.0, 'N/m')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..symbolic.expr import Expr

if TYPE_CHECKING:
    from ..model.system import System


@dataclass(frozen=True)
class ParameterInfo:
    """A parameter: its symbol, default value, unit, description and bounds."""

    name: str
    symbol: Expr
    value: float
    unit: str | None
    description: str
    min: float | None
    max: float | None


@dataclass(frozen=True)
class CoordinateInfo:
    """A coordinate: its position, velocity and acceleration symbols and initial values."""

    name: str
    q: Expr
    dq: Expr
    ddq: Expr
    q0: float
    dq0: float
    unit: str | None
    description: str
    aux: bool


@dataclass(frozen=True)
class InputInfo:
    """An input: its symbol, default value, unit, description and bounds.

    The three inputs of a motion input carry its name in ``signal`` and their ``motion`` role
    (``"position"``, ``"velocity"``, ``"acceleration"``); plain inputs have ``motion == ""``.
    """

    name: str
    symbol: Expr
    value: float
    unit: str | None
    description: str
    min: float | None
    max: float | None
    motion: str = ""
    signal: str = ""


@dataclass(frozen=True)
class StateInfo:
    """A first-order state: its symbol, start value, unit and description (its rate is ``Equations.rates``)."""

    name: str
    symbol: Expr
    x0: float
    unit: str | None
    description: str

    @property
    def rate_unit(self) -> str | None:
        return None if self.unit is None else (f"{self.unit}/s" if self.unit else "1/s")


@dataclass(frozen=True)
class OutputInfo:
    """An output: its expression, unit and description."""

    name: str
    expr: Expr
    unit: str | None
    description: str


@dataclass(frozen=True)
class ConstraintInfo:
    """A constraint row: its kind (holonomic, velocity, initial), group and multiplier."""

    name: str
    kind: str
    group: str
    multiplier: Expr | None


@dataclass(frozen=True)
class JointInfo:
    """A joint: its kind, constraint rows and reaction outputs."""

    name: str
    kind: str
    rows: tuple
    reactions: dict = field(default_factory=dict)


def parameter_records(system: System) -> list[ParameterInfo]:
    """The parameters of a system, in declaration order."""
    return [
        ParameterInfo(p.name, p.symbol, p.value, p.unit, p.description, p.min, p.max)
        for p in system.parameters.values()
    ]


def coordinate_records(system: System) -> list[CoordinateInfo]:
    """The coordinates of a system, in declaration order."""
    return [
        CoordinateInfo(c.name, c.q, c.dq, c.ddq, c.q0, c.dq0, c.unit, c.description, c.aux) for c in system.coordinates
    ]


def input_records(system: System) -> list[InputInfo]:
    """The inputs of a system, in declaration order."""
    return [
        InputInfo(u.name, u.symbol, u.value, u.unit, u.description, u.min, u.max, u.motion, u.signal)
        for u in system.inputs.values()
    ]


def state_records(system: System) -> list[StateInfo]:
    """The first-order states of a system, in declaration order."""
    return [StateInfo(x.name, x.symbol, x.x0, x.unit, x.description) for x in system.states.values()]


def output_records(system: System) -> list[OutputInfo]:
    """The outputs of a system, in declaration order."""
    return [OutputInfo(o.name, o.expr, o.unit, o.description) for o in system.outputs.values()]


def joint_records(system: System) -> list[JointInfo]:
    """The joints of a system with their rows and reactions."""
    return [JointInfo(j.name, j.kind, tuple(j.rows), dict(j.reactions)) for j in system.joints.values()]


__all__ = [
    "ConstraintInfo",
    "CoordinateInfo",
    "InputInfo",
    "JointInfo",
    "OutputInfo",
    "ParameterInfo",
    "StateInfo",
    "coordinate_records",
    "input_records",
    "joint_records",
    "output_records",
    "parameter_records",
    "state_records",
]
