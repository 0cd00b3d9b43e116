"""Malformed models found when they are built or derived, each named: the cases of the robustness issue
that ``test_model_errors.py`` (object-level errors) and ``test_dimensions.py`` (units) do not cover.

* a coordinate that appears in no equation, a singular mass matrix at the initial state: ``ModelError``;
* redundant constraint rows at the initial configuration: a ``RedundantConstraintWarning`` naming them (the
  analyses use pseudo-inverses, the FMU a rank-revealing LU), and the FMU simulates them;
* constraints that are inconsistent (no configuration satisfies them): the assembly names the rows, in Python
  (``NumericalError``) and in the FMU (``ExitInitializationMode`` returns an error naming the row).
"""

from __future__ import annotations

import pytest
from fmpy.fmi1 import FMICallException

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.testing import FmuSession
from symbody.numeric import assemble


def planar_particle(name: str = "p") -> tuple[sb.System, object, object]:
    s = sb.System(name)
    x, y = s.coordinate("x", 0.0, unit="m"), s.coordinate("y", 0.0, unit="m")
    s.particle("b", s.point("P", s.origin, (x, y, 0)), s.parameter("m", 1.0, unit="kg"))
    s.gravity((0, -9.81, 0))
    return s, x, y


def test_a_coordinate_in_no_equation_is_named():
    s, x, y = planar_particle()
    s.coordinate("z", 0.0, unit="m")  # no mass moves with it, no constraint holds it
    with pytest.raises(sb.ModelError, match="coordinate 'z' appears in no equation"):
        s.derive()


def polar(r0: float) -> sb.System:
    s = sb.System("polar")
    r, th = s.coordinate("r", r0, unit="m"), s.coordinate("th", 0.3, unit="rad")
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("b", s.point("P", s.origin, sb.Vector(B, r, 0, 0)), 1.0)
    return s


def test_a_mass_matrix_singular_at_the_initial_state_names_the_motion():
    """Polar coordinates starting at the pole: the angle moves nothing (M = diag(m, m r^2) with r = 0)."""
    with pytest.raises(sb.ModelError, match=r"mass matrix of 'polar' is singular at the initial state.*'th'"):
        polar(0.0).derive()
    polar(0.5).derive()  # away from the pole the same model is fine


def test_redundant_constraints_warn_naming_the_rows_and_the_fmu_handles_them(tmp_path):
    s, x, y = planar_particle("redundant")
    s.constraint("rail", y - 0.5 * x)
    s.constraint("rail_again", 3 * y - 1.5 * x)
    with pytest.warns(sb.RedundantConstraintWarning, match=r"'rail_again' are redundant.*rank 1 of 2"):
        eq = s.derive()
    fmu = export_fmu(eq, tmp_path / "r.fmu", fmi_version=3, kind="cs")
    sess = FmuSession(fmu)
    try:
        sess.initialize()
        sess.step(0.5)
        xv, yv = sess.get("x", "y")
    finally:
        sess.close()
    # sliding down the rail y = x / 2 under gravity: acceleration g sin(a) cos(a) along x, with tan(a) = 1/2
    ax = 9.81 * 0.5 / 1.25
    assert xv == pytest.approx(-0.5 * ax * 0.25, rel=1e-9) and yv == pytest.approx(0.5 * xv, rel=1e-9)


def inconsistent() -> sb.System:
    s, x, y = planar_particle("inconsistent")
    s.constraint("floor", y)
    s.constraint("shelf", y - 1.0)  # parallel to 'floor': no configuration satisfies both
    return s


def test_inconsistent_constraints_are_a_model_error_at_derive():
    with pytest.raises(sb.ModelError, match=r"'shelf' depend on the others.*inconsistent.*'(floor|shelf)'"):
        inconsistent().derive()


def test_inconsistent_constraints_are_named_by_the_assembly(tmp_path):
    eq = inconsistent().derive(check=False)  # past the model checks: the numerics must still say why
    with pytest.raises(sb.NumericalError, match=r"cannot all be satisfied.*'(floor|shelf)'"):
        assemble(eq)
    messages = []
    fmu = export_fmu(eq, tmp_path / "i.fmu", fmi_version=2, kind="cs")
    sess = FmuSession(fmu, logger=lambda *a: messages.append(a[-1].decode() if isinstance(a[-1], bytes) else a[-1]))
    try:
        with pytest.raises(FMICallException, match="ExitInitializationMode"):
            sess.initialize()
    finally:
        sess.close()
    text = " ".join(messages)
    assert "assembly of the initial configuration failed" in text and ("|shelf|" in text or "|floor|" in text)
