"""The pipeline is one-way: every module imports only from its own layer or the layers below.

The check reads every ``import`` of the package, also those inside functions, so that a
dependency cannot hide in a function body.  Layers, from the bottom:

====  ==========================================================================
rank  packages / modules
====  ==========================================================================
0     ``errors``, ``_version`` (foundation)
1     ``symbolic`` (atoms, calculus, evaluation, printing, SymPy bridge, export plan,
      optimizer and operation counts)
2     ``model`` (with its kinematic engine), ``units``, ``dimensions`` (unit strings,
      dimensional analysis)
3     ``loader``, ``models`` (model files and the models of the docstring examples)
4     ``derive`` (virtual power, recursions, constraint derivatives, energies, checks)
5     ``equations`` (the data object the derivation fills)
6     ``codegen`` (C and Python emitters, compiled evaluators)
7     ``numeric`` (analyses: they evaluate the blocks through the compiled evaluators)
8     ``fmu``
9     ``viz``, ``study`` (animation, parameter studies)
10    ``cli``, ``__main__``
====  ==========================================================================

``symbody/__init__.py`` is the public facade and may import anything; ``System.derive`` is the
one sanctioned call upward (model -> equations, which builds the ``Equations`` from the fields
:mod:`symbody.derive` derives), with its return type imported under ``TYPE_CHECKING``.  No other
import runs upward: a name imported from the facade (``from symbody import NumericModel``) counts as
an import of its module, ``import symbody`` as one of the facade (above every layer), and an
import under ``TYPE_CHECKING`` counts like any other.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "symbody"

RANK = {
    "errors": 0,
    "_version": 0,
    "symbolic": 1,
    "model": 2,
    "dimensions": 2,
    "units": 2,
    "loader": 3,
    "models": 3,
    "derive": 4,
    "equations": 5,
    "codegen": 6,
    "numeric": 7,
    "fmu": 8,
    "viz": 9,
    "study": 9,
    "cli": 10,
    "__main__": 10,
}

# the imports allowed upward: (file, layer, how) with how "module" (at the top of the file), "function"
# (inside a function body) or "typing" (under ``if TYPE_CHECKING:``, for annotations only)
SANCTIONED = {
    ("model/system.py", "equations", "function"),  # System.derive builds the Equations
    ("model/system.py", "equations", "typing"),  # ... and says so: derive() -> Equations
}

# layers of one rank that must stay independent of each other
SIBLINGS = {frozenset({"viz", "study"})}

# ``import symbody`` brings in the facade, which may import anything: it ranks above every layer
FACADE_RANK = max(RANK.values()) + 1


def _layer(module: str) -> str:
    """``symbody.fmu.build`` -> ``fmu``; ``symbody.cli`` -> ``cli``; ``symbody`` (the facade) -> ``symbody``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "symbody"


def _rank(layer: str) -> int | None:
    return FACADE_RANK if layer == "symbody" else RANK.get(layer)


def facade_names() -> dict[str, str]:
    """The public names of ``symbody/__init__.py`` and the module each comes from (``NumericModel`` ->
    ``symbody.numeric.model``): ``from symbody import NumericModel`` imports that module."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"symbody.{node.module}"
    return names


def _is_type_checking(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, how: str):
    """Every node below ``node`` with how it runs: "module", "function" or "typing"."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child):
            for sub in child.body:
                yield sub, "typing"
                yield from _walk(sub, "typing")
            for sub in child.orelse:
                yield sub, how
                yield from _walk(sub, how)
            continue
        inner = "function" if how == "module" and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else how
        yield child, how
        yield from _walk(child, inner)


def imports_of(source: str, rel: str, facade: dict[str, str]) -> set[tuple[str, str]]:
    """Every ``symbody`` module the file ``rel`` (under ``src/``) imports, with how: ``(module, how)``."""
    package = list(Path(rel).with_suffix("").parts[:-1])  # the package relative imports start from
    found: set[tuple[str, str]] = set()
    for node, how in _walk(ast.parse(source), "module"):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "symbody":  # from symbody import x / from .. import x at the top
                found.update((facade.get(alias.name, f"symbody.{alias.name}"), how) for alias in node.names)
            elif target.startswith("symbody."):
                found.add((target, how))
        elif isinstance(node, ast.Import):
            found.update((alias.name, how) for alias in node.names if alias.name.split(".")[0] == "symbody")
    return found


def _imports(path: Path, facade: dict[str, str]) -> set[tuple[str, str]]:
    rel = path.relative_to(PACKAGE.parent).as_posix()
    return imports_of(path.read_text(encoding="utf-8"), rel, facade)


def upward_imports() -> set[tuple[str, str, str]]:
    """The (file, layer, how) triples where a module imports from a layer above its own."""
    facade = facade_names()
    bad = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "__init__.py":
            continue
        own = _layer("symbody." + rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__"))
        for target, how in _imports(path, facade):
            layer = _layer(target)
            rank = _rank(layer)
            if rank is None:
                continue  # a name the facade defines itself
            if rank > RANK[own] or frozenset({layer, own}) in SIBLINGS:
                bad.add((rel, layer, how))
    return bad - SANCTIONED


def test_every_module_belongs_to_a_layer():
    """A new package or top-level module must be placed in the layer table above."""
    layers = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    layers -= {"__init__", "__pycache__", "py", "templates"}
    assert layers - RANK.keys() == set()


def test_no_new_upward_imports():
    bad = upward_imports()
    assert not bad, f"imports that run up the pipeline (see this module's docstring): {sorted(bad)}"


def test_facade_names_and_the_facade_itself_count_as_imports():
    facade = facade_names()
    assert facade["NumericModel"] == "symbody.numeric.model" and facade["System"] == "symbody.model.system"
    source = "from symbody import NumericModel\nimport symbody as sb\nfrom .. import __version__\n"
    found = imports_of(source, "symbody/model/anything.py", facade)
    assert found == {
        ("symbody.numeric.model", "module"),
        ("symbody", "module"),
        ("symbody._version", "module"),
    }


def test_type_checking_and_function_imports_are_told_apart():
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..equations import Equations\n"
        "def derive():\n    from ..equations import derive_equations\n"
        "from ..numeric import simulate\n"
    )
    found = imports_of(source, "symbody/model/anything.py", facade_names())
    assert found == {
        ("symbody.equations", "typing"),
        ("symbody.equations", "function"),
        ("symbody.numeric", "module"),
    }
