"""Hoisting models with closed forms, shared by the Python and FMU tests: ropes, slings, buffers.

- :func:`dropped_on_rope`: a mass hanging from a fixed sheave on an elastic rope reeved in ``falls``
  falls, released with the rope slack by ``h``.  It falls freely until the rope is taut at
  ``t_in = sqrt(2 h / g)``, then moves harmonically about the static stretch at ``w = sqrt(k / m)``
  with ``k = n^2 EA / L0`` (``L0`` the whole rope: a fixed lead from the anchor to the sheave and
  the ``n`` falls), and goes slack again with the speed it came in (:func:`drop_times`).
"""

from __future__ import annotations

import math

import symbody as sb

G = 9.81
MASS, EA, LEAD, FALL, SLACK = 50.0, 2.0e5, 1.5, 2.0, 0.05  # kg, N, m, m (hanging length of each fall), m


def rope_length(falls: int) -> float:
    """The unstretched length of the whole rope: the lead and ``falls`` falls of ``FALL``."""
    return LEAD + falls * FALL


def dropped_on_rope(falls: int = 1, damping: float = 0.0) -> sb.System:
    """A hook of mass ``MASS`` at ``y`` below a sheave at the origin; the rope runs from an anchor
    ``LEAD`` to the side, over the sheave, and ``falls`` times down to the hook, slack by ``SLACK``
    (the hook starts ``SLACK / falls`` above the taut position)."""
    s = sb.System(f"drop{falls}")
    g = s.parameter("g", G, unit="m/s2")
    m = s.parameter("m", MASS, unit="kg")
    ea = s.parameter("EA", EA, unit="N")
    c = s.parameter("c", damping, unit="N*s/m")
    l0 = s.parameter("L0", rope_length(falls), unit="m")
    y = s.coordinate("y", -(FALL - SLACK / falls), unit="m")
    anchor = s.point("anchor", s.origin, (-LEAD, 0, 0))
    hook = s.point("hook", s.origin, (0, y, 0))
    s.particle("payload", hook, m)
    s.gravity((0, -g, 0))
    s.rope("hoist", [anchor, s.origin, hook], stiffness=ea, damping=c, unstretched_length=l0, falls=falls)
    return s


def drop_times(falls: int = 1) -> tuple[float, float, float, float, float]:
    """``(t_in, t_out, w, y_static, amplitude)`` of :func:`dropped_on_rope` without damping: taut at
    ``t_in``, slack at ``t_out``; ``y_static`` the static stretch at the hook (m g / k) and the
    amplitude of the harmonic motion about it."""
    h = SLACK / falls  # the hook's free fall
    k = falls**2 * EA / rope_length(falls)
    w = math.sqrt(k / MASS)
    v = math.sqrt(2 * G * h)
    y_st = MASS * G / k
    amp = math.hypot(y_st, v / w)
    t_in = math.sqrt(2 * h / G)
    t_out = t_in + (2 * math.pi - 2 * math.acos(y_st / amp)) / w
    return t_in, t_out, w, y_st, amp


def hook_on_sling_and_buffer(k: float, rest: float, free: float) -> sb.System:
    """A mass at ``x`` on a line: a sling from the origin (pulls beyond ``rest``) and a buffer from
    the origin (pushes below ``free``); between them it moves freely."""
    s = sb.System("sling_buffer")
    x = s.coordinate("x", 0.5 * (rest + free), unit="m")
    kk = s.parameter("k", k, unit="N/m")
    P = s.point("P", s.origin, (x, 0, 0))
    s.particle("cart", P, s.parameter("m", 1.0, unit="kg"))
    s.sling("strap", s.origin, P, k=kk, rest_length=s.parameter("rest", rest, unit="m"))
    s.buffer("bumper", s.origin, P, k=kk, free_length=s.parameter("free", free, unit="m"))
    return s
