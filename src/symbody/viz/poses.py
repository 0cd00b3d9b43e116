"""Evaluating a geometry document: the pose of every shape at every sample.

The document's program (:mod:`symbody.codegen.geometry`) is read as data: each
expression is parsed with :mod:`ast` and accepted only if it holds numbers,
known names, arithmetic and the listed functions, so a geometry file from an
FMU of unknown origin cannot run code.  Evaluation is vectorized over the
samples with numpy.

Example:
    >>> import numpy as np, symbody as sb
    >>> from symbody.codegen.geometry import geometry_document
    >>> s = sb.System("p"); th = s.coordinate("theta", 0.3)
    >>> P = s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -2, 0))
    >>> _ = s.particle("bob", P, 1.0)
    >>> poses = evaluate_poses(geometry_document(s.derive()), {"time": np.zeros(2), "theta": np.array([0, np.pi / 2])})
    >>> np.round(poses.anchors["P@xyz"][0], 6)
    array([[ 0., -2.,  0.],
           [ 2., -0.,  0.]])
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import SymbodyError


class GeometryError(SymbodyError, ValueError):
    """A geometry document is malformed or cannot be evaluated with the given data."""


FUNCTIONS = {
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "exp": np.exp,
    "log": np.log,
    "tanh": np.tanh,
    "abs": np.abs,
    "sign": np.sign,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "atan2": np.arctan2,
    "sqrt": np.sqrt,
}
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_UNARY = (ast.USub, ast.UAdd)


def _check(node: ast.AST, names: set[str], text: str) -> None:
    """Raise GeometryError unless ``node`` is plain arithmetic on numbers, ``names`` and FUNCTIONS."""
    if isinstance(node, ast.Expression):
        _check(node.body, names, text)
    elif isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
            raise GeometryError(f"geometry expression {text!r}: constant {node.value!r} is not a number")
    elif isinstance(node, ast.Name):
        if node.id not in names:
            raise GeometryError(f"geometry expression {text!r}: unknown name {node.id!r}")
    elif isinstance(node, ast.BinOp) and isinstance(node.op, _BINOPS):
        _check(node.left, names, text)
        _check(node.right, names, text)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNARY):
        _check(node.operand, names, text)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if node.keywords:
            raise GeometryError(f"geometry expression {text!r}: keyword arguments are not allowed")
        for a in node.args:
            _check(a, names, text)
    else:
        raise GeometryError(f"geometry expression {text!r}: {type(node).__name__} is not allowed")


def compile_expression(text: str, names: set[str]):
    """Compile one checked expression (a code object to evaluate with numpy functions)."""
    if not isinstance(text, str) or len(text) > 100_000:
        raise GeometryError(f"geometry expression {str(text)[:60]!r}: expected a string of reasonable length")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise GeometryError(f"geometry expression {text!r}: syntax error") from None
    _check(tree, names, text)
    for node in ast.walk(tree):  # float arithmetic only: an integer power tower cannot run for ages
        if isinstance(node, ast.Constant):
            node.value = float(node.value)  # type: ignore[arg-type]  # numbers only, checked above
    return compile(tree, "<geometry>", "eval")


def _run(code, env: dict, text: str):
    try:
        return eval(code, {"__builtins__": {}}, env)  # noqa: S307 - checked AST, numbers and numpy only
    except (OverflowError, ZeroDivisionError, TypeError, ValueError) as e:
        raise GeometryError(f"geometry expression {text!r}: {e}") from None


@dataclass
class Poses:
    """Evaluated geometry: ``anchors[key] = (positions nt x 3, rotations nt x 3 x 3)``; shape data by index.

    Attributes:
        anchors: anchor key -> (positions, rotation matrices anchor base -> ground).
        offsets: per shape, its constant offset (3) and rotation (3 x 3), at the first sample.
        sizes: per shape, its sizes (floats).
    """

    anchors: dict[str, tuple[np.ndarray, np.ndarray]]
    offsets: list[tuple[np.ndarray, np.ndarray]]
    sizes: list[dict[str, float]]

    def shape_pose(self, doc: Mapping, index: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions (nt x 3) and rotations (nt x 3 x 3, shape -> ground) of shape ``index``."""
        shape = doc["shapes"][index]
        p, R = self.anchors[shape["anchor"]]
        off, Roff = self.offsets[index]
        return p + R @ off, R @ Roff


