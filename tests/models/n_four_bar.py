"""N-four-bar mechanism: problem A02 of the IFToMM library of computational benchmark problems.

IFToMM Technical Committee for Multibody Dynamics, "Library of computational benchmark problems",
problem A02 (defined by M. González, D. Dopico, U. Lugrís and J. Cuadrado, "A benchmarking system for
MBS simulation software: problem standardization and performance measurement", Multibody System
Dynamics 16, 2006): ``N`` four-bar windows of ``2N + 1`` links, every link 1 m long with 1 kg
uniformly distributed, gravity 9.81 N/kg along ``-y``.  The ``N + 1`` cranks hang from ground pivots
``(i, 0)``, ``i = 0 .. N``; coupler ``j`` joins the tips of cranks ``j - 1`` and ``j``.  At the start
the cranks stand upright and the tip ``B0`` of the first crank moves along ``+x`` at 1 m/s.  The
benchmark simulates 20 s with ``N = 40``.

Absolute angles about z: ``th<i>`` of the cranks, ``c<j>`` of the couplers; each window closes at
the tip of its right crank (two holonomic rows).  On the motion every crank turns alike and the
couplers translate; when the cranks lie along the ground line (``th = 0`` or ``pi``, twice per
turn) each coupler covers the next crank and the window may fold: the mechanism has ``N + 1``
degrees of freedom for an instant (a singular position).  Outputs ``xB0``, ``yB0``: the position of
``B0``, the benchmark's reference point.
"""

import math

import symbody as sb


def build(N: int = 2, v0: float = 1.0) -> sb.System:
    if not (isinstance(N, int) and N >= 1):
        raise sb.ModelError(f"n_four_bar: N must be a positive integer, not {N!r}")
    s = sb.System(f"n_four_bar_{N}", description=f"IFToMM benchmark A02: {N} four-bar windows")
    L = s.parameter("L", 1.0, unit="m", description="length of every link")
    m = s.parameter("m", 1.0, unit="kg", description="mass of every link (uniform bar)", min=0.0)
    g = s.parameter("g", 9.81, unit="m/s2", description="gravitational acceleration (along -y)")
    # B0 moves along +x at v0: the cranks, upright, turn clockwise at v0 / L
    cranks = [
        s.coordinate(f"th{i}", math.pi / 2, -v0, unit="rad", description=f"angle of crank {i} from the x axis")
        for i in range(N + 1)
    ]
    tips = []
    for i, th in enumerate(cranks):
        B = s.base(f"B_crank{i}", s.ground_base, sb.Rz(th))
        pivot = s.point(f"O{i}", s.origin, (i * L, 0, 0))
        s.solid(f"crank{i}", pivot, B, mass=m, com=(L / 2, 0, 0), inertia=(0, 0, m * L**2 / 12))
        tips.append(s.point(f"A{i}", pivot, sb.Vector(B, L, 0, 0)))
    for j in range(1, N + 1):
        c = s.coordinate(f"c{j}", 0.0, 0.0, unit="rad", description=f"angle of coupler {j} from the x axis")
        C = s.base(f"B_coupler{j}", s.ground_base, sb.Rz(c))
        s.solid(f"coupler{j}", tips[j - 1], C, mass=m, com=(L / 2, 0, 0), inertia=(0, 0, m * L**2 / 12))
        end = s.point(f"E{j}", tips[j - 1], sb.Vector(C, L, 0, 0))
        s.constraint(f"window{j}", s.position(end, tips[j]), components="xy")
    s.gravity((0, -g, 0))
    x, y, _ = s.position(tips[0]).components(s.ground_base)
    s.output("xB0", x, unit="m", description="x of B0, the tip of crank 0")
    s.output("yB0", y, unit="m", description="y of B0, the tip of crank 0")
    return s
