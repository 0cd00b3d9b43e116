"""The wrench a moving base exerts on a mechanism equals Newton-Euler on the whole mechanism.

A crane arm (slewing pedestal, boom, jib) on a deck that heaves, rolls and pitches (motion inputs).  The
model's output is the joint reaction of the pedestal at the deck point ``D`` in the deck base; the check
computes the positions and orientations of the three bodies with plain numpy rotations, differentiates
them numerically along an arbitrary smooth motion, and applies the momentum balances of the whole
mechanism: ``F = dP/dt - m g``, ``M_D = dH_D/dt + v_D x P - sum r_DG x m g``.
"""

from __future__ import annotations

import numpy as np
import pytest

from symbody.numeric import NumericModel, simulate

from support.motion_models import G, ship_crane_arm

# (mass, centre of mass in the body base, principal inertia at the centre of mass) of pedestal, boom, jib
BODIES = (
    (800.0, (0.1, 0.0, 1.0), (300.0, 320.0, 90.0)),
    (300.0, (2.5, 0.0, 0.0), (5.0, 650.0, 650.0)),
    (150.0, (2.0, 0.0, 0.1), (2.0, 200.0, 200.0)),
)


def _rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def _poses(q, z):
    """Deck rotation, the point D, and (rotation, origin) of the three bodies in the ground."""
    heave, roll, pitch = z
    slew, luff, fold = q
    R0 = _rx(roll) @ _ry(pitch)
    D = np.array([0, 0, heave]) + R0 @ [1.5, 0.5, 2.0]
    R1 = R0 @ _rz(slew)
    R2 = R1 @ _ry(-luff)
    R3 = R2 @ _ry(-fold)
    hinge = D + R1 @ [0.4, 0.0, 2.2]
    knuckle = hinge + R2 @ [5.0, 0.0, 0.0]
    return R0, D, ((R1, D), (R2, hinge), (R3, knuckle))


# an arbitrary smooth motion of the arm and of the deck
def _q(t):
    return np.array([0.3 + 0.4 * np.sin(1.3 * t), 0.4 + 0.2 * np.cos(0.7 * t), -0.6 + 0.3 * np.sin(2.1 * t)])


def _z(t):
    return np.array([0.8 * np.sin(0.9 * t), 0.1 * np.sin(1.1 * t + 0.3), 0.05 * np.cos(0.8 * t)])


def _deck(t):
    """Heave, roll and pitch (the rows) with their first and second derivatives (the columns)."""
    return np.array(
        [
            [0.8 * np.sin(0.9 * t), 0.72 * np.cos(0.9 * t), -0.648 * np.sin(0.9 * t)],
            [0.1 * np.sin(1.1 * t + 0.3), 0.11 * np.cos(1.1 * t + 0.3), -0.121 * np.sin(1.1 * t + 0.3)],
            [0.05 * np.cos(0.8 * t), -0.04 * np.sin(0.8 * t), -0.032 * np.cos(0.8 * t)],
        ]
    )


def _momenta(t, h):
    """Linear momentum, angular momentum about D and the velocity of D, by central differences."""

    def geometry(tt):
        R0, D, bodies = _poses(_q(tt), _z(tt))
        return D, [(R, o + R @ np.array(c)) for (R, o), (_, c, _) in zip(bodies, BODIES)]

    D0, now = geometry(t)
    Dp, plus = geometry(t + h)
    Dm, minus = geometry(t - h)
    vD = (Dp - Dm) / (2 * h)
    P, H = np.zeros(3), np.zeros(3)
    for (m, _, inertia), (R, G_), (Rp, Gp), (Rm, Gm) in zip(BODIES, now, plus, minus):
        v = (Gp - Gm) / (2 * h)
        W = (Rp - Rm) / (2 * h) @ R.T  # the skew matrix of the angular velocity
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        P += m * v
        H += np.cross(G_ - D0, m * v) + R @ np.diag(inertia) @ R.T @ w
    return P, H, vD, D0, now


def _newton_euler(t, h=1e-4):
    """The wrench on the mechanism from the deck (force, moment about D), in the deck base."""
    P_p, H_p, *_ = _momenta(t + h, h)
    P_m, H_m, *_ = _momenta(t - h, h)
    P, _, vD, D, now = _momenta(t, h)
    g = np.array([0.0, 0.0, -G])
    total = sum(m for m, _, _ in BODIES)
    F = (P_p - P_m) / (2 * h) - total * g
    Mo = (
        (H_p - H_m) / (2 * h)
        + np.cross(vD, P)
        - sum(np.cross(G_ - D, m * g) for (m, _, _), (_, G_) in zip(BODIES, now))
    )
    R0 = _poses(_q(t), _z(t))[0]
    return R0.T @ F, R0.T @ Mo


def _derivatives(f, t, h=1e-4):
    return (f(t + h) - f(t - h)) / (2 * h), (f(t + h) - 2 * f(t) + f(t - h)) / (h * h)


@pytest.mark.parametrize("t", [0.0, 0.7, 1.9])
def test_the_pedestal_reaction_is_the_momentum_balance_of_the_mechanism(t):
    eq = ship_crane_arm().derive()
    nm = NumericModel(eq)
    q, (dq, ddq) = _q(t), _derivatives(_q, t, 1e-5)
    assert _deck(t)[:, 0] == pytest.approx(_z(t)) and _deck(t)[:, 1:] == pytest.approx(
        np.column_stack(_derivatives(_z, t, 1e-5)), abs=1e-5
    )
    u = np.ravel(_deck(t))  # heave, dheave, ddheave, roll, ...
    y = nm.outputs(q, dq, t=t, u=u, ddq=ddq)
    names = [o.name for o in eq.outputs]
    force = y[[names.index(f"base_force_{a}") for a in "xyz"]]
    moment = y[[names.index(f"base_moment_{a}") for a in "xyz"]]
    F, Mo = _newton_euler(t)
    scale = float(np.max(np.abs(F)))
    assert force == pytest.approx(F, abs=1e-5 * scale)
    assert moment == pytest.approx(Mo, abs=1e-5 * scale * 5.0)  # moments: forces times lengths of a few m


def test_on_the_simulated_motion_the_free_slewing_joint_transmits_no_moment_about_its_axis():
    eq = ship_crane_arm().derive()

    inputs = {name: (lambda t, k=k: _deck(t)[k]) for k, name in enumerate(("heave", "roll", "pitch"))}
    res = simulate(eq, 0.2, dt=0.1, inputs=inputs, rtol=1e-10, atol=1e-12)
    moment = np.column_stack([res[f"base_moment_{a}"] for a in "xyz"])
    # the pedestal's axis is the deck's z: no actuator turns it, so the deck exerts no moment about it
    assert np.abs(moment[:, 2]).max() < 1e-9 * np.abs(moment).max()
    assert np.abs(moment[:, 0]).min() > 100.0  # while it holds the arm's weight about the other two
