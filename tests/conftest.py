"""Shared fixtures and the ``--slow`` option; the shared helpers are in ``tests/support/``.

The default run (no ``--slow``) exports FMUs for the machine's platform only: it sets
``SYMBODY_PLATFORMS`` to the host's (unless set already), for this process and the commands it
starts. ``--slow`` (CI) keeps the default of every installed platform, so that every model the
tests export is also cross-compiled for Windows and aarch64 there. The tests of the platforms
themselves ask for every installed platform in both runs (fixture ``every_installed_platform``).
"""

from __future__ import annotations

import os

import pytest

from symbody.fmu.platforms import PLATFORMS_VARIABLE, host_platform
from symbody.fmu.run import restore_fmi2_message_proxy

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


def pytest_configure(config):
    if not config.getoption("--slow") and PLATFORMS_VARIABLE not in os.environ:
        os.environ[PLATFORMS_VARIABLE] = host_platform().name


@pytest.fixture(autouse=True)
def _fmi2_message_proxy_outlives_the_test():
    """fmpy's FMI 2 message proxy is process-wide: a test that ran an FMU with its own logger leaves it
    pointing at a callback that dies with the test, and an FMI 2 instance logging in a later test of the
    same worker would call freed memory.  After every test the proxy gets fmpy's printer back."""
    yield
    restore_fmi2_message_proxy()


@pytest.fixture(scope="module")
def every_installed_platform():
    """Exports in this module build the default platforms: every one whose compiler is installed."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(PLATFORMS_VARIABLE, raising=False)
        yield


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
