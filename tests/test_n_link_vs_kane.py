"""n-link pendulum on a cart: symbody's M and delta against sympy.physics.mechanics' KanesMethod."""

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from conftest import example  # noqa: E402


def kane_n_link(n):
    """The pydy model (pydy.models.n_link_pendulum_on_cart) built with sympy.physics.mechanics."""
    q = me.dynamicsymbols(f"q:{n + 1}")
    u = me.dynamicsymbols(f"u:{n + 1}")
    T = me.dynamicsymbols(f"T1:{n + 1}")
    F = me.dynamicsymbols("F")
    m = sm.symbols(f"m:{n + 1}")
    l = sm.symbols(f"l:{n}")
    g = sm.symbols("g")
    I = me.ReferenceFrame("I")
    O = me.Point("O")
    O.set_vel(I, 0)
    P0 = O.locatenew("P0", q[0] * I.x)
    P0.set_vel(I, u[0] * I.x)
    particles = [me.Particle("Pa0", P0, m[0])]
    forces = [(P0, -m[0] * g * I.y), (P0, F * I.x)]
    prev = P0
    for i in range(n):
        Bi = I.orientnew(f"B{i}", "Axis", [q[i + 1], I.z])
        Bi.set_ang_vel(I, u[i + 1] * I.z)
        Pi = prev.locatenew(f"P{i + 1}", l[i] * Bi.x)
        Pi.v2pt_theory(prev, I, Bi)
        particles.append(me.Particle(f"Pa{i + 1}", Pi, m[i + 1]))
        forces.append((Pi, -m[i + 1] * g * I.y))
        if i == 0:
            forces.append((I, -T[i] * I.z))
        forces.append((Bi, (T[i] - (T[i + 1] if i < n - 1 else 0)) * I.z))
        prev = Pi
    kd = [qi.diff() - ui for qi, ui in zip(q, u)]
    kane = me.KanesMethod(I, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations(particles, forces)
    syms = {"q": q, "u": u, "m": m, "l": l, "g": g, "T": T, "F": F}
    return kane, syms


@pytest.mark.parametrize("n", [1, 2, 4])
def test_mass_matrix_and_forcing_match_kane(n):
    kane, S = kane_n_link(n)
    args = [S["q"], S["u"], list(S["m"]), list(S["l"]), S["g"], S["T"], S["F"]]
    f = sm.lambdify(args, [kane.mass_matrix, kane.forcing])
    eq = example("n_link_pendulum_on_cart", n=n).derive()
    rng = np.random.default_rng(n)
    for _ in range(20):
        qv, uv = rng.uniform(-3, 3, n + 1), rng.uniform(-2, 2, n + 1)
        mv, lv, gv = rng.uniform(0.5, 2, n + 1), rng.uniform(0.5, 2, n), rng.uniform(5, 15)
        Tv, Fv = rng.uniform(-3, 3, n), rng.uniform(-3, 3)
        Mk, fk = f(qv, uv, mv, lv, gv, Tv, Fv)
        p = {f"m{i}": mv[i] for i in range(n + 1)} | {f"l{i}": lv[i] for i in range(n)} | {"g": gv}
        u = {"F": Fv} | {f"T{i + 1}": Tv[i] for i in range(n)}
        nm = eq.numeric(p)
        M, d = nm.M_delta(qv, uv, 0.0, [u[x.name] for x in eq.inputs])
        np.testing.assert_allclose(M, np.asarray(Mk, float), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(d, np.asarray(fk, float).ravel(), rtol=1e-9, atol=1e-9)
