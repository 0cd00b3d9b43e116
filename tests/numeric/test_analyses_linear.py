"""Static equilibrium, linearization and modal analysis (symbody.numeric.equilibrium / linearize / modes).

Checks: closed-form equilibrium angle of a pendulum with a torsional spring;
the linearized simple pendulum (omega = sqrt(g / l), damping); the textbook A
and B of the cart-pendulum; exact Jacobians against finite differences of the
reduced equations for a closed loop and a non-holonomic system away from
equilibrium; modes of the square-disc double pendulum against a Lagrangian
derived by hand in SymPy, in relative and in natural coordinates; LQR design
with python-control stabilizing the nonlinear cart-pendulum.
"""

import math

import numpy as np
import pytest
import scipy.optimize
import sympy as sm

import symbody as sb
from symbody.numeric import (
    NumericModel,
    assemble,
    linearize,
    modal_analysis,
    simulate,
    solve_velocities,
    static_equilibrium,
)

from support import example

G = 9.81

pytestmark = pytest.mark.filterwarnings("ignore:.*redundant at the initial configuration")


# ---------------------------------------------------------------------------
# static equilibrium
# ---------------------------------------------------------------------------


def spring_pendulum(k=20.0, rest=1.0, m=1.5, l=0.8):
    s = sb.System("spring_pendulum")
    th = s.coordinate("theta", 0.2)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, sb.Vector(B, 0, -s.parameter("l", l), 0)), s.parameter("m", m))
    s.gravity((0, -G, 0))
    s.torsion_spring_damper("spring", th, k=s.parameter("k", k), rest_angle=s.parameter("rest", rest))
    return s


def test_equilibrium_of_a_pendulum_with_a_torsional_spring_matches_closed_form():
    k, rest, m, l = 20.0, 1.0, 1.5, 0.8
    eq = spring_pendulum(k, rest, m, l).derive()
    res = static_equilibrium(eq)
    exact = scipy.optimize.brentq(lambda x: k * (x - rest) + m * G * l * math.sin(x), 0.0, rest, xtol=1e-15)
    assert res["theta"] == pytest.approx(exact, abs=1e-12)
    assert res.residual < 1e-10 and res.iterations <= 8
    # with other parameters (and a relaxed Newton)
    res2 = static_equilibrium(NumericModel(eq, {"k": 5.0}), relax=0.5, max_iter=200)
    exact2 = scipy.optimize.brentq(lambda x: 5.0 * (x - rest) + m * G * l * math.sin(x), 0.0, rest, xtol=1e-15)
    assert res2["theta"] == pytest.approx(exact2, abs=1e-10)


def test_holding_effort_of_a_held_coordinate():
    eq = example("simple_pendulum").derive()
    res = static_equilibrium(eq, [0.7], fixed=["theta"])
    assert res["theta"] == 0.7
    assert res.holding["theta"] == pytest.approx(1.0 * G * 1.0 * math.sin(0.7), rel=1e-12)


def test_equilibrium_with_constraints_in_both_coordinate_sets():
    rel = static_equilibrium(example("double_pendulum_square_disc").derive(), [-1.0, -0.5])
    nat_eq = example("double_pendulum_square_disc", coordinates="natural").derive()
    nat = static_equilibrium(nat_eq, [0.8, -1.7, 1.0, -3.5])
    th1, th2 = rel.q
    x1, y1 = 2 * math.cos(th1), 2 * math.sin(th1)
    x2, y2 = x1 + 2 * math.cos(th1 + th2), y1 + 2 * math.sin(th1 + th2)
    np.testing.assert_allclose(nat.q, [x1, y1, x2, y2], atol=1e-10)
    # the square's centre of mass is below the hinge, the disc hangs vertically
    assert abs(x2 - x1) < 1e-10 and y2 < y1
    # point 2 carries half the disc's weight (Problemas dinámicos, eq. 72): the lower bar holds it with tension m g / 2
    rows = [r.name for r in nat_eq.constraint_rows]
    t_low = 2 * 2.0 * nat.lam[rows.index("bar12")]  # row |r12|^2 - L^2: tension = 2 L lambda, L = 2
    assert t_low == pytest.approx(G / 2, rel=1e-10)


