"""FMI 3 value references are the 1-based positions of the variables in ModelVariables.

Some importers (OMSimulator) read the value references in FMI 3 ModelStructure ``dependencies`` and in
``derivative`` attributes as FMI 2's 1-based ModelVariables indices. With value reference = position, that
reading and the standard one name the same variables, so such importers take symbody's FMI 3 FMUs with every
dependency intact (``time`` included, which a 0-based numbering makes an out-of-range index). These tests
check that property of the XML; the C runtime taking the same numbers is checked by every FMI 3 test that
gets and sets values (and ``test_fmi_state_machine.py``, which refuses value reference 0).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from symbody.fmu.controller_spec import ControllerSpec
from symbody.fmu.controllers import control_law
from symbody.fmu.description import model_description
from symbody.fmu.spec import FmuSpec

from support import example
from support.contact_models import bouncing_ball


def _positions(root: ET.Element) -> dict[int, str]:
    """1-based position in ModelVariables -> name (what FMI 2 indices mean)."""
    return {k + 1: v.get("name") for k, v in enumerate(root.find("ModelVariables"))}


def _refs(text: str | None) -> list[int]:
    return [int(r) for r in (text or "").split()]


def _structure3(root: ET.Element, names: dict[int, str]) -> dict[tuple[str, str], set[str]]:
    """(element, unknown) -> names of its dependencies, FMI 3 value references read through ``names``."""
    kind = {"Output": "output", "ContinuousStateDerivative": "derivative", "InitialUnknown": "initial"}
    return {
        (kind[u.tag], names[int(u.get("valueReference"))]): {names[r] for r in _refs(u.get("dependencies"))}
        for u in root.find("ModelStructure")
        if u.tag in kind
    }


def _structure2(root: ET.Element) -> dict[tuple[str, str], set[str]]:
    names = _positions(root)
    kind = {"Outputs": "output", "Derivatives": "derivative", "InitialUnknowns": "initial"}
    return {
        (kind[group.tag], names[int(u.get("index"))]): {names[r] for r in _refs(u.get("dependencies"))}
        for group in root.find("ModelStructure")
        for u in group
    }


def _specs():
    crane = example("overhead_crane", end_stops=True, ground=True).derive()
    ball = bouncing_ball(1.0, 0.8, 2.0).derive()
    law = control_law(np.array([[3.0, 0.5]]), ["x", "dx"], ["F"])
    return {
        "crane": lambda v: FmuSpec(crane, v, "both"),
        "ball": lambda v: FmuSpec(ball, v, "both"),
        "controller": lambda v: ControllerSpec(law, "ctrl", fmi_version=v),
    }


SPECS = _specs()


@pytest.mark.parametrize("name", sorted(SPECS))
def test_value_references_are_positions_so_that_both_readings_agree(name):
    root = ET.fromstring(model_description(SPECS[name](3)))
    variables = list(root.find("ModelVariables"))
    by_vr = {int(v.get("valueReference")): v.get("name") for v in variables}
    assert by_vr == _positions(root)  # value reference k is the k-th variable, time is 1
    for v in variables:  # a state's derivative names its state either way
        if v.get("derivative") is not None:
            assert int(v.get("derivative")) in by_vr
    for u in root.find("ModelStructure"):
        assert int(u.get("valueReference")) in by_vr
        assert all(r in by_vr for r in _refs(u.get("dependencies"))), (u.tag, u.attrib)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_fmi3_model_structure_declares_what_fmi2_declares(name):
    """The FMI 3 dependencies lose nothing: by name, they are FMI 2's (time and direct feedthrough included)."""
    fmi2 = ET.fromstring(model_description(SPECS[name](2)))
    fmi3 = ET.fromstring(model_description(SPECS[name](3)))
    names3 = {int(v.get("valueReference")): v.get("name") for v in fmi3.find("ModelVariables")}
    s2, s3 = _structure2(fmi2), _structure3(fmi3, names3)
    runtime = {k: deps for k, deps in s2.items() if k[0] != "initial"}
    assert {k: deps for k, deps in s3.items() if k[0] != "initial"} == runtime
    if name != "controller":  # time: the reference a 0-based numbering breaks
        assert any("time" in deps for deps in runtime.values())
    if name == "crane":  # direct feedthrough: the accelerations depend on the input forces
        assert {"F_trolley", "F_hoist", "time"} <= s3[("output", "ddx")]
    if name == "controller":
        assert s3[("output", "F")] == {"x", "dx"}
