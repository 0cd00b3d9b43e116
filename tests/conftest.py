"""Shared fixtures and the ``--slow`` option; the shared helpers are in ``tests/support/``."""

from __future__ import annotations

import pytest

from support import example


@pytest.fixture
def load_example():
    return example


def pytest_addoption(parser):
    parser.addoption(
        "--slow",
        action="store_true",
        default=False,
        help="also run the tests marked slow (wine, qemu-user, browsers, clusters, sanitizers); CI does",
    )


def pytest_collection_modifyitems(config, items):
    """The default run leaves out the tests marked ``slow``; ``--slow`` runs everything."""
    if config.getoption("--slow"):
        return
    kept, slow = [], []
    for item in items:
        (slow if item.get_closest_marker("slow") else kept).append(item)
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = kept
