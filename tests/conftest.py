"""Shared fixtures: loading example models by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from symbody.loader import load_model

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def example(name: str, **options):
    """Build the System of ``examples/<name>.py`` with options."""
    return load_model(EXAMPLES / f"{name}.py", **options)


@pytest.fixture
def load_example():
    return example