def test_slider_crank_equilibrium_normal_force():
    from test_numeric_dynamics import slider_normal_force_newton_euler

    eq = example("slider_crank").derive()
    res = static_equilibrium(eq, assemble(eq).q)
    ddq, lam = NumericModel(eq).accelerations(res.q, [0.0, 0.0])
    assert np.max(np.abs(ddq)) < 1e-12
    p = {x.name: x.value for x in eq.parameters}
    N = slider_normal_force_newton_euler(res.q, [0, 0], [0, 0], p)
    assert -res.lam[0] == pytest.approx(N, rel=1e-10)


def test_no_equilibrium_is_reported():
    eq = example("n_link_pendulum_on_cart", n=1).derive()
    with pytest.raises(sb.NumericalError, match="static equilibrium.*no convergence.*'q0'"):
        static_equilibrium(eq, [0.0, -1.5], u={"F": 1.0})


# ---------------------------------------------------------------------------
# linearization: textbook cases
# ---------------------------------------------------------------------------


def test_linearized_simple_pendulum():
    g, l, m, c = G, 1.0, 1.0, 0.05
    eq = example("simple_pendulum").derive()
    lin = linearize(eq, [0.0])
    assert lin.states == ["theta", "dtheta"] and lin.inputs == ["T"] and lin.outputs == ["x", "y"]
    np.testing.assert_allclose(lin.A, [[0, 1], [-g / l, -c / (m * l**2)]], atol=1e-14)
    np.testing.assert_allclose(lin.B, [[0], [1 / (m * l**2)]], atol=1e-14)
    np.testing.assert_allclose(lin.C, [[l, 0], [0, 0]], atol=1e-14)
    np.testing.assert_allclose(lin.D, [[0], [0]], atol=1e-14)
    so = lin.second_order
    assert (so.M[0, 0], so.C[0, 0], so.K[0, 0], so.B[0, 0]) == pytest.approx((m * l**2, c, m * g * l, 1.0))
    modes = modal_analysis(eq, [0.0])
    assert modes.omega[0] == pytest.approx(math.sqrt(g / l), rel=1e-13)
    assert modes.frequency[0] == pytest.approx(math.sqrt(g / l) / (2 * math.pi), rel=1e-13)
    w = math.sqrt(g / l)
    assert modes.damping_ratio[0] == pytest.approx(c / (2 * m * l**2 * w), rel=1e-10)
    # scipy and python-control accept the matrices as they are
    import scipy.signal

    ts = np.linspace(0, 5, 101)
    _, y_lin, _ = scipy.signal.lsim(lin.to_scipy(), np.zeros_like(ts), ts, X0=[1e-3, 0.0])
    y_nl = simulate(eq, 5.0, t_eval=ts, q0=[1e-3], rtol=1e-12, atol=1e-14)["x"]
    np.testing.assert_allclose(y_lin[:, 0], y_nl, atol=1e-9)  # nonlinear terms are O(theta^3)
    control = pytest.importorskip("control")
    sys_ct = lin.to_control()
    assert sys_ct.input_labels == ["T"] and sys_ct.state_labels == ["theta", "dtheta"]
    assert control.dcgain(sys_ct)[0] == pytest.approx(l / (m * g * l), rel=1e-12)  # x = l theta, theta = T / (m g l)


def cart_pendulum_textbook(M, m, l):
    """Linearization about the upright position of a point-mass pendulum on a cart.

    Coordinates x (cart) and phi = q1 - pi/2 (from the upward vertical, counter-clockwise; the bob at
    (x - l sin phi, l cos phi)); inputs F (on the cart) and tau (on the link).  Lagrange:
    (M+m) x'' - m l phi'' = F and m l^2 phi'' - m l x'' - m g l phi = tau, hence
    x'' = (F + tau/l + m g phi)/M and phi'' = tau/(m l^2) + x''/l + g phi/l.
    """
    A = np.array([[0, 0, 1, 0], [0, 0, 0, 1], [0, m * G / M, 0, 0], [0, (M + m) * G / (M * l), 0, 0]])
    B = np.array([[0, 0], [0, 0], [1 / M, 1 / (M * l)], [1 / (M * l), 1 / (m * l**2) + 1 / (M * l**2)]])
    return A, B


