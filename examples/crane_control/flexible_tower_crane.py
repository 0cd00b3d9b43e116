"""A tower crane with a flexible mast and jib, next to its rigid model: where do the structure's modes sit?

The mast (height ``H``) and the jib (reach ``R`` from the slew axis to the trolley) are
``System.flexible_beam`` bodies of equivalent lattice sections (bending only: the axial and torsional
modes of a lattice are far above the payload's), the slewing structure (jib, counter-jib, ballast)
turns on the mast top by the slew angle ``theta``, and the payload hangs at the trolley, parked at
the jib's tip, on a rope of length ``l`` (swing angles ``beta_r`` in the jib plane, ``beta_t`` out of
it).  ``flexible=False`` gives the same crane with a rigid mast and jib.  The sections are chosen for
a first jib bending mode near 1 Hz and a first mast sway mode near 0.5 Hz without payload, typical
of mid-size tower cranes; the payload's pendulum ``sqrt(g / l)`` is 0.11 Hz at ``l = 20 m``.

Run ``python examples/crane_control/flexible_tower_crane.py``: it prints the modes of both models
about their static equilibrium; the payload swing pair is the same in both to a few per cent, and
the structure's modes come next, a decade above.

Example:
    >>> import flexible_tower_crane  # doctest: +SKIP
    >>> len(flexible_tower_crane.build(segments=4).coordinates)  # doctest: +SKIP
    19
"""

from __future__ import annotations

import math
import sys

import numpy as np

import symbody as sb
from symbody.numeric import modal_analysis, static_equilibrium

G0 = 9.80665
STEEL = dict(E=2.1e11, G=8.1e10, rho=7850.0)
MAST = dict(area=0.051, Iy=0.037, Iz=0.037, J=0.074)  # 400 kg/m, EI = 7.8e9 N m2
JIB = dict(area=0.0255, Iy=0.019, Iz=0.030, J=0.05)  # 200 kg/m, vertical EI = 4.0e9 N m2


def build(flexible: bool = True, segments: int = 4, H: float = 40.0, R: float = 50.0, l0: float = 20.0) -> sb.System:
    """The crane; ``segments`` per flexible beam (mast and jib)."""
    s = sb.System("flexible_tower_crane" if flexible else "rigid_tower_crane")
    P = s.parameter
    g = P("g", G0, unit="m/s2")
    m_slew = P("m_slew", 30000.0, unit="kg", description="counter-jib and ballast, on the slew axis")
    J_slew = P("J_slew", 1.2e7 - 200.0 * R**3 / 3, unit="kg.m2", description="their moment of inertia about the slew axis")
    m_payload = P("m_payload", 2000.0, unit="kg")
    m_trolley = P("m_trolley", 800.0, unit="kg")
    l = P("l", l0, unit="m", description="rope length")
    c_slew = P("c_slew", 1.0e5, unit="N.m.s/rad")
    theta = s.coordinate("theta", 0.0, unit="rad", description="slew angle")
    up = s.base("mast_axes", s.ground_base, sb.Ry(-math.pi / 2))  # x up, along the mast
    if flexible:
        top = s.flexible_beam("mast", s.frame("mast_root", s.origin, up), length=P("H", H, unit="m"), segments=segments,
                              **STEEL, **MAST, axial=False, torsion=False)  # fmt: skip
    else:
        top = s.frame("mast_top", s.point("T", s.origin, (0, 0, P("H", H, unit="m"))), up)
        s.solid("mast", s.origin, up, mass=400.0 * H, com=(H / 2, 0, 0))
    slew = s.base("slew", top.base, sb.Rx(theta))
    s.solid("slewing_part", top.point, slew, mass=m_slew, inertia=(J_slew, J_slew, 0))
    jib_axes = s.frame("jib_root", top.point, s.base("jib_axes", slew, sb.Ry(math.pi / 2)))  # x out, z up
    if flexible:
        tip = s.flexible_beam("jib", jib_axes, length=P("R", R, unit="m"), segments=segments, **STEEL, **JIB,
                              axial=False, torsion=False)  # fmt: skip
    else:
        tip = s.frame("jib_tip", s.point("J", top.point, sb.Vector(jib_axes.base, P("R", R, unit="m"), 0, 0)), jib_axes.base)
        s.solid(
            "jib",
            top.point,
            jib_axes.base,
            mass=200.0 * R,
            com=(R / 2, 0, 0),
            inertia=(0, 200.0 * R**3 / 12, 200.0 * R**3 / 12),
        )
    s.solid("trolley", tip.point, tip.base, mass=m_trolley)  # point masses on their frames: a tree of joints
    beta_r = s.coordinate("beta_r", 0.0, unit="rad", description="radial rope swing")
    beta_t = s.coordinate("beta_t", 0.0, unit="rad", description="tangential rope swing")
    rope = s.base("rope", s.base("rope_1", tip.base, sb.Ry(-beta_r)), sb.Rx(beta_t))  # from the trolley: a chain
    s.solid("payload", s.point("hook", tip.point, sb.Vector(rope, 0, 0, -l)), rope, mass=m_payload)
    s.gravity((0, 0, -g))
    s.viscous_friction("slew_damping", theta, c_slew)
    return s


def modes(system: sb.System) -> np.ndarray:
    """The natural frequencies (Hz) about the static equilibrium (the free slew is a rigid-body mode)."""
    eq = system.derive()
    guess = [0.01 if c.name == "beta_r" else 0.0 for c in eq.coordinates]  # off rest: the force scale of Newton
    rest = static_equilibrium(eq, guess, fixed={"theta": 0.0})  # the slew is free: hold it
    return modal_analysis(eq, rest.q).frequency


def main(segments: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rigid, flexible = modes(build(False)), modes(build(True, segments))
    print(f"rigid crane:    {np.array2string(rigid, precision=3)} Hz")
    print(f"flexible crane: {np.array2string(flexible[:8], precision=3)} Hz ({segments} segments per beam)")
    print(f"payload pendulum sqrt(g/l)/2pi = {math.sqrt(G0 / 20.0) / (2 * math.pi):.3f} Hz")
    return rigid, flexible


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
