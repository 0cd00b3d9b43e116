"""symbody: a symbolic multibody preprocessor.

Describe a mechanism in a few lines of Python, derive atomized equations of
motion, analyse them numerically and export them as FMUs.

Example:
    >>> import symbody as sb
    >>> s = sb.System("pendulum")
    >>> g, l, m = s.parameter("g", 9.81), s.parameter("l", 1.0), s.parameter("m", 1.0)
    >>> th = s.coordinate("theta", 0.3)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> bob = s.particle("bob", s.point("P", s.origin, (0, -l, 0), base=B), m)
    >>> s.gravity((0, -g, 0))
    >>> eq = s.derive()
    >>> eq.M[0][0]
    m*l**2
"""

from ._version import __version__
from .equations import Equations, RedundantConstraintWarning
from .errors import ExportError, ModelError, NumericalError, SymbodyError
from .model.base import (
    AxisAngle,
    AxisRotation,
    Base,
    EulerAngles,
    EulerParameters,
    Rotation,
    RotationMatrix,
    Rx,
    Ry,
    Rz,
    SmallRotation,
)
from .model.point import Frame, Point
from .model.solid import Solid, inertia
from .model.system import System
from .model.vector import Tensor, Vector, cross, dot
from .symbolic.expr import (
    PI as pi,
)
from .symbolic.expr import (
    Abs,
    Expr,
    acos,
    asin,
    atan,
    atan2,
    cos,
    exp,
    log,
    sign,
    sin,
    sqrt,
    tan,
    tanh,
)

__all__ = [
    "System",
    "Equations",
    "Base",
    "Point",
    "Frame",
    "Vector",
    "Tensor",
    "Solid",
    "Rotation",
    "AxisRotation",
    "AxisAngle",
    "EulerAngles",
    "EulerParameters",
    "SmallRotation",
    "RotationMatrix",
    "Rx",
    "Ry",
    "Rz",
    "inertia",
    "dot",
    "cross",
    "Expr",
    "sin",
    "cos",
    "tan",
    "exp",
    "log",
    "sqrt",
    "tanh",
    "Abs",
    "sign",
    "asin",
    "acos",
    "atan",
    "atan2",
    "pi",
    "ModelError",
    "RedundantConstraintWarning",
    "NumericalError",
    "ExportError",
    "SymbodyError",
    "__version__",
]