def test_linearized_cart_pendulum_matches_the_textbook():
    M, m, l = 2.0, 0.5, 0.8
    eq = example("n_link_pendulum_on_cart", n=1).derive()
    nm = NumericModel(eq, {"m0": M, "m1": m, "l0": l})
    lin = linearize(nm, [0.0, math.pi / 2], inputs=["F", "T1"], outputs=["q0", "q1"])
    A, B = cart_pendulum_textbook(M, m, l)
    assert lin.states == ["q0", "q1", "dq0", "dq1"]
    np.testing.assert_allclose(lin.A, A, atol=1e-12)
    np.testing.assert_allclose(lin.B, B, atol=1e-12)
    np.testing.assert_allclose(lin.C, np.eye(4)[:2], atol=1e-15)
    # the upright equilibrium is unstable: one mode with omega^2 = -(M + m) g / (M l), the cart is a rigid mode
    modes = modal_analysis(nm, [0.0, math.pi / 2])
    assert modes.rigid_body == 1 and modes.omega.size == 0
    np.testing.assert_allclose(modes.unstable_omega2, [-(M + m) * G / (M * l)], rtol=1e-12)
    # hanging: the pendulum mode omega^2 = (M + m) g / (M l)
    hang = modal_analysis(nm, [0.0, -math.pi / 2])
    assert hang.rigid_body == 1
    np.testing.assert_allclose(hang.omega, [math.sqrt((M + m) * G / (M * l))], rtol=1e-12)


def test_lqr_from_the_linearization_stabilizes_the_nonlinear_cart_pendulum():
    control = pytest.importorskip("control")
    eq = example("n_link_pendulum_on_cart", n=1).derive()
    up = [0.0, math.pi / 2]
    lin = linearize(eq, up, inputs=["F"])
    K, _, poles = control.lqr(lin.to_control(), np.diag([10.0, 100.0, 1.0, 1.0]), np.eye(1))
    assert np.all(np.real(poles) < 0)

    def force(t, q, dq):
        x = np.array([q[0], q[1] - math.pi / 2, dq[0], dq[1]])
        return float(-(K @ x)[0])

    res = simulate(eq, 8.0, q0=[0.2, math.pi / 2 + 0.15], inputs={"F": force}, dt=0.5)
    assert abs(res["q1"][-1] - math.pi / 2) < 1e-3 and abs(res["q0"][-1]) < 1e-2
    assert np.max(np.abs(res["q1"] - math.pi / 2)) < 0.5  # never fell


# ---------------------------------------------------------------------------
# linearization away from equilibrium: exact Jacobians vs finite differences
# ---------------------------------------------------------------------------


def reduced_dynamics(eq, lin, q_guess, u=None):
    """The reduced ODE x' = f(x, u), x = (position-independent coordinates, independent velocities),
    computed with the kinematic solvers and the saddle-point accelerations (not with linearize)."""
    nm = NumericModel(eq)
    names = [c.name for c in eq.coordinates]
    ip = [names.index(n) for n in lin.independent_positions]
    iv = [names.index(n) for n in lin.independent]
    k = len(ip)

    def f(x, uu):
        q = assemble(nm, q_guess, use_initial=False, fixed=dict(zip(lin.independent_positions, x[:k])), tol=1e-14).q
        dq = solve_velocities(nm, q, independent=lin.independent, values=x[k:]).dq
        ddq, lam = nm.accelerations(q, dq, t=0.0, u=uu)
        return np.concatenate([dq[ip], ddq[iv]]), np.concatenate(
            [nm.outputs(q, dq, t=0.0, u=uu, ddq=ddq, lam=lam), dq, lam]
        )

    x0 = np.concatenate([lin.q[ip], lin.dq[iv]])
    return f, x0


def finite_difference(f, x0, u0, h=1e-6):
    f0, y0 = f(x0, u0)
    A = np.zeros((f0.size, x0.size))
    C = np.zeros((y0.size, x0.size))
    for j in range(x0.size):
        e = np.zeros(x0.size)
        e[j] = h
        fp, yp = f(x0 + e, u0)
        fm, ym = f(x0 - e, u0)
        A[:, j], C[:, j] = (fp - fm) / (2 * h), (yp - ym) / (2 * h)
    B = np.zeros((f0.size, u0.size))
    for j in range(u0.size):
        e = np.zeros(u0.size)
        e[j] = h
        B[:, j] = (f(x0, u0 + e)[0] - f(x0, u0 - e)[0]) / (2 * h)
    return A, B, C


