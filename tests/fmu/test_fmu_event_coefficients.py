"""Coefficients of the events that the model forbids, refused through the FMI setters as symbody.numeric
refuses them (a ModelError there, an Error with a message here, the value not kept): a restitution outside
[0, 1], a friction coefficient below zero, a static one below the sliding one.  Before, the FMUs took them:
the ball fell through the floor with e = -0.5 and gained energy with e = 1.5.  (The Python backend:
tests/fmu/test_fmu_python.py.)"""

from __future__ import annotations

import re

import pytest

import symbody as sb
from symbody.errors import ModelError
from symbody.fmu import export_fmu
from symbody.fmu.run import restore_fmi2_message_proxy
from symbody.numeric import simulate

from support.contact_models import bouncing_ball


def block_on_floor() -> sb.System:
    s = sb.System("block")
    x = s.coordinate("x", 0.0, dq0=1.0)
    s.particle("b", s.point("P", s.origin, (x, 0, 0)), 2.0)
    s.stick_slip("floor", x, normal=19.62, mu=s.parameter("mu", 0.3), mu_static=s.parameter("mu_s", 0.5))
    return s


CASES = [
    (bouncing_ball(1.0, 0.8, 2.0), {"e": -0.5}, "unilateral contact 'floor': the restitution is -0.5; it must lie in [0, 1]"),
    (bouncing_ball(1.0, 0.8, 2.0), {"e": 1.5}, "unilateral contact 'floor': the restitution is 1.5; it must lie in [0, 1]"),
    (block_on_floor(), {"mu": -0.3}, "friction 'floor': the coefficient mu is -0.3; it must not be negative"),
    (block_on_floor(), {"mu_s": 0.2}, "friction 'floor': the static coefficient (0.2) is below the sliding one (0.3)"),
]  # fmt: skip


@pytest.mark.parametrize("system, values, message", CASES, ids=["e<0", "e>1", "mu<0", "mu_s<mu"])
def test_numeric_refuses_them(system, values, message):
    eq = system.derive()
    p = [values.get(q.name, q.value) for q in eq.parameters]
    with pytest.raises(ModelError, match=re.escape(message)):
        simulate(eq, 0.1, p=p)


@pytest.mark.parametrize("system, values, message", CASES, ids=["e<0", "e>1", "mu<0", "mu_s<mu"])
@pytest.mark.parametrize("version, kind", [(2, "me"), (2, "cs"), (3, "me"), (3, "cs")])
def test_native_fmu_setters_refuse_them(tmp_path, system, values, message, version, kind):
    """fmi2SetReal / fmi3SetFloat64 of a tunable parameter after initialization: Error with the message, the
    old value kept, a valid value taken.  Before it, the relation mu_static >= mu of two parameters a host sets
    one after the other is checked by ExitInitializationMode (an Error there); a value outside its own range
    is refused at once."""
    from fmpy import extract, instantiate_fmu, read_model_description
    from fmpy.fmi1 import FMICallException

    fmu = export_fmu(system, tmp_path / f"{system.name}.fmu", fmi_version=version, kind=kind)
    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    ((name, value),) = values.items()
    fmi_type = "ModelExchange" if kind == "me" else "CoSimulation"
    for initialized in (True, False):
        log: list[str] = []
        inst = instantiate_fmu(extract(str(fmu)), md, fmi_type, logger=lambda *a, log=log: log.append(a[-1].decode()))
        get, put = (inst.getReal, inst.setReal) if version == 2 else (inst.getFloat64, inst.setFloat64)
        try:
            if version == 2:
                inst.setupExperiment(startTime=0.0)
            if initialized:
                inst.enterInitializationMode()
                inst.exitInitializationMode()
            before = get([vr[name]])[0]
            if not initialized and name == "mu_s":  # (taken now, refused by ExitInitializationMode)
                put([vr[name]], [value])
                inst.enterInitializationMode()
                with pytest.raises(FMICallException, match="error"):
                    inst.exitInitializationMode()
                assert message in log[-1] and "ExitInitializationMode" in log[-1]
                continue
            with pytest.raises(FMICallException, match="error"):
                put([vr[name]], [value])
            assert message in log[-1]
            assert get([vr[name]])[0] == before
            put([vr[name]], [0.4])  # (a valid value: e = 0.4, mu = 0.4 <= mu_s, mu_s = 0.4 >= mu)
            assert get([vr[name]])[0] == 0.4
        finally:
            inst.freeInstance()
            restore_fmi2_message_proxy()
