"""What the tests share: the repository's folders and the example models by name.

The folder ``tests/`` is on ``sys.path`` (pytest's ``pythonpath`` setting), so that every
test module, whatever its folder, reads ``from support import example``.
"""

from __future__ import annotations

from pathlib import Path

from symbody.loader import load_model

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
EXAMPLES = ROOT / "examples"
#: model files written for the tests only (mechanisms with singular positions)
MODELS = TESTS / "models"


def example(name: str, **options):
    """Build the System of ``examples/<name>.py`` with options."""
    return load_model(EXAMPLES / f"{name}.py", **options)
