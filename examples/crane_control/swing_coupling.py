"""Where the payload's swing meets the flexible tower crane's structure modes, and how they shift there.

The crane is ``flexible_tower_crane.build`` (``parked_crane`` of ``examples/tower_crane.py``: mast 40 m,
jib 50 m, trolley parked at the jib's tip, bending only), derived once; the rope length ``l``, the
payload mass ``m_payload`` and the mast's modulus ``mast_E`` are parameters, so every case is one
static equilibrium and one linearization of the same equations (:func:`symbody.numeric.modal_analysis`).

* :func:`rope_sweep`: for rope lengths from 20 m down to 1 m, the pendulum ``sqrt(g / l)``, the rigid
  crane's radial swing, and the flexible crane's three lowest modes.  The pendulum climbs towards the
  first structure mode (the mast swaying in the jib's plane, 0.36 Hz with 2 t at the tip); near
  ``l = 2 m`` they meet and repel each other: neither frequency is the uncoupled one any more.
* :func:`jib_bending`: the jib's first vertical bending mode against the closed form of a cantilever
  with a tip mass (the trolley and the payload, which a taut rope carries up and down with the tip;
  the frequency equation ``1 + cos b cosh b + a b (cos b sinh b - sin b cosh b) = 0``, ``a`` the tip
  mass over the jib's mass, ``omega = b^2 sqrt(E I / (rho A L^4))``), with a mast made 10^4 times
  stiffer so that the jib's root is clamped as the closed form assumes, then on the real mast.  The
  mode is the lowest one whose strain energy lies mostly in the jib's vertical bending springs.

Run ``python examples/crane_control/swing_coupling.py [segments]`` (default 8 per beam): it prints both
tables (the crane-control guide shows them).

Example:
    >>> import swing_coupling  # doctest: +SKIP
    >>> round(swing_coupling.cantilever_tip_mass_frequency(2800.0), 3)  # the jib with trolley and 2 t payload, Hz
    0.684
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import brentq

from symbody.numeric import ModalResult, NumericModel
from symbody.symbolic.evaluate import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parent))

import flexible_tower_crane as crane  # noqa: E402

ROPES = (20.0, 10.0, 5.0, 3.0, 2.0, 1.5, 1.0)  # m
PAYLOADS = (0.0, 2000.0, 8000.0)  # kg
M_TROLLEY = 800.0  # kg, parked_crane's default
JIB_EI = crane.STEEL["E"] * crane.JIB["Iy"]  # N.m2, vertical bending
JIB_MASS = crane.STEEL["rho"] * crane.JIB["area"]  # kg/m
STIFF = 1e4  # the mast's modulus is multiplied by this to clamp the jib's root


def cantilever_tip_mass_frequency(tip_mass: float, mass: float = JIB_MASS * 50.0, EI: float = JIB_EI,
                                  L: float = 50.0) -> float:  # fmt: skip
    """First bending frequency (Hz) of a uniform cantilever of ``mass`` carrying ``tip_mass`` at its end.

    Example:
        >>> round(cantilever_tip_mass_frequency(0.0) / math.sqrt(JIB_EI / (JIB_MASS * 50.0**4)) * 2 * math.pi, 4)
        3.516
    """
    a = tip_mass / mass

    def equation(b: float) -> float:
        return 1 + math.cos(b) * math.cosh(b) + a * b * (math.cos(b) * math.sinh(b) - math.sin(b) * math.cosh(b))

    b = brentq(equation, 1e-3, 1.8751041 + 1e-6)  # the tip mass lowers the first root below 1.8751
    return b**2 * math.sqrt(EI / (mass / L * L**4)) / (2 * math.pi)


@functools.cache
def equations(flexible: bool, segments: int):
    """The crane's equations (derived once per model; the cases change parameters only)."""
    return crane.build(flexible, segments).derive()


