"""The 3-D chain of ``bench_recursive.chain_3d`` derived with SymPy's ``KanesMethod`` (``sympy.physics.mechanics``).

Body ``k`` is oriented from body ``k - 1`` (from the ground for ``k = 0``) by
body-fixed Z-Y-X rotations of the angles ``(q{k}_z, q{k}_y, q{k}_x)``; its joint
sits at ``l{k-1}`` along the previous body's x axis; its centre of mass is at
``(c{k}_x, c{k}_y, c{k}_z)`` of its frame with the inertia tensor about it;
gravity is ``-g`` along the ground's z axis.  The speeds are the angle rates
(kinematic equations ``dq - u = 0``), so KanesMethod's mass matrix and forcing
give the same accelerations as symbody's coordinates.  Used by
``bench_chain3d.py`` for the derivation time and as an independent check of
symbody's accelerations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class KaneChain:
    """KanesMethod's result and the symbols, in the parameter layout of ``harness/chain3d_loop.h``."""

    mass_matrix: Any  # sympy Matrix
    forcing: Any
    q: list
    u: list
    parameters: list


def kane_chain_3d(n: int) -> KaneChain:
    """Derive the chain of ``n`` bodies with ``KanesMethod`` (mass matrix and forcing of the speeds).

    Example:
        >>> kane_chain_3d(1).mass_matrix.shape
        (3, 3)
    """
    import sympy as sm
    import sympy.physics.mechanics as me

    g = sm.Symbol("g")
    ground = me.ReferenceFrame("N")
    origin = me.Point("O")
    origin.set_vel(ground, 0)
    parent, joint = ground, origin
    q: list = []
    u: list = []
    parameters: list = [g]
    bodies, loads, kinematics = [], [], []
    for k in range(n):
        qk = me.dynamicsymbols(f"q{k}_z q{k}_y q{k}_x")
        uk = me.dynamicsymbols(f"u{k}_z u{k}_y u{k}_x")
        m, cx, cy, cz = sm.symbols(f"m{k} c{k}_x c{k}_y c{k}_z")
        ixx, iyy, izz, ixy, iyz, ixz = sm.symbols(f"I{k}_xx I{k}_yy I{k}_zz I{k}_xy I{k}_yz I{k}_xz")
        length = sm.Symbol(f"l{k}")
        frame = me.ReferenceFrame(f"B{k}")
        frame.orient_body_fixed(parent, qk, "zyx")
        frame.set_ang_vel(parent, frame.ang_vel_in(parent).subs({a.diff(): b for a, b in zip(qk, uk)}))
        if k > 0:
            previous = joint
            joint = previous.locatenew(f"P{k}", parameters[-1] * parent.x)
            joint.v2pt_theory(previous, ground, parent)
        com = joint.locatenew(f"G{k}", cx * frame.x + cy * frame.y + cz * frame.z)
        com.v2pt_theory(joint, ground, frame)
        inertia = me.inertia(frame, ixx, iyy, izz, ixy, iyz, ixz)
        bodies.append(me.RigidBody(f"body{k}", com, frame, m, (inertia, com)))
        loads.append((com, -m * g * ground.z))
        kinematics += [a.diff() - b for a, b in zip(qk, uk)]
        q += qk
        u += uk
        parameters += [m, cx, cy, cz, ixx, iyy, izz, ixy, iyz, ixz, length]
        parent = frame
    kane = me.KanesMethod(ground, q_ind=q, u_ind=u, kd_eqs=kinematics)
    kane.kanes_equations(bodies, loads)
    return KaneChain(kane.mass_matrix, kane.forcing, q, u, parameters)


def kane_accelerations(chain: KaneChain, n: int, p: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Accelerations ``M^-1 forcing`` at the states ``X`` (rows ``[q; dq]``) with parameters ``p``."""
    import sympy as sm

    qs, us = sm.symbols(f"qs0:{3 * n}"), sm.symbols(f"us0:{3 * n}")
    subs = dict(zip(chain.q, qs)) | dict(zip(chain.u, us))
    mass = sm.lambdify([qs, us, chain.parameters], chain.mass_matrix.subs(subs), "numpy")
    forcing = sm.lambdify([qs, us, chain.parameters], chain.forcing.subs(subs), "numpy")
    out = []
    for x in X:
        args = (x[: 3 * n], x[3 * n :], p[: len(chain.parameters)])
        out.append(np.linalg.solve(np.asarray(mass(*args), float), np.asarray(forcing(*args), float).ravel()))
    return np.array(out)
