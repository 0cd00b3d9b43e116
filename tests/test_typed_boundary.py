"""The boundary between the layers is typed: a function that takes the equations or a model says which.

Every parameter named ``eq``, ``model``, ``equations``, ``nm`` or ``system`` in the package has an annotation other than
``Any`` (``Equations``, ``NumericModel``, ``System | Equations``, the checks' protocol below ``Equations``...),
so that mypy checks what is passed; and no ``getattr(eq, "field", default)`` reads a field that every
``Equations`` has.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "symbody"

BOUNDARY_NAMES = {"eq", "equations", "model", "nm", "system"}


def untyped_boundary_parameters(source: str) -> list[str]:
    """``function(parameter)`` for each boundary parameter without an annotation or annotated ``Any``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs:
                if arg.arg in BOUNDARY_NAMES and (arg.annotation is None or ast.unparse(arg.annotation) == "Any"):
                    found.append(f"{node.name}({arg.arg})")
    return found


def test_the_finder_sees_missing_and_any_annotations():
    source = "def f(eq, model: Any, nm: NumericModel, x): pass\ndef g(*, equations: Any = None): pass\n"
    assert untyped_boundary_parameters(source) == ["f(eq)", "f(model)", "g(equations)"]


def test_every_equations_or_model_parameter_is_typed():
    bad = [
        f"{path.relative_to(PACKAGE).as_posix()}: {where}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for where in untyped_boundary_parameters(path.read_text(encoding="utf-8"))
    ]
    assert not bad, f"parameters of the equations or a model without a precise type: {bad}"


def test_no_getattr_with_a_default_on_the_equations():
    pattern = re.compile(r"getattr\([\w.]*\b(eq|equations)\s*,")
    bad = [
        f"{path.relative_to(PACKAGE).as_posix()}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not bad, f"getattr on the fields of Equations (they always exist): {bad}"
