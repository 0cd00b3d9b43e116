"""Visual geometry attached to a model: boxes, cylinders, spheres, lines (ropes), meshes.

A shape is drawn in a frame that moves with the mechanism: the frame of a
solid, a base (at the origin), a point (ground orientation) or a
``(point, base)`` pair, shifted by a constant ``offset`` (components in that
base) and turned by a constant ``rotation``.  A :class:`Line` joins two points
(a rope, a link drawn as a segment).  Sizes and offsets may use parameters.

:func:`describe_geometry` turns the shapes into a :class:`GeometryInfo`: for
every anchor frame, its position and rotation in the ground base as
expressions of the coordinates, parameters and time.  A model without shapes
gets a default view that still explains it: the points joined along the point
tree, a sphere at each centre of mass sized by the cube root of its mass, and
the ground axes.

Example:
    >>> import symbody as sb
    >>> s = sb.System("pendulum"); th = s.coordinate("theta", 0.3)
    >>> B = s.base("B", s.ground_base, sb.Rz(th))
    >>> P = s.point("P", s.origin, sb.Vector(B, 0, -1, 0))
    >>> bob = s.particle("bob", P, 1.0)
    >>> _ = s.shape(sb.Sphere(0.1), on=P, color="red")
    >>> _ = s.shape(sb.Line(s.origin, P), color="grey")
    >>> g = describe_geometry(s)
    >>> [sh.kind for sh in g.shapes], sorted(g.anchors)
    (['sphere', 'line'], ['O@xyz', 'P@xyz'])
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError
from ..symbolic.evaluate import evaluate, evaluate_many
from ..symbolic.expr import Expr, num
from .base import Base, Rotation, as_matrix3
from .bodies import Solid
from .deprecation import formerly_positional
from .geometry import Frame, Point
from .loads import Gravity
from .registry import Facet, atomic

if TYPE_CHECKING:
    from .system import System

MAX_MESH_TRIANGLES = 20000

COLORS = {
    "black": "#000000",
    "white": "#ffffff",
    "grey": "#808080",
    "gray": "#808080",
    "silver": "#c0c0c0",
    "red": "#d62728",
    "green": "#2ca02c",
    "blue": "#1f77b4",
    "orange": "#ff7f0e",
    "yellow": "#e6c619",
    "purple": "#9467bd",
    "brown": "#8c564b",
    "pink": "#e377c2",
    "cyan": "#17becf",
    "olive": "#bcbd22",
    "steelblue": "#4682b4",
}
_CYCLE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def color_hex(color: Any, default_index: int = 0) -> str:
    """``'#rrggbb'`` of a colour given as a name, ``'#rgb'``/``'#rrggbb'`` or an RGB triple in ``[0, 1]``.

    Example:
        >>> color_hex("red"), color_hex((0, 0.5, 1)), color_hex(None, 1)
        ('#d62728', '#0080ff', '#ff7f0e')
    """
    if color is None:
        return _CYCLE[default_index % len(_CYCLE)]
    if isinstance(color, str):
        c = COLORS.get(color.lower(), color.lower())
        if c.startswith("#") and len(c) == 4 and all(ch in "0123456789abcdef" for ch in c[1:]):
            c = "#" + "".join(ch * 2 for ch in c[1:])
        if len(c) == 7 and c.startswith("#") and all(ch in "0123456789abcdef" for ch in c[1:]):
            return c
        raise ModelError(f"unknown colour {color!r}: use a name ({', '.join(sorted(COLORS))}), '#rrggbb' or (r, g, b)")
    try:
        rgb = [float(x) for x in color]
    except (TypeError, ValueError):
        raise ModelError(f"unknown colour {color!r}") from None
    if len(rgb) != 3 or not all(0.0 <= x <= 1.0 for x in rgb):
        raise ModelError(f"colour {color!r}: give three values in [0, 1]")
    return "#" + "".join(f"{round(x * 255):02x}" for x in rgb)


# ---------------------------------------------------------------------------
# shape kinds
# ---------------------------------------------------------------------------


class Shape:
    """A visual shape; its sizes may be numbers or expressions of parameters.

    Example:
        >>> box = Box(1, 1, 1)
        >>> isinstance(box, Shape), box.kind
        (True, 'box')
    """

    kind = "shape"

    def sizes(self) -> dict[str, Any]:
        """Named sizes (numbers or parameter expressions)."""
        return {}


class Box(Shape):
    """A box of edge lengths ``(lx, ly, lz)`` centred on its frame.

    Example:
        >>> Box(1.0, 0.2, 0.1).sizes()
        {'lx': 1.0, 'ly': 0.2, 'lz': 0.1}
    """

    kind = "box"

    def __init__(self, lx: Any, ly: Any, lz: Any):
        self.size = (lx, ly, lz)

    def sizes(self) -> dict[str, Any]:
        return {"lx": self.size[0], "ly": self.size[1], "lz": self.size[2]}


class Cylinder(Shape):
    """A cylinder of ``radius`` and ``length`` centred on its frame, its axis along ``axis`` (x, y or z).

    Example:
        >>> c = Cylinder(0.05, 2.0, axis="x")
        >>> c.sizes(), c.axis
        ({'radius': 0.05, 'length': 2.0}, 'x')
    """

    kind = "cylinder"

    def __init__(self, radius: Any, length: Any, axis: str = "z"):
        if axis not in ("x", "y", "z"):
            raise ModelError(f"Cylinder: axis must be 'x', 'y' or 'z', not {axis!r}")
        self.radius, self.length, self.axis = radius, length, axis

    def sizes(self) -> dict[str, Any]:
        return {"radius": self.radius, "length": self.length}


class Sphere(Shape):
    """A sphere of ``radius`` centred on its frame.

    Example:
        >>> Sphere(0.1).sizes()
        {'radius': 0.1}
    """

    kind = "sphere"

    def __init__(self, radius: Any):
        self.radius = radius

    def sizes(self) -> dict[str, Any]:
        return {"radius": self.radius}


class Line(Shape):
    """A straight line (a rope, a link) between two points, drawn ``width`` pixels wide.

    Example:
        >>> rope = Line("O", "hook", width=3)
        >>> rope.start, rope.end, rope.width
        ('O', 'hook', 3.0)
    """

    kind = "line"

    def __init__(self, start: Point | str, end: Point | str, width: float = 2.0):
        if not isinstance(width, (int, float)) or not width > 0:
            raise ModelError(f"Line: width must be a positive number of pixels, not {width!r}")
        self.start, self.end, self.width = start, end, float(width)


class Axes(Shape):
    """The three axes of a frame (x red, y green, z blue), each ``length`` long.

    Example:
        >>> Axes(0.5).sizes()
        {'length': 0.5}
    """

    kind = "axes"

    def __init__(self, length: Any = 1.0):
        self.length = length

    def sizes(self) -> dict[str, Any]:
        return {"length": self.length}


class Mesh(Shape):
    """A triangle mesh read from an STL (binary or ASCII) or OBJ file, scaled by ``scale``.

    The triangles are read when the shape is created and travel with the model
    (and its FMUs), so the file is not needed to animate.
    """

    kind = "mesh"

    def __init__(self, path: str | Path, scale: float = 1.0):
        if not isinstance(scale, (int, float)) or not scale > 0:
            raise ModelError(f"Mesh {str(path)!r}: scale must be a positive number, not {scale!r}")
        self.path = Path(path)
        self.scale = float(scale)
        self.vertices, self.faces = read_mesh(self.path)


def read_mesh(path: Path) -> tuple[list[list[float]], list[list[int]]]:
    """Vertices and triangles of an STL or OBJ file.

    Raises:
        ModelError: the file is missing, of another type, malformed or too large.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ModelError(f"mesh {str(path)!r}: {e.strerror or e}") from None
    suffix = Path(path).suffix.lower()
    try:
        if suffix == ".stl":
            tris = _stl_triangles(data)
            vertices = [list(v) for tri in tris for v in tri]
            faces = [[3 * i, 3 * i + 1, 3 * i + 2] for i in range(len(tris))]
        elif suffix == ".obj":
            vertices, faces = _obj_mesh(data.decode("utf-8", errors="replace"))
        else:
            raise ModelError(f"mesh {str(path)!r}: unknown type (use .stl or .obj)")
    except (ValueError, IndexError, struct.error) as e:
        raise ModelError(f"mesh {str(path)!r}: malformed file ({e})") from None
    if not faces:
        raise ModelError(f"mesh {str(path)!r}: no triangles")
    if len(faces) > MAX_MESH_TRIANGLES:
        raise ModelError(f"mesh {str(path)!r}: {len(faces)} triangles, more than {MAX_MESH_TRIANGLES}; simplify it")
    if not all(math.isfinite(x) for v in vertices for x in v):
        raise ModelError(f"mesh {str(path)!r}: non-finite coordinates")
    return vertices, faces