def _full(value, n: int) -> np.ndarray:
    arr = np.asarray(value, dtype=float)
    return np.broadcast_to(arr, (n,)).astype(float) if arr.ndim == 0 else arr


def evaluate_poses(
    doc: Mapping, columns: Mapping[str, np.ndarray], parameters: Mapping[str, float] | None = None
) -> Poses:
    """Evaluate a geometry document over a result.

    Args:
        doc: the geometry document.
        columns: ``"time"`` and each coordinate by name -> arrays of one length.
        parameters: parameter values by name; a parameter not given is taken from ``columns`` when
            recorded there (``fmpy.simulate_fmu(..., output=[...])``), else from the document.

    Raises:
        GeometryError: malformed document, a missing coordinate, or non-finite poses.
    """
    if doc.get("format") != "symbody-geometry" or doc.get("version") != 1:
        raise GeometryError("not a symbody geometry document (version 1)")
    t = np.asarray(columns["time"], dtype=float)
    n = len(t)
    env: dict[str, object] = dict(FUNCTIONS)
    params = dict(parameters or {})
    for name, info in doc["symbols"].items():
        kind = info.get("kind")
        if kind == "time":
            env[name] = t
        elif kind == "coordinate":
            if name not in columns:
                raise GeometryError(f"the result has no coordinate {name!r}, which the geometry needs")
            env[name] = np.asarray(columns[name], dtype=float)
        elif kind == "input":  # a motion input: recorded in the result, else held at its start value
            env[name] = np.asarray(columns[name], dtype=float) if name in columns else float(info["value"])
        elif kind == "parameter":  # given > recorded in the result > the document's default
            if name in params:
                env[name] = float(params[name])
            elif name in columns:
                env[name] = np.asarray(columns[name], dtype=float)
            else:
                env[name] = float(info["value"])
        else:
            raise GeometryError(f"geometry symbol {name!r} has unknown kind {kind!r}")
    names = set(env)
    for name, text in doc["program"]:
        if name in FUNCTIONS or not str(name).isidentifier():
            raise GeometryError(f"geometry temporary {name!r} is not a valid name")
        names.add(name)
        env[name] = _run(compile_expression(text, names), env, text)

    def vec(texts, shape) -> np.ndarray:
        vals = [_full(_run(compile_expression(x, names), env, x), n) for x in texts]
        return np.stack(vals, axis=-1).reshape((n, *shape)) if vals else np.zeros((n, *shape))

    with np.errstate(all="ignore"):
        anchors = {k: (vec(a["position"], (3,)), vec(a["rotation"], (3, 3))) for k, a in doc["anchors"].items()}
        offsets, sizes = [], []
        for sh in doc["shapes"]:
            offsets.append((vec(sh["offset"], (3,))[0], vec(sh["rotation"], (3, 3))[0]))
            sizes.append({k: float(vec([v], (1,))[0, 0]) for k, v in sh.get("sizes", {}).items()})
            bad = [k for k, v in sizes[-1].items() if not (np.isfinite(v) and v > 0)]
            if bad:
                value = sizes[-1][bad[0]]
                raise GeometryError(f"shape {sh.get('name')!r}: {bad[0]} = {value:g} is not a positive size")
            for key in (sh["anchor"], sh.get("end")):
                if key is not None and key not in anchors:
                    raise GeometryError(f"shape {sh.get('name')!r}: unknown anchor {key!r}")
    for k, (p, R) in anchors.items():
        if not (np.all(np.isfinite(p)) and np.all(np.isfinite(R))):
            raise GeometryError(f"the pose of {k!r} is not finite in this result")
    return Poses(anchors, offsets, sizes)


__all__ = ["evaluate_poses", "Poses", "GeometryError", "compile_expression", "FUNCTIONS"]
