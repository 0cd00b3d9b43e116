"""Writes ``examples/tower_crane_inputs.csv``: slew torque and trolley force that move the tower crane and stop it.

The move: slew the jib a quarter turn (0 to pi/2 rad, at most 0.06 rad/s) while
the trolley travels out from 25 m to 35 m (at most 0.5 m/s), both starting at
t = 2 s, then rest until t = 60 s.  Each move is a trapezoid (``crane_motion.trapezoid``): constant
acceleration, constant speed, constant deceleration.  Each acceleration phase
lasts one period of the swing it excites, so that the payload ends it with
(almost) no swing -- the classic rule of input shaping (Singer and Seering,
"Preshaping command inputs to reduce system vibration", 1990):

* slewing excites the tangential swing, a pendulum of length l = 20 m:
  2 pi sqrt(l / g) = 9.0 s;
* trolley travel excites the radial swing, in which the free trolley takes
  part: 2 pi / sqrt(g / l (m_trolley + m_payload) / m_trolley) = 4.8 s.

The torque and force are the feedforward of the crane with the payload
treated as a point mass at the trolley (swing neglected):

    tau_slew  = (J_slew + (m_t + m_p) r^2 + I_zz) theta'' + 2 (m_t + m_p) r r' theta' + c_slew theta'
    F_trolley = (m_t + m_p) (r'' - r theta'^2) + b_r r'

(the trolley pulls inwards against the centrifugal force while slewing).
Simulated with the full model (``symbody simulate tower_crane.fmu --input-file
examples/tower_crane_inputs.csv --stop-time 60``), the jib ends within 0.01 rad
of a quarter turn and the trolley within 0.5 m of 35 m, both nearly at rest,
with a residual swing of about 0.01 rad.

Run ``python examples/crane_control/tower_crane_inputs.py`` to write the file again.
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from crane_motion import trapezoid  # noqa: E402

# parameters of examples/tower_crane.py (defaults)
M_TROLLEY, M_PAYLOAD, J_SLEW, C_SLEW, B_R = 800.0, 2000.0, 1.2e7, 1.0e5, 200.0
I_ZZ = M_PAYLOAD * 8.0**2 / 12 + M_PAYLOAD * 0.2**2  # payload about the rope
R0 = 25.0
STOP_TIME = 60.0
SAMPLE = 0.1  # s between rows of the CSV (fmpy interpolates linearly between rows)
SLEW = trapezoid(np.pi / 2, v_max=0.06, a_max=0.06 / 9.0, start=2.0)  # accelerates for 9.0 s
TRAVEL = trapezoid(10.0, v_max=0.5, a_max=0.5 / 4.8, start=2.0)  # accelerates for 4.8 s


def feedforward(t: float) -> tuple[float, float]:
    """Slew torque and trolley force that make the crane, payload at the trolley, follow the two moves."""
    w, acc_theta = SLEW.velocity(t), SLEW.acceleration(t)
    r, v, acc_r = R0 + TRAVEL.position(t), TRAVEL.velocity(t), TRAVEL.acceleration(t)
    m = M_TROLLEY + M_PAYLOAD
    tau = (J_SLEW + m * r**2 + I_ZZ) * acc_theta + 2 * m * r * v * w + C_SLEW * w
    force = m * (acc_r - r * w**2) + B_R * v
    return tau, force


def write(path: Path) -> None:
    """Write the CSV: one row every SAMPLE seconds, plus the instants where an acceleration jumps."""
    knots = {round(float(k), 10) for k in (*SLEW.knots, *TRAVEL.knots)}
    grid = sorted({*np.round(np.arange(0.0, STOP_TIME + SAMPLE / 2, SAMPLE), 10).tolist(), *knots})
    lines = ["time,tau_slew,F_trolley"]
    for t in grid:
        before, after = feedforward(t - 1e-9), feedforward(t)
        rows = [before, after] if t in knots and t > 0 else [after]
        lines += [f"{t:g},{tau:.6g},{force:.6g}" for tau, force in rows]  # a repeated time is a step
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write(Path(__file__).resolve().parents[1] / "tower_crane_inputs.csv")
