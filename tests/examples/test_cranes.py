"""Physical sanity of the crane examples, checked against independent derivations.

* overhead crane: M and delta against Lagrange's equations derived here with SymPy
  from hand-written kinetic and potential energies; hanging equilibrium; small-swing
  frequency against the closed-form result; energy balance along simulations.
* tower crane: M and delta against sympy.physics.mechanics' KanesMethod at random
  states; hanging equilibrium and rope tension; swing frequencies against a hand
  linearization; energy balance along simulations (energy from SymPy mechanics).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sm
import sympy.physics.mechanics as me
from scipy.integrate import solve_ivp

from symbody.numeric import NumericModel

from support import example

G0 = 9.80665

# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _values(eq, p: dict, u: dict) -> tuple[np.ndarray, np.ndarray]:
    pv = np.array([p.get(x.name, x.value) for x in eq.parameters])
    uv = np.array([u.get(x.name, x.value) for x in eq.inputs])
    return pv, uv


def _fd_state_matrix(nm, q, dq, u, h: float = 1e-6) -> np.ndarray:
    """State matrix of ``x' = (dq, ddq(q, dq, u))`` by central differences."""
    n = len(q)
    A = np.zeros((2 * n, 2 * n))
    A[:n, n:] = np.eye(n)
    for k in range(2 * n):
        e = np.zeros(2 * n)
        e[k] = h
        x = np.concatenate([q, dq])
        plus = nm.accelerations((x + e)[:n], (x + e)[n:], t=0.0, u=u)[0]
        minus = nm.accelerations((x - e)[:n], (x - e)[n:], t=0.0, u=u)[0]
        A[n:, k] = (plus - minus) / (2 * h)
    return A


def _lagrange(T, V, q, dq, Q):
    """Mass matrix and ``delta`` (so that ``M ddq = delta``) from Lagrange's equations.

    ``d/dt(dL/d dq) - dL/dq = Q`` with ``L = T - V``: ``M = d2T/d dq2`` and
    ``delta = Q - (d/dq (dL/d dq)) dq + dL/dq``.
    """
    L = T - V
    p = sm.Matrix([sm.diff(L, v) for v in dq])
    M = p.jacobian(dq)
    delta = sm.Matrix(Q) - p.jacobian(q) * sm.Matrix(dq) + sm.Matrix([sm.diff(L, c) for c in q])
    return M, delta


def _integrate(nm, x0, t_end, u_of_t, extra=None, rtol=1e-11, atol=1e-11, t_eval=None):
    """Simulate ``M ddq = delta`` with solve_ivp; ``extra(t, q, dq, u)`` adds integrated quantities."""
    n = len(nm.q0)

    def rhs(t, x):
        q, dq = x[:n], x[n : 2 * n]
        u = u_of_t(t)
        ddq = nm.accelerations(q, dq, t=t, u=u)[0]
        out = [dq, ddq]
        if extra is not None:
            out.append(np.atleast_1d(extra(t, q, dq, u)))
        return np.concatenate(out)

    return solve_ivp(rhs, (0.0, t_end), x0, method="DOP853", rtol=rtol, atol=atol, t_eval=t_eval)


# ---------------------------------------------------------------------------
# overhead crane
# ---------------------------------------------------------------------------

OVERHEAD_UNDAMPED = {"b_x": 0.0, "b_l": 0.0, "c_theta": 0.0, "b_y": 0.0}


def overhead_energy(q, dq, p: dict, spatial: bool) -> float:
    """Kinetic plus gravitational energy of the overhead crane from hand formulas."""
    mt, mp, mw, g = p["m_trolley"], p["m_payload"], p["m_winch"], p["g"]
    if spatial:
        x, y, l, a, b = q
        dx, dy, dl, da, db = dq
        mb = p["m_bridge"]
        d = np.array([np.sin(a) * np.cos(b), np.sin(b), -np.cos(a) * np.cos(b)])
        dd = np.array(
            [
                np.cos(a) * np.cos(b) * da - np.sin(a) * np.sin(b) * db,
                np.cos(b) * db,
                np.sin(a) * np.cos(b) * da + np.cos(a) * np.sin(b) * db,
            ]
        )
        v_payload = np.array([dx, dy, 0.0]) + dl * d + l * dd
        T = 0.5 * mb * dy**2 + 0.5 * mt * (dx**2 + dy**2)
        z = l * d[2]
    else:
        x, l, th = q
        dx, dl, dth = dq
        v_payload = np.array(
            [dx + dl * np.sin(th) + l * np.cos(th) * dth, 0.0, -dl * np.cos(th) + l * np.sin(th) * dth]
        )
        T = 0.5 * mt * dx**2
        z = -l * np.cos(th)
    T += 0.5 * mw * dl**2 + 0.5 * mp * v_payload @ v_payload
    return T + mp * g * z


