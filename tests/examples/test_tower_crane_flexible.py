"""``examples/tower_crane.py --option flexible=True``: the crane with a flexible mast and jib.

The trolley is parked at mid reach (25 m on the 50 m jib) with its payload; under gravity the mast and
jib bend and the payload sinks by what linear beam theory gives: the jib as a cantilever under its own
weight ``w`` and the point load ``P`` (trolley and payload) at ``a``,
``P a^3 / (3 E I) + w a^2 (6 L^2 - 4 L a + a^2) / (24 E I)``, plus the mast's top rotation under the
moment ``M = P a + w L^2 / 2`` of the jib, ``M H / (E I_mast)``, times ``a``.  Gravity is scaled down
100 times so that the second-order (P-delta) effects vanish and the deflection, scaled back, is linear;
the rigid finite elements approach it as ``1 / n^2``.
"""

from __future__ import annotations

import numpy as np
import pytest

import symbody as sb
from symbody.cli import main
from symbody.loader import load_model_file
from symbody.numeric import NumericModel

from support import EXAMPLES

TOWER_CRANE = str(EXAMPLES / "tower_crane.py")


def payload_drop_closed_form(a: float = 25.0, L: float = 50.0, H: float = 40.0) -> float:
    """Sinking of the trolley (and payload) at ``a`` from linear beam theory (m), at standard gravity."""
    g, E = 9.80665, 2.1e11
    EI_jib, EI_mast = E * 0.019, E * 0.037  # the jib bends about its horizontal axis (Iy), the mast as a whole
    P, w = (800.0 + 2000.0) * g, 7850.0 * 0.0255 * g
    M = P * a + w * L**2 / 2
    jib = P * a**3 / (3 * EI_jib) + w * a**2 * (6 * L**2 - 4 * L * a + a**2) / (24 * EI_jib)
    return jib + a * M * H / EI_mast


def payload_drop(segments: int) -> float:
    """The payload's sinking at the static equilibrium of the flexible crane (gravity / 100, scaled back)."""
    system = load_model_file(TOWER_CRANE, ["flexible=True", f"segments={segments}"])
    eq = system.derive()
    model = NumericModel(eq).with_parameters(g=9.80665 / 100)
    guess = np.array([0.01 if c.name == "beta_r" else 0.0 for c in eq.coordinates])
    rest = model.static_equilibrium(guess, fixed={"theta": 0.0})
    z = model.outputs(rest.q, np.zeros(eq.nq))[[o.name for o in eq.outputs].index("z_payload")]
    return (40.0 - 20.0 - z) * 100


@pytest.mark.parametrize("segments, rel", [(4, 0.02), pytest.param(8, 0.005, marks=pytest.mark.slow)])
def test_the_payload_sinks_as_the_jib_and_mast_bend_by_beam_theory(segments, rel):
    assert payload_drop(segments) == pytest.approx(payload_drop_closed_form(), rel=rel)


def test_the_option_builds_mast_and_jib_of_segments_each_with_the_trolley_at_r0():
    s = load_model_file(TOWER_CRANE, ["flexible=True", "segments=6", "r0=20.0"])
    sizes = {name: body.segments for name, body in s.flexible_bodies.items()}
    assert sizes == {"mast": 6, "jib": 2, "jib_out": 4}  # the jib split at 20 m of 50 m
    assert len(s.coordinates) == 3 + 2 * 2 * 6 and s.inputs["tau_slew"] is not None
    assert load_model_file(TOWER_CRANE).flexible_bodies == {}  # the default crane stays rigid


def test_the_option_refuses_what_it_does_not_model():
    with pytest.raises(sb.ModelError, match="hoist=True is not available"):
        load_model_file(TOWER_CRANE, ["flexible=True", "hoist=True"])
    with pytest.raises(sb.ModelError, match="must lie on the jib"):
        load_model_file(TOWER_CRANE, ["flexible=True", "r0=60.0"])


def test_symbody_info_shows_the_flexible_mast_and_jib(capsys):
    assert main(["info", TOWER_CRANE, "--option", "flexible=True", "--option", "segments=2"]) == 0
    out = capsys.readouterr().out
    assert "mast: 2 segments, 4 coordinates" in out and "jib: 1 segments, 2 coordinates" in out, out
