"""Descriptors of the named quantities of a model.

The user manipulates the symbols (:class:`symbody.symbolic.expr.Expr`); these
records keep what the symbols stand for: default value, unit, description,
bounds, initial conditions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import ModelError
from ..symbolic.expr import Expr
from ..units import check_unit

# characters XML 1.0 cannot carry, even as references (modelDescription.xml must stay parseable)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def check_text(text: object, what: str) -> str:
    r"""Free text of a model object (a description), or :class:`ModelError` naming ``what``.

    Any string is accepted except characters that an XML 1.0 document cannot hold
    (control characters other than tab, line feed and carriage return; lone
    surrogates; U+FFFE, U+FFFF): the text goes into ``modelDescription.xml``.
    Generated C receives only a sanitized copy in comments.  ``None`` is ``""``.

    Example:
        >>> check_text("bob's mass <kg> & \"more\"", "parameter 'm' description")
        'bob\'s mass <kg> & "more"'
        >>> try:
        ...     check_text("bell\x07", "parameter 'm' description")
        ... except ModelError as e:
        ...     print(e)
        parameter 'm' description: contains the control character U+0007, which modelDescription.xml cannot hold
    """
    if text is None:
        return ""
    if not isinstance(text, str):
        raise ModelError(f"{what}: expected a string, got {text!r}")
    bad = _NOT_XML.search(text)
    if bad:
        code = ord(bad.group())
        kind = "surrogate" if 0xD800 <= code <= 0xDFFF else "noncharacter" if code > 0xFFFD else "control character"
        raise ModelError(f"{what}: contains the {kind} U+{code:04X}, which modelDescription.xml cannot hold")
    return text


def check_unit_and_description(unit: object, description: object, what: str) -> tuple[str | None, str]:
    """The checked ``(unit, description)`` of the model object ``what`` (see :func:`check_text`).

    Example:
        >>> check_unit_and_description("m/s", "trolley speed", "output 'v'")
        ('m/s', 'trolley speed')
    """
    return check_unit(unit, what), check_text(description, f"{what} description")


@dataclass
class Parameter:
    """A constant of the model (tunable in the FMU).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("pm")
        >>> _ = s.parameter("m", 2.0, unit="kg", description="mass")
        >>> s.parameters["m"]
        Parameter(name='m', symbol=m, value=2.0, unit='kg', description='mass', min=None, max=None)
    """

    name: str
    symbol: Expr
    value: float
    unit: str | None = None
    description: str = ""
    min: float | None = None
    max: float | None = None


@dataclass
class Coordinate:
    """A generalized coordinate with its velocity and acceleration symbols.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("cd")
        >>> c = s.coordinate_of(s.coordinate("th", 0.1, unit="rad"))
        >>> c.q, c.dq, c.ddq, c.q0, c.acceleration_unit
        (th, dth, ddth, 0.1, 'rad/s2')
    """

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
    """An external action given at run time (actuator force, torque, excitation).

    The three inputs of a motion input (:meth:`symbody.System.motion_input`) carry its name in
    ``signal`` and their ``motion`` role: ``"position"`` (``z``), ``"velocity"`` (``dz``) or
    ``"acceleration"`` (``ddz``); plain inputs have ``motion == ""``.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("in")
        >>> _ = s.input("F", unit="N", min=-10, max=10)
        >>> s.inputs["F"].min, s.inputs["F"].max
        (-10, 10)
        >>> _ = s.motion_input("heave", unit="m")
        >>> s.inputs["ddheave"].motion, s.inputs["ddheave"].signal, s.inputs["ddheave"].unit
        ('acceleration', 'heave', 'm/s2')
    """

    name: str
    symbol: Expr
    value: float = 0.0
    unit: str | None = None
    description: str = ""
    min: float | None = None
    max: float | None = None
    motion: str = ""
    signal: str = ""


#: the roles of the three inputs of a motion input, in their order in ``System.inputs``
MOTION_ROLES = ("position", "velocity", "acceleration")


@dataclass
class State:
    """A first-order state ``x`` with its rate ``dx/dt`` (``None`` until :meth:`symbody.System.rate` gives it).

    Example:
        >>> import symbody as sb
        >>> s = sb.System("lag")
        >>> u = s.input("u"); T = s.parameter("T", 0.5, unit="s")
        >>> x = s.state("x", 1.0)
        >>> s.rate(x, (u - x) / T)
        >>> s.states["x"].x0, s.states["x"].rate
        (1.0, (u - x)/T)
    """

    name: str
    symbol: Expr
    x0: float
    unit: str | None = None
    description: str = ""
    rate: Expr | None = None

    @property
    def rate_unit(self) -> str | None:
        return None if self.unit is None else (f"{self.unit}/s" if self.unit else "1/s")


@dataclass
class Output:
    """A named expression of the state reported by simulations and FMUs.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("out")
        >>> x = s.coordinate("x")
        >>> _ = s.output("speed", s.dt(x), unit="m/s")
        >>> s.outputs["speed"].expr, s.outputs["speed"].unit
        (dx, 'm/s')
    """

    name: str
    expr: Expr
    unit: str | None = None
    description: str = ""


@dataclass
class ConstraintRow:
    """One scalar constraint equation with its Lagrange multiplier symbol.

    Example:
        >>> import symbody as sb
        >>> s = sb.System("cr")
        >>> x = s.coordinate("x")
        >>> s.constraint("stop", x - 1)[0]
        ConstraintRow(name='stop', expr=x - 1, kind='holonomic', multiplier=lambda_stop, group='stop')
    """

    name: str
    expr: Expr
    kind: str  # "holonomic", "velocity" or "initial"
    multiplier: Expr | None = None
    group: str = ""