def _stl_triangles(data: bytes) -> list[tuple[tuple[float, ...], ...]]:
    if len(data) >= 84:
        n = struct.unpack_from("<I", data, 80)[0]
        if len(data) == 84 + 50 * n:
            return [
                tuple(struct.unpack_from("<3f", data, 84 + 50 * i + 12 + 12 * k) for k in range(3)) for i in range(n)
            ]
    text = data.decode("ascii", errors="replace")
    if not text.lstrip().startswith("solid"):
        raise ValueError("neither binary nor ASCII STL")
    lines = [line.split() for line in text.splitlines()]
    verts = [tuple(float(x) for x in parts[1:4]) for parts in lines if parts and parts[0] == "vertex"]
    if len(verts) % 3:
        raise ValueError("vertex count is not a multiple of 3")
    return [tuple(verts[i : i + 3]) for i in range(0, len(verts), 3)]


def _obj_mesh(text: str) -> tuple[list[list[float]], list[list[int]]]:
    vertices: list[list[float]] = []
    faces: list[list[int]] = []
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            vertices.append([float(x) for x in parts[1:4]])
        elif parts[0] == "f":
            idx = [int(p.split("/")[0]) for p in parts[1:]]
            idx = [i - 1 if i > 0 else len(vertices) + i for i in idx]
            if any(not 0 <= i < len(vertices) for i in idx):
                raise ValueError(f"face index out of range in {line.strip()!r}")
            faces.extend([idx[0], idx[k], idx[k + 1]] for k in range(1, len(idx) - 1))  # fan triangulation
    return vertices, faces


