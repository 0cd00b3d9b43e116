"""The time of an operating point is the keyword ``t`` of every numeric analysis; the positional
spelling before 0.2 still works for one release with a ``DeprecationWarning``.

(``energy`` and ``inverse_dynamics`` take the sample times of a motion as their first data argument.)
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest

import symbody as sb
from symbody import numeric
from symbody.numeric import NumericModel

OPERATING_POINT = (
    "assemble",
    "solve_velocities",
    "solve_accelerations",
    "kinetic_energy",
    "potential_energy",
    "exact_potential_energy",
    "is_conservative",
    "static_equilibrium",
    "linearize",
    "modal_analysis",
)


@pytest.mark.parametrize("name", OPERATING_POINT)
def test_t_is_keyword_only_with_default_zero(name: str) -> None:
    t = inspect.signature(getattr(numeric, name)).parameters["t"]
    assert t.kind is inspect.Parameter.KEYWORD_ONLY and t.default == 0.0


#: the evaluations of NumericModel at a point: ``q`` (and ``dq``) by position, the rest by keyword
EVALUATIONS = {
    "M": ("t", "u"),
    "Phi": ("t", "u"),
    "Phi_q": ("t", "u"),
    "Phi_init": ("t", "u"),
    "Phi_init_q": ("t", "u"),
    "D": ("t", "u"),
    "beta": ("t", "u"),
    "gamma": ("t", "u"),
    "delta": ("t", "u", "x"),
    "M_delta": ("t", "u", "x"),
    "accelerations": ("t", "u", "x"),
    "outputs": ("t", "u", "ddq", "lam", "x"),
    "rates": ("t", "u", "lam", "x"),
    "kinetic_energy": ("t",),
    "assemble": ("t",),
    "solve_velocities": ("t",),
    "solve_accelerations": ("t",),
}


@pytest.mark.parametrize("name", EVALUATIONS)
def test_numeric_model_takes_t_and_what_follows_by_keyword(name: str) -> None:
    params = inspect.signature(getattr(NumericModel, name)).parameters
    assert params["t"].kind is inspect.Parameter.KEYWORD_ONLY and params["t"].default == 0.0
    assert all(params[k].kind is inspect.Parameter.KEYWORD_ONLY for k in EVALUATIONS[name])


def driven_pendulum() -> sb.System:
    """A pendulum whose pivot height follows ``A sin(w t)``: every quantity depends on the time."""
    s = sb.System("driven")
    th = s.coordinate("th", 0.3, 0.5)
    A, w = s.parameter("A", 0.2), s.parameter("w", 3.0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    pivot = s.point("pivot", s.origin, (0, A * sb.sin(w * s.t), 0))
    s.particle("bob", s.point("P", pivot, sb.Vector(B, 0, -1, 0)), 1.0)
    s.gravity((0, -9.81, 0))
    return s


def test_positional_t_warns_and_gives_the_keyword_result() -> None:
    eq = driven_pendulum().derive()
    t, q, dq = 0.4, [0.3], [0.5]
    # closed form: v_bob = (dth cos th, A w cos(w t) + dth sin th)
    vy = 0.2 * 3.0 * math.cos(3.0 * t) + 0.5 * math.sin(0.3)
    T = 0.5 * ((0.5 * math.cos(0.3)) ** 2 + vy**2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        new = float(numeric.kinetic_energy(eq, [q], [dq], t=t)[0])
        assert NumericModel(eq).kinetic_energy(q, dq, t=t) == pytest.approx(T, rel=1e-12)
    assert new == pytest.approx(T, rel=1e-12)
    with pytest.warns(DeprecationWarning, match=r"symbody\.numeric\.kinetic_energy: pass t by keyword"):
        old = float(numeric.kinetic_energy(eq, [q], [dq], t)[0])
    assert old == new
    with pytest.warns(DeprecationWarning, match=r"NumericModel\.kinetic_energy: pass t by keyword"):
        assert NumericModel(eq).kinetic_energy(q, dq, t) == new
    with pytest.warns(DeprecationWarning, match=r"symbody\.numeric\.solve_accelerations: pass t by keyword"):
        old_acc = numeric.solve_accelerations(eq, q, dq, t)
    new_acc = numeric.solve_accelerations(eq, q, dq, t=t)
    np.testing.assert_array_equal(old_acc.ddq, new_acc.ddq)


def test_held_coordinate_warning_points_at_the_caller_through_the_wrapper() -> None:
    s = sb.System("held")
    a = s.coordinate("a", 1.0)
    s.particle("p", s.point("P", s.origin, (a, 0, 0)), 1.0)
    s.initial_constraint("a_init", a - 1.0)
    eq = s.derive()
    with pytest.warns(numeric.HeldCoordinateWarning) as caught:
        numeric.assemble(eq, [0.4])
    assert caught[0].filename == __file__


def test_numeric_model_evaluations_at_t_by_keyword_and_by_the_old_position() -> None:
    """The driven pendulum (unit length and mass): ``th'' = -(g + yp''(t)) sin th`` with ``yp = A sin(w t)``."""
    nm = NumericModel(driven_pendulum().derive())
    t, q, dq = 0.4, [0.3], [0.5]
    expected = -(9.81 - 0.2 * 9.0 * math.sin(3.0 * t)) * math.sin(0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        delta = nm.delta(q, dq, t=t)
        ddq, _ = nm.accelerations(q, dq, t=t, u=None)
        M, delta_joint = nm.M_delta(q, dq, t=t)
    assert delta[0] == pytest.approx(expected, rel=1e-12)
    assert ddq[0] == pytest.approx(expected, rel=1e-12) and delta_joint[0] == pytest.approx(expected, rel=1e-12)
    assert M[0][0] == pytest.approx(1.0, rel=1e-12)
    assert nm.delta(q, dq)[0] == pytest.approx(-9.81 * math.sin(0.3), rel=1e-12)  # t defaults to 0
    with pytest.warns(DeprecationWarning, match=r"NumericModel\.delta: pass t by keyword \(t=\.\.\.\)"):
        old = nm.delta(q, dq, t)
    np.testing.assert_array_equal(old, delta)
    with pytest.warns(DeprecationWarning, match=r"NumericModel\.accelerations: pass t, u by keyword"):
        old_ddq, _ = nm.accelerations(q, dq, t, None)
    np.testing.assert_array_equal(old_ddq, ddq)
    with pytest.raises(TypeError, match="multiple values for argument 't'"):
        nm.delta(q, dq, t, t=t)
