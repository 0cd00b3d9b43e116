"""M and delta of every example against an independent derivation, at many random states and parameters.

The examples' trees (before their constraints are imposed) are rebuilt with
``sympy.physics.mechanics`` and Kane's equations with ``u = dq/dt`` give the
mass matrix and the forcing vector, which must equal symbody's ``M`` and
``delta`` to 1e-9 relative; the simple pendulum is checked against its hand
formula and the natural-coordinate double pendulum against the dynamics chapter's
eqs. (68) and (73).  (``n_link_pendulum_on_cart`` has its own test.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me

import symbody as sb
from symbody.numeric import NumericModel

from support import example

RTOL = 1e-9


def random_parameters(eq, rng: np.random.Generator) -> dict[str, float]:
    """Every parameter scaled randomly about its default (a zero default gets a small positive value)."""
    out = {}
    for p in eq.parameters:
        out[p.name] = p.value * rng.uniform(0.6, 1.4) if p.value != 0 else rng.uniform(0.1, 1.0)
    return out


def compare_with(eq, reference: Callable, n_states: int = 20, seed: int = 0, q_range: float = np.pi) -> None:
    """``reference(q, u, p, inputs) -> (M, forcing)`` (p, inputs: dicts by name) must equal symbody's M, delta."""
    rng = np.random.default_rng(seed)
    for _ in range(n_states):
        p = random_parameters(eq, rng)
        q = rng.uniform(-q_range, q_range, eq.nq)
        dq = rng.uniform(-3, 3, eq.nq)
        u = {x.name: rng.uniform(-5, 5) for x in eq.inputs}
        M, delta = NumericModel(eq, p).M_delta(q, dq, t=0.0, u=[u[x.name] for x in eq.inputs])
        Mr, fr = reference(q, dq, p, u)
        Mr, fr = np.asarray(Mr, dtype=float), np.asarray(fr, dtype=float).ravel()
        np.testing.assert_allclose(M, Mr, rtol=RTOL, atol=RTOL * np.abs(Mr).max())
        np.testing.assert_allclose(delta, fr, rtol=RTOL, atol=RTOL * max(1.0, np.abs(fr).max()))


class KaneModel:
    """Collects a sympy.physics.mechanics model and compiles Kane's ``M`` and forcing."""

    def __init__(self, coordinates: list[str], parameters: str, inputs: str = ""):
        self.N = me.ReferenceFrame("N")
        self.O = me.Point("O")
        self.O.set_vel(self.N, 0)
        self.q = [me.dynamicsymbols(n) for n in coordinates]
        self.u = [me.dynamicsymbols("u_" + n) for n in coordinates]
        self.qd = {qi.diff(): ui for qi, ui in zip(self.q, self.u)}
        self.p = {n: sm.Symbol(n) for n in parameters.split()}
        self.inputs = {n: sm.Symbol(n) for n in inputs.split()}
        self.bodies: list = []
        self.loads: list = []

    def point(self, name: str, parent: me.Point, vec: me.Vector) -> me.Point:
        P = parent.locatenew(name, vec)
        P.set_vel(self.N, P.pos_from(self.O).dt(self.N))
        return P

    def body(self, name: str, G: me.Point, frame: me.ReferenceFrame, m, I_com: list[list]) -> None:
        e = (frame.x, frame.y, frame.z)
        dyadic = sum((I_com[i][j] * (e[i] | e[j]) for i in range(3) for j in range(3)), me.Dyadic(0))
        self.bodies.append(me.RigidBody(name, G, frame, m, (dyadic, G)))

    def particle(self, name: str, P: me.Point, m) -> None:
        self.bodies.append(me.Particle(name, P, m))

    def spring(self, P1: me.Point, P2: me.Point, k, l0, c=0) -> None:
        r = P2.pos_from(P1)
        d = sm.sqrt(r.dot(r))
        ddot = (P2.vel(self.N) - P1.vel(self.N)).dot(r) / d
        f = -k * (d - l0) - c * ddot
        self.loads += [(P2, f * r / d), (P1, -f * r / d)]

    def compile(self) -> Callable:
        kd = [qi.diff() - ui for qi, ui in zip(self.q, self.u)]
        kane = me.KanesMethod(self.N, q_ind=self.q, u_ind=self.u, kd_eqs=kd)
        kane.kanes_equations(self.bodies, self.loads)
        pn, un = list(self.p), list(self.inputs)
        f = sm.lambdify(
            [self.q, self.u, [self.p[n] for n in pn], [self.inputs[n] for n in un]],
            [kane.mass_matrix, kane.forcing],
            cse=True,
        )
        return lambda q, dq, p, u: f(q, dq, [p[n] for n in pn], [u[n] for n in un])