# ---------------------------------------------------------------------------
# attaching shapes to a system
# ---------------------------------------------------------------------------


@dataclass
class ShapeAttachment:
    """A shape placed on a model: anchor (point and base), constant offset and rotation, colour."""

    name: str
    shape: Shape
    point: Point
    base: Base
    offset: tuple[Expr, Expr, Expr]
    rotation: tuple  # 3x3 of Expr: shape components -> anchor base components
    color: str
    opacity: float = 1.0
    end: Point | None = None  # second point of a Line


def _anchor(system: System, on: Any, what: str) -> tuple[Point, Base]:
    if on is None:
        return system.origin, system.ground_base
    if isinstance(on, Solid):
        system._solid(on, what)
        return on.point, on.base
    if isinstance(on, Frame):
        return system._frame_args(on, None, what)
    if isinstance(on, Base):
        return system.origin, system._base(on, what)
    if isinstance(on, Point):
        return system._point(on, what), system.ground_base
    if isinstance(on, tuple) and len(on) == 2:
        return system._point(on[0], what), system._base(on[1], what)
    if isinstance(on, str):
        for table in (system.solids, system.frames, system.points):
            if on in table:
                return _anchor(system, table[on], what)
        if on in system.bases:
            return _anchor(system, system.bases[on], what)
    raise ModelError(f"{what}: cannot attach to {on!r}; give a solid, frame, base, point or (point, base)")


def _constant_rotation(system: System, rotation: Any, what: str) -> tuple:
    one = tuple(tuple(num(1 if i == j else 0) for j in range(3)) for i in range(3))
    if rotation is None:
        return one
    if isinstance(rotation, Rotation):
        rotation.bind(system)
        R = rotation.matrix()
    else:
        try:
            rows = [list(r) for r in rotation]
        except TypeError:
            raise ModelError(f"{what}: rotation must be sb.Rx/Ry/Rz(...) or a 3x3 matrix, got {rotation!r}") from None
        if len(rows) != 3 or any(len(r) != 3 for r in rows):
            raise ModelError(f"{what}: rotation must be a 3x3 matrix")
        R = as_matrix3([[system._expr(x, f"{what} rotation") for x in r] for r in rows])
    system._require(f"the rotation of {what}", [list(r) for r in R], ("parameter",))
    return tuple(tuple(x for x in row) for row in R)