def test_closed_loop_linearization_at_a_moving_state_matches_finite_differences():
    eq = example("four_bar").derive()
    q = assemble(eq, [eq.q0[0] + 0.4, *eq.q0[1:]], fixed={"theta1": eq.q0[0] + 0.4}, use_initial=False).q
    dq = solve_velocities(eq, q, independent=["theta1"], values=[2.5]).dq
    lin = linearize(eq, q, dq, independent=["theta1"])
    assert lin.states == ["theta1", "dtheta1"] and lin.outputs == ["C_x", "C_y", "C_z"]
    f, x0 = reduced_dynamics(eq, lin, q)
    A, B, C = finite_difference(f, x0, eq.u0)
    np.testing.assert_allclose(lin.A, A, rtol=1e-6, atol=1e-6 * np.abs(A).max())
    np.testing.assert_allclose(lin.B, B, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(lin.C, C[:3], atol=1e-7)


def test_output_depending_on_multipliers_linearizes_correctly():
    eq = example("slider_crank").derive()
    q = assemble(eq).q
    dq = solve_velocities(eq, q, independent=["a1"], values=[1.3]).dq
    lin = linearize(eq, q, dq, independent=["a1"], outputs=["F_guide", "x_c", "da2", "dda1", "Cp1"])
    f, x0 = reduced_dynamics(eq, lin, q)
    A, _, C = finite_difference(f, x0, eq.u0)  # rows of C: x_c, F_guide, da1, da2, lambda_Cp1
    np.testing.assert_allclose(lin.A, A, rtol=1e-6, atol=1e-6 * np.abs(A).max())
    scale = np.abs(C).max()
    np.testing.assert_allclose(lin.C[0], C[1], rtol=1e-6, atol=1e-6 * scale)  # F_guide (a multiplier)
    np.testing.assert_allclose(lin.C[1], C[0], rtol=1e-6, atol=1e-6 * scale)  # x_c
    np.testing.assert_allclose(lin.C[2], C[3], rtol=1e-6, atol=1e-6 * scale)  # da2 (a dependent velocity)
    np.testing.assert_allclose(lin.C[3], lin.A[1], atol=1e-12)  # dda1 is the derivative of the second state
    np.testing.assert_allclose(lin.C[4], -lin.C[0], atol=1e-12)  # F_guide = -lambda_Cp1


def test_nonholonomic_linearization_matches_finite_differences():
    eq = example("crank_rod_disc").derive()
    nm = NumericModel(eq)
    # a consistent state away from the start (tolerances tighter than 1e-9 only cost time: 14 s at 1e-12)
    sim = simulate(eq, 0.8, t_eval=[0.8], rtol=1e-9, atol=1e-9, formulation="projection", projection_tol=1e-13)
    q, dq = sim.q[-1], sim.dq[-1]
    lin = linearize(nm, q, dq, inputs=["T1"], outputs=["x_c", "y_c"])
    assert len(lin.independent) == 1 and len(lin.independent_positions) == 2
    assert lin.second_order.K.shape == (1, 2)  # rectangular: positions are not all velocity-independent
    f, x0 = reduced_dynamics(eq, lin, q)
    A, B, C = finite_difference(f, x0, eq.u0)
    np.testing.assert_allclose(lin.A, A, rtol=1e-6, atol=1e-6 * np.abs(A).max())
    np.testing.assert_allclose(lin.B, B, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(lin.C, C[:2], rtol=1e-6, atol=1e-8)


def test_linearization_errors():
    eq = example("four_bar").derive()
    with pytest.raises(sb.NumericalError, match="violate constraint 'loop_"):
        linearize(eq, eq.q0 + 0.1)
    with pytest.raises(KeyError, match="'Q' is not an input"):
        linearize(eq, inputs=["Q"])
    with pytest.raises(KeyError, match="'nope' is not an output"):
        linearize(eq, outputs=["nope"])
    with pytest.raises(sb.NumericalError, match="2 independent coordinates given"):
        linearize(eq, independent=["theta1", "theta2"])


# ---------------------------------------------------------------------------
# modes of the square-disc double pendulum: hand Lagrangian in SymPy
# ---------------------------------------------------------------------------


def hand_double_pendulum_frequencies(m=1.0, r=1.0, g=G):
    """Natural frequencies from T and V written by hand (absolute angles of the side 0-1 and diameter 1-2)."""
    p1, p2, w1, w2 = sm.symbols("p1 p2 w1 w2")
    e = lambda a: sm.Matrix([sm.cos(a), sm.sin(a)])  # noqa: E731
    n = lambda a: sm.Matrix([-sm.sin(a), sm.cos(a)])  # noqa: E731
    G1 = r * e(p1) + r * n(p1)  # square: centre at (r, r) in its frame
    G2 = 2 * r * e(p1) + r * e(p2)  # disc: centre r beyond point 1 along the diameter
    v1 = G1.diff(p1) * w1
    v2 = G2.diff(p1) * w1 + G2.diff(p2) * w2
    T = m / 2 * (v1.dot(v1) + v2.dot(v2)) + sm.Rational(2, 3) * m * r**2 * w1**2 / 2 + m * r**2 / 2 * w2**2 / 2
    V = m * g * (G1[1] + G2[1])
    grad = sm.lambdify([(p1, p2)], [V.diff(p1), V.diff(p2)])
    sol = scipy.optimize.fsolve(lambda x: grad(x), [-1.0, -1.5], xtol=1e-14)
    Ms = sm.hessian(T, (w1, w2)).subs({p1: sol[0], p2: sol[1]})
    Ks = sm.hessian(V, (p1, p2)).subs({p1: sol[0], p2: sol[1]})
    w2s = scipy.linalg.eigh(np.array(Ks, dtype=float), np.array(Ms, dtype=float), eigvals_only=True)
    return np.sqrt(w2s), sol


def test_double_pendulum_modes_in_relative_and_natural_coordinates():
    import scipy.linalg  # noqa: F401 - used by the hand derivation

    omega, (p1, p2) = hand_double_pendulum_frequencies()
    rel_eq = example("double_pendulum_square_disc").derive()
    rel = static_equilibrium(rel_eq, [-1.0, -0.5])
    np.testing.assert_allclose(rel.q, [p1, p2 - p1], atol=1e-10)
    mr = modal_analysis(rel_eq, rel.q)
    np.testing.assert_allclose(mr.omega, omega, rtol=1e-10)
    nat_eq = example("double_pendulum_square_disc", coordinates="natural").derive()
    nat = static_equilibrium(nat_eq, [0.8, -1.7, 1.0, -3.5])
    mn = modal_analysis(nat_eq, nat.q)
    assert len(mn.independent) == 2 and mn.rigid_body == 0
    np.testing.assert_allclose(mn.omega, omega, rtol=1e-10)
    # mode shapes: mass-normalized, and the full-coordinate shapes satisfy the linearized constraints
    so = mn.linear.second_order
    np.testing.assert_allclose(mn.shapes.T @ so.M @ mn.shapes, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(mn.linear.constraint_jacobian @ mn.shapes_full, 0.0, atol=1e-12)
    # no damping in the model: the state eigenvalues are purely imaginary at the same frequencies
    np.testing.assert_allclose(np.sort(mn.damped_omega), omega, rtol=1e-9)
    np.testing.assert_allclose(mn.damping_ratio, 0.0, atol=1e-9)


def test_modal_analysis_refuses_a_non_equilibrium():
    eq = example("simple_pendulum").derive()
    with pytest.raises(sb.NumericalError, match="not a static equilibrium.*static_equilibrium"):
        modal_analysis(eq, [0.3])
    with pytest.raises(sb.NumericalError, match="non-holonomic"):
        modal_analysis(example("crank_rod_disc").derive())


def test_neutral_equilibrium_warns_and_names_the_free_coordinate():
    """A rope length held by a force equal to the weight is neutral: the result depends on the guess."""
    import warnings

    from symbody.numeric import NonIsolatedEquilibriumWarning, static_equilibrium

    from support import example

    eq = example("overhead_crane").derive()
    with pytest.warns(NonIsolatedEquilibriumWarning, match="'l' can move"):
        static_equilibrium(eq, fixed=["x"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonIsolatedEquilibriumWarning)
        res = static_equilibrium(eq, fixed=["x", "l"])
    assert res["theta"] == pytest.approx(0.0, abs=1e-12)
