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

from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:  # the same names for type checkers and IDEs, which do not run __getattr__
    from .codegen.matlab_model import export_matlab
    from .equations import Equations, RedundantConstraintWarning
    from .errors import ExportError, ModelError, NumericalError, SymbodyError
    from .fmu.controller_spec import controller_fmu
    from .fmu.controllers import PID, InputShaper, StateFeedback
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
    from .model.bodies import Solid, inertia
    from .model.geometry import Frame, Point
    from .model.shapes import Axes, Box, Cylinder, Line, Mesh, Sphere
    from .model.system import System
    from .model.vector import Tensor, Vector, cross, dot
    from .numeric.model import NumericModel
    from .study import sweep
    from .symbolic.expr import PI as pi
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
    from .symbolic.nonsmooth import maximum, minimum, positive_part, step
    from .viz.animation import animate

# Public names and the module that defines each.  They are imported on first
# use (PEP 562), so that ``import symbody`` and commands that only simulate an
# FMU do not pay for SymPy and the modelling layers.
_LAZY = {
    "Equations": "equations",
    "RedundantConstraintWarning": "equations",
    "ExportError": "errors",
    "ModelError": "errors",
    "NumericalError": "errors",
    "SymbodyError": "errors",
    **dict.fromkeys(
        (
            "AxisAngle",
            "AxisRotation",
            "Base",
            "EulerAngles",
            "EulerParameters",
            "Rotation",
            "RotationMatrix",
            "Rx",
            "Ry",
            "Rz",
            "SmallRotation",
        ),
        "model.base",
    ),
    "Frame": "model.geometry",
    "Point": "model.geometry",
    **dict.fromkeys(("Axes", "Box", "Cylinder", "Line", "Mesh", "Sphere"), "model.shapes"),
    "animate": "viz.animation",
    "Solid": "model.bodies",
    "inertia": "model.bodies",
    "System": "model.system",
    "NumericModel": "numeric.model",
    "Tensor": "model.vector",
    "Vector": "model.vector",
    "cross": "model.vector",
    "dot": "model.vector",
    **dict.fromkeys(
        ("Abs", "Expr", "acos", "asin", "atan", "atan2", "cos", "exp", "log", "sign", "sin", "sqrt", "tan", "tanh"),
        "symbolic.expr",
    ),
}
_LAZY.update(dict.fromkeys(("maximum", "minimum", "positive_part", "step"), "symbolic.nonsmooth"))
_LAZY["export_matlab"] = "codegen.matlab_model"  # MATLAB / GNU Octave functions of a model
_LAZY["controller_fmu"] = "fmu.controller_spec"  # controllers as native FMUs
_LAZY.update(dict.fromkeys(("PID", "InputShaper", "StateFeedback"), "fmu.controllers"))
_LAZY["sweep"] = "study"  # parameter studies on dask (pandas and dask load only when a study runs)
_RENAMED = {"pi": ("symbolic.expr", "PI")}


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562)."""
    import importlib

    if name in _LAZY:
        module, attribute = _LAZY[name], name
    elif name in _RENAMED:
        module, attribute = _RENAMED[name]
    else:
        raise AttributeError(f"module 'symbody' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_RENAMED})


__all__ = [
    "maximum",
    "minimum",
    "positive_part",
    "step",
    "System",
    "Equations",
    "NumericModel",
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
    "Box",
    "Cylinder",
    "Sphere",
    "Line",
    "Axes",
    "Mesh",
    "animate",
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
    "sweep",
    "export_matlab",
    "controller_fmu",
    "StateFeedback",
    "PID",
    "InputShaper",
    "__version__",
]