@pytest.mark.parametrize("spatial", [False, True])
def test_overhead_crane_matches_lagrange(spatial):
    """M and delta equal Lagrange's equations of hand-written energies, at random states and parameters."""
    g, mt, mp, mw, bx, bl, c = sm.symbols("g m_trolley m_payload m_winch b_x b_l c_theta")
    Ft, Fh = sm.symbols("F_trolley F_hoist")
    if spatial:
        q = sm.symbols("x y l theta_x theta_y")
        dq = sm.symbols("dx dy dl dtheta_x dtheta_y")
        x, y, l, a, b = q
        mb, by, Fb = sm.symbols("m_bridge b_y F_bridge")
        d = sm.Matrix([sm.sin(a) * sm.cos(b), sm.sin(b), -sm.cos(a) * sm.cos(b)])
        r_payload = sm.Matrix([x, y, 0]) + l * d
        T_extra = mb * dq[1] ** 2 / 2 + mt * (dq[0] ** 2 + dq[1] ** 2) / 2
        Q = [Ft - bx * dq[0], Fb - by * dq[1], -Fh - bl * dq[2], -c * dq[3], -c * dq[4]]
    else:
        q = sm.symbols("x l theta")
        dq = sm.symbols("dx dl dtheta")
        x, l, th = q
        r_payload = sm.Matrix([x + l * sm.sin(th), 0, -l * sm.cos(th)])
        T_extra = mt * dq[0] ** 2 / 2
        Q = [Ft - bx * dq[0], -Fh - bl * dq[1], -c * dq[2]]
    v_payload = r_payload.jacobian(q) * sm.Matrix(dq)
    T = T_extra + mw * dq[q.index(l)] ** 2 / 2 + mp * (v_payload.T * v_payload)[0] / 2
    V = mp * g * r_payload[2]
    M_ref, delta_ref = _lagrange(T, V, q, dq, Q)
    eq = example("overhead_crane", spatial=spatial).derive()
    names = [x.name for x in eq.parameters] + [x.name for x in eq.inputs]
    syms = list(q) + list(dq) + [sm.Symbol(n) for n in names]
    f = sm.lambdify(syms, [M_ref, delta_ref], "numpy")
    rng = np.random.default_rng(4 + spatial)
    for _ in range(10):
        qv = rng.uniform(-1.5, 1.5, len(q))
        qv[q.index(l)] = rng.uniform(2, 20)
        dqv = rng.uniform(-2, 2, len(q))
        p = {x.name: x.value * rng.uniform(0.5, 2) for x in eq.parameters}
        u = {x.name: rng.uniform(-5e4, 5e4) for x in eq.inputs}
        pv, uv = _values(eq, p, u)
        M, delta = NumericModel(eq, p).M_delta(qv, dqv, t=0.0, u=uv)
        Mr, dr = f(*qv, *dqv, *pv, *uv)
        np.testing.assert_allclose(M, np.asarray(Mr, float), rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(delta, np.asarray(dr, float).ravel(), rtol=1e-10, atol=1e-7)


@pytest.mark.parametrize("spatial", [False, True])
def test_overhead_crane_hanging_equilibrium(spatial):
    """At rest, hanging, F_hoist = m_payload g gives zero accelerations; any other force accelerates the hoist."""
    eq = example("overhead_crane", spatial=spatial).derive()
    nm = NumericModel(eq)
    p = {x.name: x.value for x in eq.parameters}
    weight = p["m_payload"] * p["g"]
    u_names = [x.name for x in eq.inputs]
    assert eq.u0[u_names.index("F_hoist")] == pytest.approx(weight, rel=1e-15)
    il = [c.name for c in eq.coordinates].index("l")
    for x0, l0 in [(0.0, 12.0), (7.5, 3.0), (-20.0, 30.0)]:
        q = np.zeros(eq.nq)
        q[0], q[il] = x0, l0
        ddq = nm.accelerations(q, np.zeros(eq.nq), t=0.0, u=eq.u0)[0]
        np.testing.assert_allclose(ddq, 0.0, atol=1e-12)
        y = nm.outputs(q, np.zeros(eq.nq), t=0.0, u=eq.u0, ddq=ddq)
        out = [o.name for o in eq.outputs]
        assert y[out.index("rope_tension")] == pytest.approx(weight, rel=1e-14)
        assert y[out.index("z_payload")] == pytest.approx(-l0, rel=1e-14)
        assert y[out.index("x_payload")] == pytest.approx(x0, abs=1e-14)
        # a hoist force 1 kN above the weight lifts payload and winch together
        u = eq.u0.copy()
        u[u_names.index("F_hoist")] += 1000.0
        ddq = nm.accelerations(q, np.zeros(eq.nq), t=0.0, u=u)[0]
        expected = np.zeros(eq.nq)
        expected[il] = -1000.0 / (p["m_payload"] + p["m_winch"])
        np.testing.assert_allclose(ddq, expected, atol=1e-12)


def _swing_omega2(p: dict, l: float) -> float:
    """Small-swing frequency squared of the planar crane with a free trolley.

    Linearized about the hanging state (theta = 0, F_hoist = m_p g) the rope-length
    equation decouples (the rope is vertical, so dl neither moves the trolley nor
    swings the load, and a constant hoist force makes l neutral): the winch inertia
    does not enter.  The (x, theta) block is
    ``[[m_t + m_p, m_p l], [m_p l, m_p l^2]] ddq + diag(0, m_p g l) q = 0``, whose
    non-zero root is ``omega^2 = g/l (1 + m_p/m_t)``.
    """
    return p["g"] / l * (1 + p["m_payload"] / p["m_trolley"])


@pytest.mark.parametrize(
    "changes",
    [{}, {"m_winch": 3000.0}, {"m_trolley": 400.0, "m_payload": 10000.0}, {"m_trolley": 1e12}],
    ids=["default", "heavy_winch", "light_trolley", "trolley_held"],
)
def test_overhead_crane_small_swing_frequency(changes):
    """Eigenvalues of the finite-difference linearization: +-i omega and four zeros (undamped)."""
    eq = example("overhead_crane").derive()
    p = {x.name: x.value for x in eq.parameters} | OVERHEAD_UNDAMPED | changes
    p = {k: v for k, v in p.items() if k in {x.name for x in eq.parameters}}
    nm = NumericModel(eq, p)
    u = np.array([0.0, p["m_payload"] * p["g"]])
    for l0 in (12.0, 4.0):
        A = _fd_state_matrix(nm, np.array([3.0, l0, 0.0]), np.zeros(3), u)
        ev = np.linalg.eigvals(A)
        omega = np.sqrt(_swing_omega2(p, l0))
        osc = sorted(ev, key=lambda z: -abs(z))[:2]
        np.testing.assert_allclose(sorted(np.imag(osc)), [-omega, omega], rtol=1e-7)
        np.testing.assert_allclose(np.real(osc), 0.0, atol=1e-7 * omega)
        assert np.all(np.abs(sorted(ev, key=abs)[:4]) < 1e-5 * omega)
    if changes.get("m_trolley") == 1e12:
        assert omega == pytest.approx(np.sqrt(p["g"] / l0), rel=1e-8)  # the trolley held in place


def test_overhead_crane_swing_period_in_simulation():
    """A small free swing (trolley free, undamped) repeats with period 2 pi / omega."""
    eq = example("overhead_crane").derive()
    p = {x.name: x.value for x in eq.parameters} | OVERHEAD_UNDAMPED
    p = {k: v for k, v in p.items() if k in {x.name for x in eq.parameters}}
    nm = NumericModel(eq, p)
    u = np.array([0.0, p["m_payload"] * p["g"]])
    l0 = 12.0
    period = 2 * np.pi / np.sqrt(_swing_omega2(p, l0))
    # the theta zero crossings going upwards are one period apart
    t_fine = np.linspace(0, 3.2 * period, 20001)
    x0 = np.array([0.0, l0, 1e-3, 0, 0, 0])
    sol = _integrate(nm, x0, 3.2 * period, lambda t: u, rtol=1e-12, atol=1e-14, t_eval=t_fine)
    assert sol.success
    th = sol.y[2]
    up = np.where((th[:-1] < 0) & (th[1:] >= 0))[0]
    assert len(up) >= 2
    crossings = t_fine[up] - th[up] * (t_fine[up + 1] - t_fine[up]) / (th[up + 1] - th[up])
    np.testing.assert_allclose(np.diff(crossings), period, rtol=2e-4)


@pytest.mark.parametrize("spatial", [False, True])
def test_overhead_crane_energy_conserved_without_damping(spatial):
    """Undamped, F_hoist constant, no traction: T + V + F_hoist l is constant (hand-formula energy)."""
    eq = example("overhead_crane", spatial=spatial).derive()
    p = {x.name: x.value for x in eq.parameters} | OVERHEAD_UNDAMPED
    p = {k: v for k, v in p.items() if k in {x.name for x in eq.parameters}}
    nm = NumericModel(eq, p)
    Fh = 0.8 * p["m_payload"] * p["g"]  # the payload falls while it swings
    u = np.array([Fh if x.name == "F_hoist" else 0.0 for x in eq.inputs])
    il = [c.name for c in eq.coordinates].index("l")
    q0 = np.zeros(eq.nq)
    q0[il] = 10.0
    q0[il + 1 :] = 0.4
    dq0 = np.linspace(0.3, -0.2, eq.nq)
    sol = _integrate(nm, np.concatenate([q0, dq0]), 20.0, lambda t: u, t_eval=np.linspace(0, 20, 41))
    assert sol.success
    n = eq.nq
    E = [overhead_energy(x[:n], x[n:], p, spatial) + Fh * x[il] for x in sol.y.T]
    scale = p["m_payload"] * p["g"] * 10.0
    assert np.ptp(E) < 1e-9 * scale
    assert np.ptp(sol.y[il]) > 5.0  # the test moved the hoist


@pytest.mark.parametrize("spatial", [False, True])
def test_overhead_crane_energy_balance_with_damping_and_inputs(spatial):
    """Energy change equals the work of the inputs minus the viscous dissipation."""
    eq = example("overhead_crane", spatial=spatial).derive()
    p = {x.name: x.value for x in eq.parameters}
    nm = NumericModel(eq)
    # a lot of damping so that dissipation is a visible part of the balance
    p |= {"b_x": 2500.0, "b_l": 1200.0, "c_theta": 4e4, "b_y": 3000.0}
    p = {k: v for k, v in p.items() if k in {x.name for x in eq.parameters}}
    nm = NumericModel(eq, p)
    names = [x.name for x in eq.inputs]
    coords = [c.name for c in eq.coordinates]
    weight = p["m_payload"] * p["g"]

    def u_of_t(t):
        vals = {
            "F_trolley": 8000 * np.sin(0.7 * t),
            "F_hoist": weight * (1 + 0.1 * np.cos(1.3 * t)),
            "F_bridge": 5000.0,
        }
        return np.array([vals[k] for k in names])

    damping = {"x": "b_x", "y": "b_y", "l": "b_l", "theta": "c_theta", "theta_x": "c_theta", "theta_y": "c_theta"}
    drive = {"x": "F_trolley", "y": "F_bridge", "l": "F_hoist"}

    def power(t, q, dq, u):
        uu = dict(zip(names, u))
        w_in = sum((-1 if k == "l" else 1) * uu[drive[k]] * dq[coords.index(k)] for k in drive if k in coords)
        w_diss = sum(p[damping[k]] * dq[i] ** 2 for i, k in enumerate(coords))
        return [w_in, w_diss]

    n = eq.nq
    q0 = np.zeros(n)
    q0[coords.index("l")] = 12.0
    x0 = np.concatenate([q0, np.zeros(n), [0.0, 0.0]])
    sol = _integrate(nm, x0, 15.0, u_of_t, extra=power, t_eval=np.linspace(0, 15, 31))
    assert sol.success
    E = np.array([overhead_energy(x[:n], x[n : 2 * n], p, spatial) for x in sol.y.T])
    W_in, W_diss = sol.y[2 * n], sol.y[2 * n + 1]
    assert W_diss[-1] > 1e-3 * np.abs(W_in).max()  # dissipation matters in the balance
    np.testing.assert_allclose(E - E[0], W_in - W_diss, rtol=0, atol=1e-8 * np.abs(W_in).max())


# ---------------------------------------------------------------------------
# tower crane: independent derivation with sympy.physics.mechanics
# ---------------------------------------------------------------------------

TOWER_DAMPING = ("c_slew", "b_r", "c_swing", "c_twist", "b_l")


def kane_tower_crane(hoist: bool):
    """The tower crane built with sympy.physics.mechanics (KanesMethod, u = dq).

    Returns the KanesMethod object, the bodies, the symbols and the potential energy.
    Generalized forces that act on one coordinate by definition (swing and twist
    dampers, twist spring) are added to the forcing; every other load is applied
    as forces and torques on the bodies.
    """
    names = ["theta", "r"] + (["l"] if hoist else []) + ["beta_r", "beta_t", "gamma"]
    q = me.dynamicsymbols(names)
    u = me.dynamicsymbols(["d" + n for n in names])
    Q = dict(zip(names, q))
    U = dict(zip(names, u))
    par = sm.symbols(
        "g H J_slew m_jib m_trolley m_payload I_xx I_yy I_zz I_xy I_yz I_xz c_slew b_r c_swing k_twist c_twist"
    )
    g, H, J_slew, m_jib, m_t, m_p, Ixx, Iyy, Izz, Ixy, Iyz, Ixz, c_slew, b_r, c_swing, k_tw, c_tw = par
    if hoist:
        m_w, b_l = sm.symbols("m_winch b_l")
        par = (*par, m_w, b_l)
        l = Q["l"]
    else:
        l = sm.Symbol("l")
        par = (*par, l)
    tau, F_t = me.dynamicsymbols("tau_slew F_trolley")
    inputs = [tau, F_t]
    if hoist:
        F_h = me.dynamicsymbols("F_hoist")
        inputs.append(F_h)

    N = me.ReferenceFrame("N")
    J = N.orientnew("J", "Axis", [Q["theta"], N.z])
    R1 = J.orientnew("R1", "Axis", [-Q["beta_r"], J.y])
    R = R1.orientnew("R", "Axis", [Q["beta_t"], R1.x])
    B = R.orientnew("B", "Axis", [Q["gamma"], R.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    top = O.locatenew("top", H * N.z)
    top.set_vel(N, 0)
    A = top.locatenew("A", Q["r"] * J.x)
    A.set_vel(N, A.pos_from(O).dt(N))
    A_jib = top.locatenew("A_jib", Q["r"] * J.x)  # the jib's material point under the trolley
    A_jib.v2pt_theory(top, N, J)
    G = A.locatenew("G", -l * R.z)
    G.set_vel(N, G.pos_from(O).dt(N))

    jib = me.RigidBody("jib", top, J, m_jib, (me.inertia(J, 0, J_slew, J_slew), top))
    trolley = me.Particle("trolley", A, m_t)
    bar = me.RigidBody("bar", G, B, m_p, (me.inertia(B, Ixx, Iyy, Izz, Ixy, Iyz, Ixz), G))
    bodies = [jib, trolley, bar]
    loads = [
        (A, -m_t * g * N.z),
        (G, -m_p * g * N.z),
        (J, (tau - c_slew * U["theta"]) * N.z),
        (A, (F_t - b_r * U["r"]) * J.x),
        (A_jib, -(F_t - b_r * U["r"]) * J.x),
    ]
    V = m_t * g * A.pos_from(O).dot(N.z) + m_p * g * G.pos_from(O).dot(N.z) + k_tw * Q["gamma"] ** 2 / 2
    if hoist:
        W = O.locatenew("W", l * N.x)
        W.set_vel(N, U["l"] * N.x)
        bodies.append(me.Particle("winch", W, m_w))
        loads.append((W, -m_w * g * N.z))
        # the hoist pulls the payload up the rope and the trolley down it
        pull = F_h + b_l * U["l"]
        loads += [(G, pull * R.z), (A, -pull * R.z)]
    kd = [qi.diff() - ui for qi, ui in zip(q, u)]
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=kd)
    kane.kanes_equations(bodies, loads)
    extra = sm.zeros(len(q), 1)
    extra[names.index("beta_r")] = -c_swing * U["beta_r"]
    extra[names.index("beta_t")] = -c_swing * U["beta_t"]
    extra[names.index("gamma")] = -k_tw * Q["gamma"] - c_tw * U["gamma"]
    syms = {"q": q, "u": u, "par": par, "inputs": inputs, "names": names, "N": N}
    return kane, kane.forcing + extra, bodies, V, syms


@pytest.fixture(scope="module", params=[False, True], ids=["fixed_rope", "hoist"])
def tower(request):
    hoist = request.param
    kane, forcing, bodies, V, S = kane_tower_crane(hoist)
    q, u = S["q"], S["u"]
    # plain symbols for lambdify
    qs = sm.symbols(S["names"])
    us = sm.symbols(["d" + n for n in S["names"]])
    ins = sm.symbols([str(x.func) for x in S["inputs"]])
    rep = dict(zip(q, qs)) | dict(zip(u, us)) | dict(zip(S["inputs"], ins))
    args = [qs, us, S["par"], ins]
    fM = sm.lambdify(args, me.msubs(kane.mass_matrix, rep))
    fF = sm.lambdify(args, me.msubs(forcing, rep))
    KE = me.kinetic_energy(S["N"], *bodies)
    KE = KE.subs({qi.diff(): ui for qi, ui in zip(q, u)})
    fE = sm.lambdify(args, me.msubs(KE + V, rep))
    eq = example("tower_crane", hoist=hoist).derive()
    par_names = [str(x) for x in S["par"]]
    assert sorted(par_names) == sorted(x.name for x in eq.parameters)
    assert [c.name for c in eq.coordinates] == S["names"]
    return {
        "hoist": hoist,
        "eq": eq,
        "fM": fM,
        "fF": fF,
        "fE": fE,
        "par_names": par_names,
        "in_names": [str(x) for x in ins],
    }


def _tower_args(tower, p: dict, u: np.ndarray):
    pv = [p[n] for n in tower["par_names"]]
    uu = dict(zip([x.name for x in tower["eq"].inputs], u))
    return pv, [uu[n] for n in tower["in_names"]]


def test_tower_crane_matches_kane(tower):
    """M and delta equal KanesMethod's mass matrix and forcing at random states to 1e-9 relative."""
    eq = tower["eq"]
    rng = np.random.default_rng(7 + tower["hoist"])
    coords = [c.name for c in eq.coordinates]
    for _ in range(15):
        q = rng.uniform(-1.2, 1.2, eq.nq)
        q[coords.index("r")] = rng.uniform(3, 50)
        if tower["hoist"]:
            q[coords.index("l")] = rng.uniform(3, 40)
        dq = rng.uniform(-1, 1, eq.nq)
        # random tensor-valued inertia (positive definite, with products of inertia)
        p = {x.name: x.value * rng.uniform(0.5, 2) for x in eq.parameters}
        Lw = rng.uniform(-1, 1, (3, 3))
        I = Lw @ Lw.T * 3000 + np.diag([50, 5000, 5000])
        p |= {"I_xx": I[0, 0], "I_yy": I[1, 1], "I_zz": I[2, 2], "I_xy": I[0, 1], "I_yz": I[1, 2], "I_xz": I[0, 2]}
        u = rng.uniform(-2e4, 2e4, eq.nu)
        M, delta = NumericModel(eq, p).M_delta(q, dq, t=0.0, u=u)
        pv, uv = _tower_args(tower, p, u)
        Mk = np.asarray(tower["fM"](q, dq, pv, uv), float)
        Fk = np.asarray(tower["fF"](q, dq, pv, uv), float).ravel()
        np.testing.assert_allclose(M, Mk, rtol=1e-9, atol=1e-9 * np.abs(Mk).max())
        np.testing.assert_allclose(delta, Fk, rtol=1e-9, atol=1e-9 * np.abs(Fk).max())


def test_tower_crane_hanging_equilibrium_and_rope_tension(tower):
    """Hanging at rest: zero accelerations at any slew angle and radius; rope tension = payload weight."""
    eq = tower["eq"]
    nm = NumericModel(eq)
    coords = [c.name for c in eq.coordinates]
    outs = [o.name for o in eq.outputs]
    p = {x.name: x.value for x in eq.parameters}
    weight = p["m_payload"] * p["g"]
    for theta, r in [(0.0, 25.0), (2.0, 5.0), (-1.0, 48.0)]:
        q = eq.q0.copy()
        q[coords.index("theta")], q[coords.index("r")] = theta, r
        ddq = nm.accelerations(q, np.zeros(eq.nq), t=0.0, u=eq.u0)[0]
        np.testing.assert_allclose(ddq, 0.0, atol=1e-12)
        y = nm.outputs(q, np.zeros(eq.nq), t=0.0, u=eq.u0, ddq=ddq)
        assert y[outs.index("rope_tension")] == pytest.approx(weight, rel=1e-13)
        l = q[coords.index("l")] if tower["hoist"] else p["l"]
        assert y[outs.index("z_payload")] == pytest.approx(p["H"] - l, rel=1e-13)
        assert y[outs.index("x_payload")] == pytest.approx(r * np.cos(theta), rel=1e-13)
        assert y[outs.index("y_payload")] == pytest.approx(r * np.sin(theta), rel=1e-13)


def test_tower_crane_rope_tension_equals_winch_balance():
    """With the hoist, Newton's rope tension at the payload equals the winch balance F_hoist + b_l dl + m_w ddl."""
    eq = example("tower_crane", hoist=True).derive()
    nm = NumericModel(eq)
    coords = [c.name for c in eq.coordinates]
    il = coords.index("l")
    p = {x.name: x.value for x in eq.parameters}
    rng = np.random.default_rng(11)
    for _ in range(10):
        q = rng.uniform(-0.8, 0.8, eq.nq)
        q[coords.index("r")], q[il] = rng.uniform(3, 50), rng.uniform(3, 40)
        dq = rng.uniform(-1, 1, eq.nq)
        u = np.array([rng.uniform(-1e5, 1e5), rng.uniform(-5e3, 5e3), rng.uniform(0, 4e4)])
        ddq = nm.accelerations(q, dq, t=0.0, u=u)[0]
        y = nm.outputs(q, dq, t=0.0, u=u, ddq=ddq)
        tension = y[[o.name for o in eq.outputs].index("rope_tension")]
        F_hoist = u[[x.name for x in eq.inputs].index("F_hoist")]
        assert tension == pytest.approx(F_hoist + p["b_l"] * dq[il] + p["m_winch"] * ddq[il], rel=1e-10)


def test_tower_crane_swing_and_twist_frequencies():
    """Undamped linearization at the hanging state against the hand linearization.

    About the hanging state (gamma = 0, principal axes along the jib) the radial block
    ``(r, beta_r)`` and the tangential block ``(theta, beta_t, gamma)`` decouple.  With
    ``v_G = (dr + l dbeta_r, r dtheta + l dbeta_t, 0)`` in the jib base and the payload
    turning at ``(dbeta_t, -dbeta_r, dtheta + dgamma)``:

    * radial: ``M = [[m_t + m, m l], [m l, m l^2 + I_yy]]``, ``K = diag(0, m g l)``;
    * tangential: ``M = [[J + (m_t + m) r^2 + I_zz, m r l, I_zz], [m r l, m l^2 + I_xx, 0],
      [I_zz, 0, I_zz]]``, ``K = diag(0, m g l, k_twist)``.
    """
    from scipy.linalg import eigh

    eq = example("tower_crane").derive()
    p = {x.name: x.value for x in eq.parameters} | {k: 0.0 for k in TOWER_DAMPING if k != "b_l"}
    p["k_twist"] = 800.0  # a twist mode well apart from the others
    nm = NumericModel(eq, p)
    r0, l = 30.0, p["l"]
    m, mt, g = p["m_payload"], p["m_trolley"], p["g"]
    q = np.array([0.4, r0, 0, 0, 0])
    A = _fd_state_matrix(nm, q, np.zeros(5), np.zeros(2))
    ev = np.linalg.eigvals(A)
    omegas = np.sort(np.abs(np.imag(ev[np.abs(ev) > 1e-4])))[::2]
    assert np.all(np.abs(np.real(ev)) < 1e-6)
    radial = eigh(np.diag([0, m * g * l]), [[mt + m, m * l], [m * l, m * l**2 + p["I_yy"]]], eigvals_only=True)
    Mt = [
        [p["J_slew"] + (mt + m) * r0**2 + p["I_zz"], m * r0 * l, p["I_zz"]],
        [m * r0 * l, m * l**2 + p["I_xx"], 0],
        [p["I_zz"], 0, p["I_zz"]],
    ]
    tangential = eigh(np.diag([0, m * g * l, p["k_twist"]]), Mt, eigvals_only=True)
    expected = np.sort(np.sqrt(np.concatenate([radial, tangential])[[1, 3, 4]]))
    np.testing.assert_allclose(omegas, expected, rtol=1e-6)
    # the radial formula in closed form, trolley free: m g l (m_t + m) / (m_t (m l^2 + I) + m I)
    I = p["I_yy"]
    assert radial[1] == pytest.approx(m * g * l * (mt + m) / (mt * (m * l**2 + I) + m * I), rel=1e-12)


def test_tower_crane_energy_conserved_without_damping(tower):
    """Undamped, no slew torque or traction, constant hoist force: the energy is constant."""
    eq = tower["eq"]
    p = {x.name: x.value for x in eq.parameters} | {k: 0.0 for k in TOWER_DAMPING}
    p = {k: v for k, v in p.items() if k in tower["par_names"]}
    nm = NumericModel(eq, p)
    Fh = 0.9 * p["m_payload"] * p["g"]
    u = np.array([Fh if x.name == "F_hoist" else 0.0 for x in eq.inputs])
    coords = [c.name for c in eq.coordinates]
    q0 = np.array([0.0, 20.0] + ([15.0] if tower["hoist"] else []) + [0.5, -0.4, 0.3])
    dq0 = np.array([0.1, 0.5] + ([0.2] if tower["hoist"] else []) + [0.2, 0.3, 1.0])
    sol = _integrate(nm, np.concatenate([q0, dq0]), 20.0, lambda t: u, t_eval=np.linspace(0, 20, 41))
    assert sol.success
    n = eq.nq
    E = []
    for x in sol.y.T:
        pv, uv = _tower_args(tower, p, u)
        e = float(tower["fE"](x[:n], x[n:], pv, uv))
        if tower["hoist"]:
            e += Fh * x[coords.index("l")]
        E.append(e)
    scale = p["m_payload"] * p["g"] * 20.0
    assert np.ptp(E) < 1e-9 * scale
    assert np.ptp(sol.y[coords.index("gamma")]) > 0.5  # the twist took part


def test_tower_crane_energy_balance_with_damping_and_inputs(tower):
    """Energy change equals the input work minus the viscous dissipation (slew, trolley and hoist)."""
    eq = tower["eq"]
    p = {x.name: x.value for x in eq.parameters}
    p |= {"c_slew": 2e6, "b_r": 2000.0, "c_swing": 2e4, "c_twist": 2e3, "b_l": 2000.0}
    p = {k: v for k, v in p.items() if k in tower["par_names"]}
    nm = NumericModel(eq, p)
    names = [x.name for x in eq.inputs]
    coords = [c.name for c in eq.coordinates]
    weight = p["m_payload"] * p["g"]

    def u_of_t(t):
        vals = {
            "tau_slew": 3e5 * np.sin(0.4 * t),
            "F_trolley": 4000 * np.cos(0.9 * t),
            "F_hoist": weight * (1 + 0.1 * np.sin(t)),
        }
        return np.array([vals[k] for k in names])

    damping = {"theta": "c_slew", "r": "b_r", "l": "b_l", "beta_r": "c_swing", "beta_t": "c_swing", "gamma": "c_twist"}

    def power(t, q, dq, u):
        uu = dict(zip(names, u))
        w_in = uu["tau_slew"] * dq[coords.index("theta")] + uu["F_trolley"] * dq[coords.index("r")]
        if "l" in coords:
            w_in -= uu["F_hoist"] * dq[coords.index("l")]
        w_diss = sum(p[damping[k]] * dq[i] ** 2 for i, k in enumerate(coords))
        return [w_in, w_diss]

    n = eq.nq
    x0 = np.concatenate([eq.q0, np.zeros(n), [0.0, 0.0]])
    sol = _integrate(nm, x0, 15.0, u_of_t, extra=power, t_eval=np.linspace(0, 15, 31))
    assert sol.success
    E = []
    for x in sol.y.T:
        pv, uv = _tower_args(tower, p, np.zeros(eq.nu))
        E.append(float(tower["fE"](x[:n], x[n : 2 * n], pv, uv)))
    E = np.array(E)
    W_in, W_diss = sol.y[2 * n], sol.y[2 * n + 1]
    assert W_diss[-1] > 1e-2 * np.abs(W_in).max()
    np.testing.assert_allclose(E - E[0], W_in - W_diss, rtol=0, atol=1e-8 * np.abs(W_in).max())