def test_simple_pendulum_hand_formula():
    eq = example("simple_pendulum").derive()

    def reference(q, dq, p, u):
        m, l, g, c = p["m"], p["l"], p["g"], p["c"]
        return [[m * l * l]], [u["T"] - c * dq[0] - m * g * l * np.sin(q[0])]

    compare_with(eq, reference)
    x, y = NumericModel(eq).outputs([0.3], [0.0])
    assert (x, y) == pytest.approx((np.sin(0.3), -np.cos(0.3)), rel=1e-14)


def test_slider_crank_tree_matches_kane():
    """Crank and rod by absolute angles, slider at c; spring O-c, joint dampers, gravity along -y."""
    k = KaneModel(["a1", "a2"], "l1 l2 m1 Izz1 m2 Izz2 m3 g l03 k3 c3 c1 c2")
    P, N = k.p, k.N
    a1, a2 = k.q
    or1, or2 = N.orientnew("or1", "Axis", [a1, N.z]), N.orientnew("or2", "Axis", [a2, N.z])
    b = k.point("b", k.O, P["l1"] * or1.x)
    c = k.point("c", b, P["l2"] * or2.x)
    d = k.point("d", k.O, P["l1"] / 2 * or1.x)
    e = k.point("e", b, P["l2"] / 2 * or2.x)
    k.body("crank", d, or1, P["m1"], [[0, 0, 0], [0, 0, 0], [0, 0, P["Izz1"]]])
    k.body("rod", e, or2, P["m2"], [[0, 0, 0], [0, 0, 0], [0, 0, P["Izz2"]]])
    k.particle("slider", c, P["m3"])
    for G, m in ((d, P["m1"]), (e, P["m2"]), (c, P["m3"])):
        k.loads.append((G, -m * P["g"] * N.y))
    k.spring(k.O, c, P["k3"], P["l03"], P["c3"])
    w1, w2 = a1.diff(), a2.diff()
    k.loads += [(or1, -P["c1"] * w1 * N.z), (or2, -P["c2"] * (w2 - w1) * N.z), (or1, P["c2"] * (w2 - w1) * N.z)]
    compare_with(example("slider_crank").derive(), k.compile())


def test_double_pendulum_relative_matches_kane():
    k = KaneModel(["theta1", "theta2"], "m r g")
    P, N = k.p, k.N
    m, r = P["m"], P["r"]
    th1, th2 = k.q
    B1 = N.orientnew("B1", "Axis", [th1, N.z])
    B2 = B1.orientnew("B2", "Axis", [th2, B1.z])
    P1 = k.point("P1", k.O, 2 * r * B1.x)
    G1 = k.point("G1", k.O, r * B1.x + r * B1.y)  # the square lies left of the side 0 -> 1
    G2 = k.point("G2", P1, r * B2.x)
    k.body("square", G1, B1, m, [[m * r**2 / 3, 0, 0], [0, m * r**2 / 3, 0], [0, 0, 2 * m * r**2 / 3]])
    k.body("disc", G2, B2, m, [[m * r**2 / 4, 0, 0], [0, m * r**2 / 4, 0], [0, 0, m * r**2 / 2]])
    k.loads += [(G1, -m * P["g"] * N.y), (G2, -m * P["g"] * N.y)]
    eq = example("double_pendulum_square_disc", coordinates="relative").derive()
    compare_with(eq, k.compile())
    # outputs: the hinge and the far point of the disc
    th = np.array([0.4, -1.1])
    x1, y1, x2, y2 = NumericModel(eq).outputs(th, [0, 0])
    a, b = th[0], th[0] + th[1]
    assert (x1, y1, x2, y2) == pytest.approx(
        (2 * np.cos(a), 2 * np.sin(a), 2 * np.cos(a) + 2 * np.cos(b), 2 * np.sin(a) + 2 * np.sin(b)), rel=1e-13
    )


