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
:mod:`symbody.derive` derives).  No other import runs upward.
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

SANCTIONED = {("model/system.py", "equations")}

# layers of one rank that must stay independent of each other
SIBLINGS = {frozenset({"viz", "study"})}


def _layer(module: str) -> str:
    """``symbody.fmu.build`` -> ``fmu``; ``symbody.cli`` -> ``cli``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "symbody"


def _imports(path: Path) -> set[str]:
    """Every ``symbody`` module ``path`` imports, at any depth of its syntax tree."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    package = list(rel.parts[:-1])  # the package relative imports start from (also for __init__)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "symbody":  # from symbody import x / from . import x at the top
                found.update(f"symbody.{alias.name}" for alias in node.names)
            elif target.startswith("symbody."):
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("symbody."))
    return found


def upward_imports() -> set[tuple[str, str]]:
    """The (file, layer) pairs where a module imports from a layer above its own."""
    bad = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "__init__.py":
            continue
        own = _layer("symbody." + rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__"))
        for target in _imports(path):
            layer = _layer(target)
            if layer not in RANK:
                continue  # a name re-exported by the facade, e.g. symbody.__version__
            if RANK[layer] > RANK[own] or frozenset({layer, own}) in SIBLINGS:
                bad.add((rel, layer))
    return bad - SANCTIONED


def test_every_module_belongs_to_a_layer():
    """A new package or top-level module must be placed in the layer table above."""
    layers = {p.name.removesuffix(".py") for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    layers -= {"__init__", "__pycache__", "py", "templates"}
    assert layers - RANK.keys() == set()


def test_no_new_upward_imports():
    bad = upward_imports()
    assert not bad, f"imports that run up the pipeline (see this module's docstring): {sorted(bad)}"
