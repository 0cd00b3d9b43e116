"""``symbody validate`` tells an FMU that breaks the standard from a solver setting that cannot simulate the model.

A stiff model (a 3.2e3 rad/s spring: rk4's stability check refuses its default step of 1 ms, h |lambda| = 3.2) and a
bouncing ball (fmpy's fixed-step Euler master steps into the floor: the FMU handles the impact where
it is found) are correct FMUs: validate runs rk4 again with a smaller step and reports the step it
used, and runs the ball in every setting, Euler included.  FMUs with a
tampered model description (an element the schema does not allow, a value reference the binary
does not know, another instantiation token) are still invalid.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest

import symbody as sb
from symbody.cli import main
from symbody.fmu import export_fmu
from symbody.fmu.validation import validate

from support.contact_models import bouncing_ball


def stiff_oscillator(k: float) -> sb.System:
    """A unit mass on a spring of stiffness ``k`` (natural frequency sqrt(k) rad/s) beside a slow one."""
    s = sb.System("stiff")
    x, y = s.coordinate("x", 0.01), s.coordinate("y", 0.1)
    s.particle("m1", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.particle("m2", s.point("Q", s.origin, (0, y, 0)), 1.0)
    s.generalized_force("stiff_spring", x, -s.parameter("k", k) * x)
    s.generalized_force("soft_spring", y, -s.parameter("k_soft", 1.0) * y)
    return s


@pytest.fixture(scope="module")
def fmus(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("validate")
    return {
        "stiff": export_fmu(stiff_oscillator(1e7).derive(), folder / "stiff.fmu", kind="both"),
        "ball": export_fmu(bouncing_ball(1.0, 0.5, 1.0).derive(), folder / "ball.fmu", kind="both"),
    }


def lines_of(report) -> dict[str, str]:
    return {line.split(":")[0].strip(): line for line in report.lines()[1:]}


def test_stiff_model_is_valid_with_the_rk4_step_it_can_run(fmus):
    report = validate(fmus["stiff"])
    assert report.ok, "\n".join(report.lines())
    rk4 = lines_of(report)["ok   Co-Simulation, rk4"]
    # refused at 1 ms by the FMU's stability check, run at 0.1 ms: the setting used is reported
    assert "100 steps with solver.step = 0.0001 s" in rk4 and "stability limit" in rk4
    assert report.settings == []


def test_contact_model_is_valid_in_every_setting_euler_included(fmus):
    report = validate(fmus["ball"])
    assert report.ok, "\n".join(report.lines())
    assert report.settings == []  # Euler's events at the ends of its steps are handled where they are found
    names = [name for name, ok, _ in report.checks if ok]
    assert len(report.checks) == 5 and names[-1] == "Model Exchange, Euler", report.checks


def test_cli_validate_exit_status_follows_the_standard(fmus, capsys):
    assert main(["validate", str(fmus["ball"])]) == 0
    out = capsys.readouterr().out
    assert "valid" in out and "FAIL" not in out and "ok   Model Exchange, Euler" in out


def tampered(fmu: Path, out: Path, edit) -> Path:
    """A copy of ``fmu`` whose modelDescription.xml is changed by ``edit`` (text -> text)."""
    with zipfile.ZipFile(fmu) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "modelDescription.xml":
                data = edit(data.decode()).encode()
            zout.writestr(item, data)
    return out


def unknown_reference(text: str) -> str:
    return re.sub(r'(name="y" valueReference=")\d+"', r'\g<1>99999"', text, count=1)


def other_token(text: str) -> str:
    return re.sub(r'guid="[^"]*"', 'guid="{00000000-0000-0000-0000-000000000000}"', text, count=1)


@pytest.mark.parametrize(
    ("edit", "finding"),
    [
        (unknown_reference, "FAIL Co-Simulation, instantiation and initialization: fmi2GetReal failed"),
        (other_token, "FAIL Model Exchange, instantiation and initialization: Failed to instantiate"),
        (lambda text: text.replace("<ModelVariables>", "<ModelVariables><Bogus/>", 1), "problem: ERROR"),
    ],
    ids=["value reference", "instantiation token", "schema"],
)
def test_broken_fmu_is_still_invalid(fmus, tmp_path, capsys, edit, finding):
    with zipfile.ZipFile(fmus["ball"]) as z:
        text = z.read("modelDescription.xml").decode()
    assert edit(text) != text  # the edit applies
    broken = tampered(fmus["ball"], tmp_path / "broken.fmu", edit)
    report = validate(broken)
    assert not report.ok
    assert any(line.strip().startswith(finding) for line in report.lines()), "\n".join(report.lines())
    assert main(["validate", str(broken)]) == 1