def modal(flexible: bool, segments: int, **values: float) -> ModalResult:
    """Modes about the static equilibrium of the crane with the parameters ``values`` (the slew held)."""
    eq = equations(flexible, segments)
    model = NumericModel(eq).with_parameters(**values)
    guess = np.array([0.01 if c.name == "beta_r" else 0.0 for c in eq.coordinates])
    rest = model.static_equilibrium(guess, fixed={"theta": 0.0})
    return model.modal_analysis(rest.q)


def jib_vertical_share(result: ModalResult, segments: int, **values: float) -> np.ndarray:
    """Per mode, the share of its strain energy in the jib's vertical bending springs (``jib_ry*``)."""
    system = crane.build(True, segments)
    p = {x.name: x.value for x in system.parameters.values()} | values
    springs = {c: float(evaluate(k, {system.parameters[n].symbol: v for n, v in p.items()}))
               for c, kind, k in system.flexible_bodies["jib"].springs if kind == "bending y"}  # fmt: skip
    names = result.coordinate_names
    energy = sum(k * result.shapes_full[names.index(c)] ** 2 for c, k in springs.items())
    return energy / result.omega**2  # a mass-normalized mode holds omega^2 / 2 of strain energy in all


@dataclass
class RopeCase:
    l: float
    pendulum: float  # sqrt(g / l) / 2 pi, Hz
    rigid: np.ndarray  # the rigid crane's radial and tangential swing, Hz
    flexible: np.ndarray  # the flexible crane's three lowest modes, Hz


def rope_sweep(segments: int = 8, ropes=ROPES) -> list[RopeCase]:
    """The rigid and the flexible crane's lowest modes for each rope length (2 t payload)."""
    out = []
    for l in ropes:
        rigid = modal(False, segments, l=l).frequency
        flexible = modal(True, segments, l=l).frequency
        out.append(RopeCase(l, math.sqrt(crane.G0 / l) / (2 * math.pi), rigid[:2], flexible[:3]))
    return out


@dataclass
class JibCase:
    payload: float
    closed_form: float  # Hz, cantilever with the trolley and payload at its tip
    clamped: float  # Hz, symbody, stiff mast
    on_mast: float  # Hz, symbody, the crane's mast


def jib_mode(segments: int, **values: float) -> float:
    """The frequency (Hz) of the lowest mode whose strain energy lies mostly in the jib's vertical bending."""
    result = modal(True, segments, **values)
    share = jib_vertical_share(result, segments, **values)
    return float(result.frequency[np.flatnonzero(share > 0.5)[0]])


def jib_bending(segments: int = 8, payloads=PAYLOADS, l: float = 20.0) -> list[JibCase]:
    """The jib's first vertical bending mode with each payload: closed form, clamped root, on the mast."""
    stiff = crane.STEEL["E"] * STIFF
    out = []
    for m in payloads:
        values = {"m_payload": max(m, 1.0), "l": l}  # a payload of 1 kg stands for none (its rope stays taut)
        out.append(
            JibCase(
                m,
                cantilever_tip_mass_frequency(M_TROLLEY + m),
                jib_mode(segments, mast_E=stiff, **values),
                jib_mode(segments, **values),
            )  # fmt: skip
        )
    return out


def main(segments: int = 8) -> tuple[list[RopeCase], list[JibCase]]:
    ropes, jib = rope_sweep(segments), jib_bending(segments)
    print(f"2 t payload at the jib's tip, {segments} segments per beam; frequencies in Hz")
    print(
        "| rope l (m) | pendulum sqrt(g/l) | rigid crane: radial, tangential swing | flexible crane: three lowest modes |"
    )
    print("|---|---|---|---|")
    for c in ropes:
        modes = ", ".join(f"{f:.3f}" for f in c.flexible)
        print(f"| {c.l:g} | {c.pendulum:.3f} | {c.rigid[0]:.3f}, {c.rigid[1]:.3f} | {modes} |")
    print()
    print("| payload (t) | jib's first vertical bending: closed form | symbody, root clamped | symbody, on the mast |")
    print("|---|---|---|---|")
    for j in jib:
        print(f"| {j.payload / 1000:g} | {j.closed_form:.3f} | {j.clamped:.3f} | {j.on_mast:.3f} |")
    return ropes, jib


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 8)
