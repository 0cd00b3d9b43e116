"""A tower crane with a flexible mast and jib, next to its rigid model: where do the structure's modes sit?

The model is ``parked_crane`` of ``examples/tower_crane.py`` (whose ``--option flexible=True``
builds it with the trolley at mid reach).  The mast (height ``H``) and the jib (reach ``R`` from
the slew axis to the trolley) are ``System.flexible_beam`` bodies of equivalent lattice sections
(bending only: the axial and torsional modes of a lattice are far above the payload's), the slewing structure (jib, counter-jib, ballast)
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
from pathlib import Path

import numpy as np

import symbody as sb
from symbody.numeric import modal_analysis, static_equilibrium

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tower_crane  # noqa: E402

G0 = tower_crane.G0
STEEL, MAST, JIB = tower_crane.STEEL, tower_crane.MAST, tower_crane.JIB


def build(flexible: bool = True, segments: int = 4, H: float = 40.0, R: float = 50.0, l0: float = 20.0) -> sb.System:
    """The crane, its trolley at the jib's tip; ``segments`` per flexible beam (mast and jib)."""
    return tower_crane.parked_crane(flexible, segments, H=H, R=R, l0=l0)


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
