"""The event data of ``Equations`` compiles to C: gaps, their Jacobian rows and derivative terms,
restitution, friction rows, switching functions and outputs using contact and friction forces, the
same values as the numpy evaluators (what an FMU's event indicators will be built from)."""

from __future__ import annotations

import math

import numpy as np

import symbody as sb
from symbody.codegen.c_eval import compile_evaluator
from symbody.codegen.evaluators import evaluator
from symbody.model.contacts import contact_blocks
from symbody.model.friction import friction_blocks


def test_event_blocks_compile_to_c_and_agree_with_numpy():
    s = sb.System("blocks")
    x, y, th = s.coordinate("x", 0.3), s.coordinate("y", 0.7), s.coordinate("th", 0.2)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.solid("bar", s.point("C", s.origin, (x, y, 0)), B, mass=2.0, inertia=(1.0, 1.0, 0.4))
    s.gravity((0, -9.81, 0))
    e = s.parameter("e", 0.4)
    c = s.unilateral("tip", y - 0.5 * sb.sin(th) - 0.1 * s.t, restitution=e)
    rope = s.unilateral("rope", 2.0 - sb.sqrt(x**2 + y**2))
    f = s.stick_slip("slide", x, normal=c.force, mu=0.3, mu_static=0.5)
    s.generalized_force("buffer", x, 50 * sb.positive_part(0.1 - x))
    s.output("forces", c.force - 2 * rope.force + f.force)
    eq = s.derive()
    extra = contact_blocks(eq.contacts, eq.nq) | friction_blocks(eq.frictions, eq.nq)
    extra["switch"] = (list(eq.switches), (len(eq.switches),))
    names = ("gap", "gap_q", "gap_beta", "gap_gamma", "restitution", "fr_A", "fr_beta", "fr_gamma", "switch")
    args = (0.3, np.array([0.3, 0.7, 0.2]), np.array([0.5, -1.0, 2.0]), np.zeros(0), eq.p0)
    py = evaluator(eq, *names, extra=extra)(*args)
    cc = compile_evaluator(eq, *names, extra=extra)(*args)
    for name, a, b in zip(names, py, cc):
        assert np.allclose(a, b, rtol=1e-14, atol=1e-14), name
    # spot values by hand: d(gap_tip)/dq = (0, 1, -0.5 cos th), its rate's constant part -0.1 = -beta
    assert np.allclose(py[1][0], [0.0, 1.0, -0.5 * math.cos(0.2)]) and math.isclose(py[2][0], 0.1)
    assert py[4].tolist() == [0.4, 0.0]
    lam = np.array([3.0, 5.0, 7.0])  # the contact forces, then the friction force, after the (no) multipliers
    out_py = evaluator(eq, "outputs")(*args, np.zeros(3), lam)[0]
    out_c = compile_evaluator(eq, "outputs")(*args, np.zeros(3), lam)[0]
    assert out_py.tolist() == out_c.tolist() == [3.0 - 10.0 + 7.0]
