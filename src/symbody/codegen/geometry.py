"""The geometry document: shapes and the exact program that computes their poses.

An FMU carries this document (``resources/geometry.json`` for FMI 2,
``extra/org.symbody.geometry/geometry.json`` for FMI 3) so that it can be
animated without its model file and without any extra FMU variable: every
importer sees the same FMU, and the poses are computed from variables every
symbody FMU already has (the coordinates, which are outputs, the parameters
and time).

Format (``"format": "symbody-geometry"``, ``"version": 1``)::

    symbols   name -> {"kind": "time" | "coordinate" | "parameter" | "input", "value": default}
              (the FMU variable of the same name; time is the result's ``time``; an input is the
              position of a motion input, taken from the result where it is recorded)
    program   [[temporary, expression], ...] evaluated in order
    anchors   key -> {"position": [3 expressions], "rotation": [9 expressions, row-major]}
              (rotation maps the anchor base's components to the ground base's)
    shapes    [{"name", "kind", "anchor", "end", "offset": [3], "rotation": [9],
                "sizes": {name: expression}, "color", "opacity", "axis", "width",
                "vertices", "faces", "scale"}, ...]

Expressions use numbers, the symbols, the temporaries, ``+ - * / **`` and the
functions ``sin cos tan exp log tanh abs sign asin acos atan atan2 sqrt``:
the atomized kinematics printed as they are, so the poses are exact.

Example:
    >>> import symbody as sb
    >>> s = sb.System("p"); th = s.coordinate("theta", 0.3)
    >>> P = s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -1, 0))
    >>> _ = s.particle("bob", P, 1.0)
    >>> doc = geometry_document(s.derive())
    >>> doc["anchors"]["P@xyz"]["position"]
    ['sin(theta)', '-cos(theta)', '0']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import ExportError
from ..symbolic.expr import Expr, free_symbols, symbol_name
from ..symbolic.plan import ExportPlan
from ..symbolic.printing import Printer

if TYPE_CHECKING:
    from ..equations import Equations

FORMAT = "symbody-geometry"
VERSION = 1


def geometry_document(eq: Equations) -> dict:
    """The geometry document (a JSON-ready dict) of derived equations with a ``geometry`` field.

    Example (see also the module's):
        >>> from symbody.models import pendulum
        >>> doc = geometry_document(pendulum().derive())
        >>> doc["format"], doc["symbols"]["theta"]["kind"], [sh["kind"] for sh in doc["shapes"]]
        ('symbody-geometry', 'coordinate', ['axes', 'line', 'sphere'])
    """
    geo = eq.geometry
    flat: list[Expr] = []
    for pos, rot in geo.anchors.values():
        flat.extend(pos)
        flat.extend(rot)
    for sh in geo.shapes:
        flat.extend(sh.offset)
        flat.extend(sh.rotation)
        flat.extend(sh.sizes.values())
    symbols = sorted(free_symbols(flat), key=symbol_name)
    plan = ExportPlan({"geometry": flat}, {s: symbol_name(s) for s in symbols}, prefix="_g", trig="fold")
    printer = Printer()
    program = [[name, plan.rhs_text(e, printer)] for name, e in plan.assignments()]
    # the plan's outputs, not ``flat``: only they are written in terms of the plan's temporaries (``flat``
    # printed with them would repeat every shared sub-expression the optimizer rewrote, exponentially in chains)
    text = iter([plan.rhs_text(e, printer, top=False) for e in plan.outputs["geometry"]])

    def take(n: int) -> list[str]:
        return [next(text) for _ in range(n)]

    anchors = {k: {"position": take(3), "rotation": take(9)} for k in geo.anchors}
    shapes = []
    for sh in geo.shapes:
        item: dict[str, Any] = {"name": sh.name, "kind": sh.kind, "anchor": sh.anchor}
        if sh.end is not None:
            item["end"] = sh.end
        item["offset"] = take(3)
        item["rotation"] = take(9)
        item["sizes"] = dict(zip(sh.sizes, take(len(sh.sizes))))
        item["color"] = sh.color
        item["opacity"] = sh.opacity
        item.update(sh.extra)
        shapes.append(item)
    return {
        "format": FORMAT,
        "version": VERSION,
        "model": eq.name,
        "default_view": geo.default_view,
        "up": geo.up,
        "symbols": _symbol_table(eq, symbols),
        "program": program,
        "anchors": anchors,
        "shapes": shapes,
    }


def _symbol_table(eq: Equations, symbols: list[Expr]) -> dict[str, dict]:
    params = {p.symbol: p for p in eq.parameters}
    coords = {c.q: c for c in eq.coordinates}
    motions = {u.symbol: u for u in eq.inputs if u.motion == "position"}
    table: dict[str, dict] = {}
    for s in symbols:
        name = symbol_name(s)
        if s is eq.t:
            table[name] = {"kind": "time"}
        elif s in coords:
            table[name] = {"kind": "coordinate", "value": coords[s].q0}
        elif s in params:
            table[name] = {"kind": "parameter", "value": params[s].value}
        elif s in motions:
            table[name] = {"kind": "input", "value": motions[s].value}
        else:  # the model layer allows only these kinds in geometry
            raise ExportError(
                f"geometry depends on {s.name!r}, which is not a coordinate, parameter, motion input or time"
            )
    return table


__all__ = ["geometry_document", "FORMAT", "VERSION"]