def attach_shape(
    system: System,
    shape: Shape,
    on: Any = None,
    offset: Any = (0, 0, 0),
    rotation: Any = None,
    color: Any = None,
    opacity: float = 1.0,
    name: str | None = None,
) -> ShapeAttachment:
    """Attach a visual shape (:class:`symbody.Box`, ``Cylinder``, ``Sphere``, ``Line``, ``Axes``, ``Mesh``).

    The body of :meth:`symbody.System.shape` (documented there, with an example).
    """
    if not isinstance(shape, Shape):
        raise ModelError(f"shape: expected sb.Box, sb.Cylinder, sb.Sphere, sb.Line, sb.Axes or sb.Mesh, got {shape!r}")
    name = name or f"{shape.kind}{len(system.shapes) + 1}"
    what = f"shape {name!r}"
    if any(a.name == name for a in system.shapes):
        raise ModelError(f"duplicate shape name {name!r}")
    if not isinstance(opacity, (int, float)) or not 0.0 <= float(opacity) <= 1.0:
        raise ModelError(f"{what}: opacity must be a number in [0, 1], not {opacity!r}")
    end = None
    if isinstance(shape, Line):
        point, base = system._point(shape.start, f"{what} start"), system.ground_base
        end = system._point(shape.end, f"{what} end")
    else:
        point, base = _anchor(system, on, what)
    off = system._vector(offset, base, f"{what} offset").components(base)
    system._require(f"the offset of {what}", list(off), ("parameter",))
    defaults = system.default_values()
    for key, value in shape.sizes().items():
        e = system._expr(value, f"{what} {key}")
        system._require(f"the size {key!r} of {what}", e, ("parameter",))
        v = _value(e, defaults)
        if not v > 0:
            raise ModelError(f"{what}: {key} must be positive (it is {v:g} at the default parameters)")
    R = _constant_rotation(system, rotation, what)
    Rv = np.array([[_value(x, defaults) for x in row] for row in R])
    if not (np.allclose(Rv.T @ Rv, np.eye(3), atol=1e-8) and np.linalg.det(Rv) > 0):
        raise ModelError(f"{what}: its rotation is not a proper rotation matrix at the default parameters")
    att = ShapeAttachment(name, shape, point, base, off, R, color_hex(color, len(system.shapes)), float(opacity), end)
    system.shapes.append(att)
    return att


# ---------------------------------------------------------------------------
# the geometry of a system as expressions
# ---------------------------------------------------------------------------


@dataclass
class ShapeInfo:
    """One shape, resolved: its anchor(s) by key, offset, rotation and sizes as expressions."""

    name: str
    kind: str
    anchor: str
    offset: tuple
    rotation: tuple  # flat 9, row-major
    sizes: dict
    color: str
    opacity: float = 1.0
    end: str | None = None  # anchor of the second point of a line
    extra: dict = field(default_factory=dict)  # axis of a cylinder, mesh data, line width, mass role


@dataclass
class GeometryInfo:
    """Shapes and the poses of their anchors: ``anchors[key] = (position[3], rotation[9])``.

    ``rotation`` maps the anchor base's components to the ground base's (row-major).
    """

    anchors: dict[str, tuple[tuple, tuple]]
    shapes: list[ShapeInfo]
    default_view: bool
    up: str = "z"


def _anchor_key(point: Point, base: Base) -> str:
    return f"{point.name}@{base.name}"


def _pose(system: System, point: Point, base: Base) -> tuple[tuple, tuple]:
    pos = system.kinematics.position(point).components(system.ground_base)
    R = system.kinematics.rotation(base, system.ground_base)
    return tuple(pos), tuple(x for row in R for x in row)


def describe_geometry(system: System) -> GeometryInfo:
    """The shapes of ``system`` (or its default view) with their anchors' poses as expressions."""
    attachments = list(system.shapes) or _default_view(system)
    anchors: dict[str, tuple[tuple, tuple]] = {}
    shapes = []

    def key_of(point: Point, base: Base) -> str:
        k = _anchor_key(point, base)
        if k not in anchors:
            anchors[k] = _pose(system, point, base)
        return k

    for a in attachments:
        extra: dict[str, Any] = {}
        s = a.shape
        if isinstance(s, Cylinder):
            extra["axis"] = s.axis
        if isinstance(s, Mesh):
            extra.update(vertices=s.vertices, faces=s.faces, scale=s.scale)
        if isinstance(s, Line):
            extra["width"] = s.width
        sizes = {k: system._expr(v) for k, v in s.sizes().items()}
        shapes.append(
            ShapeInfo(
                a.name,
                s.kind,
                key_of(a.point, a.base),
                tuple(a.offset),
                tuple(x for row in a.rotation for x in row),
                sizes,
                a.color,
                a.opacity,
                key_of(a.end, system.ground_base) if a.end is not None else None,
                extra,
            )
        )
    for p in system.points.values():  # every point, for trails
        key_of(p, system.ground_base)
    return GeometryInfo(anchors, shapes, default_view=not system.shapes, up=_up_axis(system))


