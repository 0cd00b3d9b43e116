"""Non-finite blocks of unconstrained models in the FMU runtime name the entry at fault.

Unconstrained models evaluate ``M`` straight into the factorization and ``delta`` straight into
the solution (``sb_accelerations``' hot path); when the factorization fails or the accelerations
are not finite, the runtime evaluates the blocks again to name the entry: ``M(x, x)`` when the
mass matrix is not finite (here ``x < 0`` under a fourth root of the position), ``delta(x)``
when only the generalized force is (``-k sqrt(x)`` at ``x < 0``), in Model Exchange (Discard of
the derivatives) and in Co-Simulation (Discard of the step, state kept).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from test_robustness_fmu import _WORKDIR, DISCARD, OK, Instance, Unit, model_fmu

import symbody as sb
from symbody.fmu import export_fmu


def root_guide() -> sb.System:
    """A unit mass at ``(x^(1/4), 0, 0)``: ``M = x^(-3/2) / 16``, not finite for ``x < 0`` (NaN)."""
    s = sb.System("root_guide")
    x = s.coordinate("x", 1.0)
    s.particle("body", s.point("P", s.origin, (sb.sqrt(sb.sqrt(x)), 0, 0)), 1.0)
    return s


@functools.cache
def root_guide_fmu(version: int):
    return export_fmu(root_guide(), _WORKDIR / f"root_guide{version}.fmu", fmi_version=version, kind="both")


CASES = {
    "root_spring": "generalized force delta(x) is not finite",
    "root_guide": "mass matrix entry M(x, x) is not finite",
}


def fmu(model: str, version: int):
    return root_guide_fmu(version) if model == "root_guide" else model_fmu(model, version)


@pytest.mark.parametrize("model", sorted(CASES))
@pytest.mark.parametrize("version", (2, 3))
def test_model_exchange_names_the_block_entry(model, version):
    inst = Instance(Unit.open(fmu(model, version)), "me")
    try:
        inst.initialize()
        assert inst.derivatives()[0] == OK
        assert inst.set_states([-1.0, 0.0]) == OK
        n = len(inst.messages)
        assert inst.derivatives()[0] == DISCARD
        assert CASES[model] in inst.text(n), inst.text(n)
        assert inst.set_states([1.0, 0.0]) == OK and inst.derivatives()[0] == OK
    finally:
        inst.free()


@pytest.mark.parametrize("version", (2, 3))
def test_co_simulation_discards_the_step_naming_the_block_entry(version):
    """``x'' = -k sqrt(x)`` from x = 0.01 moving towards negative x: the step that crosses x = 0 is
    discarded (``root_guide``'s inertia grows without bound at x = 0: it never gets there)."""
    model = "root_spring"
    inst = Instance(Unit.open(fmu(model, version)), "cs")
    try:
        inst.initialize(x=0.01, dx=-1.0)
        n = len(inst.messages)
        status = inst.step(0.1)
        assert status == DISCARD, inst.text(n)
        assert CASES[model] in inst.text(n), inst.text(n)
        assert np.isfinite(inst.get("x")).all()
    finally:
        inst.free()