def test_double_pendulum_natural_matches_dynamics_chapter():
    """The square-and-disc double pendulum of "Capítulo 3: Problemas dinámicos" (docs/references.md) in
    natural coordinates, eq. (68): M = m [[25/24, 0, 1/8, 0], ...], constant; eq. (73): Q = -m g / 2 (1, 2, 0, 1).
    """
    eq = example("double_pendulum_square_disc", coordinates="natural").derive()

    def reference(q, dq, p, u):
        M = p["m"] * np.array(
            [[25 / 24, 0, 1 / 8, 0], [0, 25 / 24, 0, 1 / 8], [1 / 8, 0, 3 / 8, 0], [0, 1 / 8, 0, 3 / 8]]
        )
        return M, -p["m"] * p["g"] / 2 * np.array([1.0, 2.0, 0.0, 1.0])

    compare_with(eq, reference, q_range=3.0)
    assert [c.name for c in eq.coordinates] == ["x1", "y1", "x2", "y2"]
    # every parameter value: M is proportional to m and independent of r (the element is scaled with L = 2r)
    nm = NumericModel(eq, {"m": 2.5, "r": 0.7, "g": 3.0})
    np.testing.assert_allclose(nm.M(np.zeros(4)) / 2.5 * 24, [[25, 0, 3, 0], [0, 25, 0, 3], [3, 0, 9, 0], [0, 3, 0, 9]])


def test_double_pendulum_descriptions_agree():
    """Relative and natural coordinates: same constrained accelerations of the points at the same state."""
    rel = NumericModel(example("double_pendulum_square_disc", coordinates="relative").derive())
    nat = NumericModel(example("double_pendulum_square_disc", coordinates="natural").derive())
    rng = np.random.default_rng(5)
    for _ in range(10):
        th, dth = rng.uniform(-np.pi, np.pi, 2), rng.uniform(-3, 3, 2)
        a, b = th[0], th[0] + th[1]
        da, db = dth[0], dth[0] + dth[1]
        x = np.array([2 * np.cos(a), 2 * np.sin(a), 2 * np.cos(a) + 2 * np.cos(b), 2 * np.sin(a) + 2 * np.sin(b)])
        dx = np.array(
            [
                -2 * np.sin(a) * da,
                2 * np.cos(a) * da,
                -2 * np.sin(a) * da - 2 * np.sin(b) * db,
                2 * np.cos(a) * da + 2 * np.cos(b) * db,
            ]
        )
        ddth, _ = rel.accelerations(th, dth)
        dda, ddb = ddth[0], ddth[0] + ddth[1]
        ddx_rel = np.array(
            [
                -2 * np.cos(a) * da**2 - 2 * np.sin(a) * dda,
                -2 * np.sin(a) * da**2 + 2 * np.cos(a) * dda,
                -2 * np.cos(a) * da**2 - 2 * np.sin(a) * dda - 2 * np.cos(b) * db**2 - 2 * np.sin(b) * ddb,
                -2 * np.sin(a) * da**2 + 2 * np.cos(a) * dda - 2 * np.sin(b) * db**2 + 2 * np.cos(b) * ddb,
            ]
        )
        ddx_nat, _ = nat.accelerations(x, dx)
        np.testing.assert_allclose(ddx_nat, ddx_rel, rtol=1e-9, atol=1e-9 * np.abs(ddx_rel).max())


def test_crank_rod_disc_tree_matches_kane():
    """Crank, rod and disc by absolute angles; the contact point coordinates carry no inertia."""
    k = KaneModel(["a1", "a2", "a3", "xpg", "ypg"], "l1 l2 m1 Izz1 m2 Izz2 m3 Izz3 g c1", "T1")
    P, N = k.p, k.N
    a1, a2, a3 = k.q[:3]
    or1, or2 = N.orientnew("or1", "Axis", [a1, N.z]), N.orientnew("or2", "Axis", [a2, N.z])
    or3 = N.orientnew("or3", "Axis", [a3, N.z])
    b = k.point("b", k.O, P["l1"] * or1.x)
    c = k.point("c", b, P["l2"] * or2.x)
    d = k.point("d", k.O, P["l1"] / 2 * or1.x)
    e = k.point("e", b, P["l2"] / 2 * or2.x)
    k.body("crank", d, or1, P["m1"], [[0, 0, 0], [0, 0, 0], [0, 0, P["Izz1"]]])
    k.body("rod", e, or2, P["m2"], [[0, 0, 0], [0, 0, 0], [0, 0, P["Izz2"]]])
    k.body("disc", c, or3, P["m3"], [[0, 0, 0], [0, 0, 0], [0, 0, P["Izz3"]]])
    for G, m in ((d, P["m1"]), (e, P["m2"]), (c, P["m3"])):
        k.loads.append((G, -m * P["g"] * N.y))
    k.loads += [(or1, (k.inputs["T1"] - P["c1"] * a1.diff()) * N.z)]
    reference = k.compile()
    compare_with(example("crank_rod_disc").derive(), reference)
    with pytest.warns(sb.RedundantConstraintWarning, match="Cv_2"):  # both rolling components: one is redundant
        eq = example("crank_rod_disc", rolling="both").derive()
    compare_with(eq, reference)