def _up_axis(system: System) -> str:
    """The ground axis opposite to gravity (``"z"`` without gravity or when it is not along an axis)."""
    values = system.default_values()
    for load in system.loads:
        if isinstance(load, Gravity):
            g = [_value(c, values) for c in load.g.components(system.ground_base)]
            if not all(math.isfinite(x) for x in g):
                continue
            k = max(range(3), key=lambda i: abs(g[i]))
            if g[k] < 0 and all(abs(g[i]) <= 1e-9 * abs(g[k]) for i in range(3) if i != k):
                return "xyz"[k]
    return "z"


def _value(e: Expr, values: dict) -> float:
    """``e`` at the defaults, NaN where it cannot be evaluated there (the drawing only needs a size)."""
    try:
        return float(evaluate(e, values))
    except (ArithmeticError, ValueError, TypeError):
        return math.nan


def _values(exprs: list[Expr], values: dict) -> list[float]:
    """The values of ``exprs`` at the defaults in one walk of their shared atoms (:func:`_value` of each where one
    of them cannot be evaluated)."""
    try:
        return [float(x) for x in evaluate_many(exprs, values)]
    except (ArithmeticError, ValueError, TypeError, KeyError):
        return [_value(e, values) for e in exprs]


def _default_view(system: System) -> list[ShapeAttachment]:
    """Lines along the point tree, spheres at the centres of mass (radius ~ mass^(1/3)), ground axes."""
    values = system.default_values()
    ground = system.ground_base
    flat = _values([c for p in system.points.values() for c in system.kinematics.position(p).components(ground)],
                   values)  # fmt: skip
    positions = [flat[i : i + 3] for i in range(0, len(flat), 3)]
    norms = [math.sqrt(sum(x * x for x in p)) for p in positions]
    extent = max((r for r in norms if math.isfinite(r)), default=0.0)
    extent = extent if math.isfinite(extent) and extent > 0 else 1.0
    out: list[ShapeAttachment] = []
    one = tuple(tuple(num(1 if i == j else 0) for j in range(3)) for i in range(3))
    zero = (num(0), num(0), num(0))
    out.append(ShapeAttachment("ground_axes", Axes(0.25 * extent), system.origin, ground, zero, one, "#000000"))
    for p in system.points.values():
        if p.parent is not None:
            link = ShapeAttachment(f"link_{p.name}", Line(p.parent, p), p.parent, ground, zero, one, "#606060", end=p)
            out.append(link)
    masses = {s.name: _value(s.mass, values) for s in system.solids.values() if not s.mass.is_zero}
    heaviest = max((m for m in masses.values() if math.isfinite(m)), default=0.0)
    for k, s in enumerate(system.solids.values()):
        m = masses.get(s.name, 0.0)
        if heaviest <= 0 or not math.isfinite(m) or m <= 0:
            continue
        radius = 0.06 * extent * (m / heaviest) ** (1.0 / 3.0)
        com = s.com
        out.append(ShapeAttachment(f"com_{s.name}", Sphere(radius), s.point, s.base, com, one, color_hex(None, k)))
    return out


class ShapesMixin(Facet):
    """The methods of :class:`symbody.System` that attach visual geometry."""

    @atomic
    @formerly_positional("offset", "rotation", "color", "opacity", "name")
    def shape(
        self,
        shape: Shape,
        on: Any = None,
        *,
        offset: Any = (0, 0, 0),
        rotation: Any = None,
        color: Any = None,
        opacity: float = 1.0,
        name: str | None = None,
    ) -> ShapeAttachment:
        """Attach a visual shape (:class:`symbody.Box`, ``Cylinder``, ``Sphere``, ``Line``, ``Axes``, ``Mesh``).

        ``on`` is a solid, frame, base, point or ``(point, base)`` (default: the ground frame);
        ``offset`` (components in that base) and ``rotation`` (``sb.Rx(...)`` or a 3x3 matrix) are
        constant.  Shapes only draw the model (``symbody animate``); they do not change its equations.

        Example:
            >>> import symbody as sb
            >>> s = sb.System("sh")
            >>> th = s.coordinate("th")
            >>> B = s.base("B", s.ground_base, sb.Rz(th))
            >>> arm = s.solid("arm", s.origin, B, mass=1)
            >>> s.shape(sb.Box(1, 0.1, 0.1), on=arm, offset=(0.5, 0, 0)).name
            'box1'
        """
        return attach_shape(self._system, shape, on, offset, rotation, color, opacity, name)


__all__ = [
    "ShapesMixin",
    "Shape",
    "Box",
    "Cylinder",
    "Sphere",
    "Line",
    "Axes",
    "Mesh",
    "ShapeAttachment",
    "ShapeInfo",
    "GeometryInfo",
    "attach_shape",
    "describe_geometry",
    "color_hex",
    "read_mesh",
]
