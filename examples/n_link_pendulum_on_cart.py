"""n-link pendulum on a sliding cart: the same system as ``pydy.models.n_link_pendulum_on_cart``.

A cart (point mass ``m0``) slides along x; ``n`` massless links of lengths
``l0..l{n-1}`` carry point masses ``m1..mn``; each link angle ``q{i}`` is
measured from the ground x axis (absolute angles about z); gravity ``g`` acts
along -y.  Inputs: the cart force ``F`` (along +x) and the joint torques
``T1..Tn`` (``T{i}`` acts on link ``i`` and, as reaction, on link ``i-1``).

Run ``symbody info examples/n_link_pendulum_on_cart.py --option n=5``.

``kane_reference(n)`` builds the same system with ``sympy.physics.mechanics``
(exactly as ``pydy.models`` does) for tests and benchmarks.
"""

import symbody as sb


def build(n: int = 3, cart_force: bool = True, joint_torques: bool = True) -> sb.System:
    s = sb.System(
        f"n_link_pendulum_on_cart_{n}" if n != 3 else "n_link_pendulum_on_cart",
        description=f"{n}-link pendulum on a cart (pydy model)",
    )
    g = s.parameter("g", 9.81, unit="m/s2", description="gravity")
    masses = [
        s.parameter(f"m{i}", 1.0, unit="kg", description="cart mass" if i == 0 else f"mass of link {i}")
        for i in range(n + 1)
    ]
    lengths = [s.parameter(f"l{i}", 1.0, unit="m", description=f"length of link {i + 1}") for i in range(n)]
    q = [s.coordinate("q0", 0.0, unit="m", description="cart position")]
    q += [
        s.coordinate(
            f"q{i + 1}",
            1.5707963267948966 - 0.1 * (i + 1),
            unit="rad",
            description=f"angle of link {i + 1} from the x axis",
        )
        for i in range(n)
    ]
    ground = s.ground_base
    cart = s.point("P0", s.origin, (q[0], 0, 0))
    s.particle("Pa0", cart, masses[0])
    prev = cart
    bases = []
    for i in range(n):
        B = s.base(f"B{i}", ground, sb.Rz(q[i + 1]))
        bases.append(B)
        P = s.point(f"P{i + 1}", prev, sb.Vector(B, lengths[i], 0, 0))
        s.particle(f"Pa{i + 1}", P, masses[i + 1])
        prev = P
    s.gravity((0, -g, 0))
    if cart_force:
        F = s.input("F", 0.0, unit="N", description="force on the cart along x")
        s.generalized_force("cart_force", q[0], F)
    if joint_torques:
        for i in range(n):
            T = s.input(f"T{i + 1}", 0.0, unit="N*m", description=f"torque on link {i + 1} from link {i}")
            # torque on link i+1 about z, reaction on link i (the cart does not rotate)
            s.generalized_force(f"torque_{i + 1}", q[i + 1] - (q[i] if i > 0 else 0), T)
    for i in range(n):
        s.output(f"x{i + 1}", s.position(f"P{i + 1}").components(ground)[0], unit="m")
        s.output(f"y{i + 1}", s.position(f"P{i + 1}").components(ground)[1], unit="m")
    return s


def kane_reference(n: int = 3):
    """The same model with ``sympy.physics.mechanics``: ``(KanesMethod, symbols)`` after ``kanes_equations``.

    ``symbols`` maps ``"q", "u", "m", "l", "g", "T", "F"`` to the SymPy symbols
    (dynamic symbols for coordinates, speeds and inputs).
    """
    import sympy as sm
    import sympy.physics.mechanics as me

    q = me.dynamicsymbols(f"q:{n + 1}")
    u = me.dynamicsymbols(f"u:{n + 1}")
    T = me.dynamicsymbols(f"T1:{n + 1}")
    F = me.dynamicsymbols("F")
    m = sm.symbols(f"m:{n + 1}")
    l = sm.symbols(f"l:{n}")  # noqa: E741
    g = sm.symbols("g")
    N = me.ReferenceFrame("I")
    O = me.Point("O")
    O.set_vel(N, 0)
    P0 = O.locatenew("P0", q[0] * N.x)
    P0.set_vel(N, u[0] * N.x)
    particles = [me.Particle("Pa0", P0, m[0])]
    forces = [(P0, -m[0] * g * N.y), (P0, F * N.x)]
    prev = P0
    for i in range(n):
        B = N.orientnew(f"B{i}", "Axis", [q[i + 1], N.z])
        B.set_ang_vel(N, u[i + 1] * N.z)
        P = prev.locatenew(f"P{i + 1}", l[i] * B.x)
        P.v2pt_theory(prev, N, B)
        particles.append(me.Particle(f"Pa{i + 1}", P, m[i + 1]))
        forces.append((P, -m[i + 1] * g * N.y))
        if i == 0:
            forces.append((N, -T[i] * N.z))
        forces.append((B, (T[i] - (T[i + 1] if i < n - 1 else 0)) * N.z))
        prev = P
    kane = me.KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[qi.diff() - ui for qi, ui in zip(q, u)])
    kane.kanes_equations(particles, forces)
    return kane, {"q": q, "u": u, "m": m, "l": l, "g": g, "T": T, "F": F}