def test_four_bar_tree_matches_kane():
    """Three bars by relative angles about y, inertia given at each bar's joint, forces, moments and spring."""
    pars = "l1 l2 l3 m1 m2 m3 cg1x cg1z cg2x cg2z cg3x cg3z g K L0 l2x l2z l3x l3z"
    pars += " " + " ".join(f"I{i}{a}" for i in (1, 2, 3) for a in ("xx", "yy", "zz", "xz"))
    k = KaneModel(["theta1", "theta2", "theta3"], pars, "Fx2 Fz2 My2 Fx3 Fz3 My3")
    P, N, F = k.p, k.N, k.inputs
    th1, th2, th3 = k.q
    B1 = N.orientnew("B1", "Axis", [th1, N.y])
    B2 = B1.orientnew("B2", "Axis", [th2, B1.y])
    B3 = B2.orientnew("B3", "Axis", [th3, B2.y])
    A = k.point("A", k.O, P["l1"] * B1.x)
    Bp = k.point("B", A, P["l2"] * B2.x)
    for i, (frame, origin) in enumerate(((B1, k.O), (B2, A), (B3, Bp)), start=1):
        m = P[f"m{i}"]
        cx, cz = P[f"cg{i}x"], P[f"cg{i}z"]
        G = k.point(f"G{i}", origin, cx * frame.x + cz * frame.z)
        I_O = sm.Matrix([[P[f"I{i}xx"], 0, P[f"I{i}xz"]], [0, P[f"I{i}yy"], 0], [P[f"I{i}xz"], 0, P[f"I{i}zz"]]])
        cvec = sm.Matrix([cx, 0, cz])
        I_G = I_O - m * ((cvec.T * cvec)[0] * sm.eye(3) - cvec * cvec.T)  # Steiner, from the joint to G
        k.body(f"arm{i}", G, frame, m, I_G.tolist())
        k.loads.append((G, -m * P["g"] * N.z))
    k.loads += [(A, F["Fx2"] * B2.x + F["Fz2"] * B2.z), (B2, F["My2"] * B2.y)]
    k.loads += [(Bp, F["Fx3"] * B3.x + F["Fz3"] * B3.z), (B3, F["My3"] * B3.y)]
    K1 = k.point("K1", A, P["l2x"] * B2.x + P["l2z"] * B2.z)
    K2 = k.point("K2", Bp, P["l3x"] * B3.x + P["l3z"] * B3.z)
    k.spring(K1, K2, P["K"], P["L0"])
    compare_with(example("four_bar").derive(), k.compile())


def test_example_outputs():
    nm = NumericModel(example("slider_crank").derive())
    q = np.array([0.8, -0.3])
    x_c, F_guide = nm.outputs(q, [0.0, 0.0], lam=[12.5])
    assert x_c == pytest.approx(4 * np.cos(0.8) + 10 * np.cos(-0.3), rel=1e-14)
    assert F_guide == pytest.approx(-12.5)  # the guide pushes the slider along +y when lambda < 0
    nm = NumericModel(example("crank_rod_disc").derive())
    q = np.array([0.9, -0.2, 1.0, 12.0, 0.0])
    x_c, y_c = nm.outputs(q, np.zeros(5), lam=np.zeros(4))
    assert (x_c, y_c) == pytest.approx((4 * np.cos(0.9) + 10 * np.cos(-0.2), 4 * np.sin(0.9) + 10 * np.sin(-0.2)))
