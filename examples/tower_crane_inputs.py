"""Writes ``tower_crane_inputs.csv``: slew torque and trolley force that move the tower crane and stop it.

The move: slew the jib a quarter turn (0 to pi/2 rad, at most 0.06 rad/s) while
the trolley travels out from 25 m to 35 m (at most 0.5 m/s), both starting at
t = 2 s, then rest until t = 60 s.  Each move is "bang-coast-bang": constant
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

Run ``python examples/tower_crane_inputs.py`` to write the file again.
"""

from pathlib import Path

import numpy as np

# parameters of examples/tower_crane.py (defaults)
M_TROLLEY, M_PAYLOAD, J_SLEW, C_SLEW, B_R = 800.0, 2000.0, 1.2e7, 1.0e5, 200.0
I_ZZ = M_PAYLOAD * 8.0**2 / 12 + M_PAYLOAD * 0.2**2  # payload about the rope
R0 = 25.0
STOP_TIME = 60.0
SAMPLE = 0.1  # s between rows of the CSV (fmpy interpolates linearly between rows)


def bang_coast_bang(t: np.ndarray, start: float, distance: float, v_peak: float, t_acc: float) -> np.ndarray:
    """Acceleration of a move of ``distance`` at top speed ``v_peak`` with acceleration phases of ``t_acc``."""
    a = v_peak / t_acc
    coast = (distance - a * t_acc**2) / v_peak
    if coast < 0:
        raise ValueError("the move is too short for this speed and acceleration time")
    t1, t2, t3 = start + t_acc, start + t_acc + coast, start + 2 * t_acc + coast
    return np.where((t >= start) & (t < t1), a, 0.0) - np.where((t >= t2) & (t < t3), a, 0.0)


def integrate(rate: np.ndarray, dt: float, initial: float = 0.0) -> np.ndarray:
    """Trapezoidal running integral."""
    return initial + np.concatenate([[0.0], np.cumsum((rate[1:] + rate[:-1]) / 2 * dt)])


def profile(dt: float = 0.01) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Time, slew torque and trolley force on a fine grid."""
    t = np.arange(0.0, STOP_TIME + dt / 2, dt)
    acc_theta = bang_coast_bang(t, 2.0, np.pi / 2, 0.06, 9.0)
    acc_r = bang_coast_bang(t, 2.0, 10.0, 0.5, 4.8)
    w = integrate(acc_theta, dt)
    v = integrate(acc_r, dt)
    r = integrate(v, dt, R0)
    m = M_TROLLEY + M_PAYLOAD
    tau = (J_SLEW + m * r**2 + I_ZZ) * acc_theta + 2 * m * r * v * w + C_SLEW * w
    force = m * (acc_r - r * w**2) + B_R * v
    return t, tau, force


def write(path: Path) -> None:
    t, tau, force = profile()
    tau, force = (np.where(np.abs(x) < 1e-6, 0.0, x) for x in (tau, force))  # rounding residue after the moves
    rows = np.round(np.arange(0.0, STOP_TIME + SAMPLE / 2, SAMPLE), 10)
    lines = ["time,tau_slew,F_trolley"]
    lines += [f"{x:g},{np.interp(x, t, tau):.6g},{np.interp(x, t, force):.6g}" for x in rows]
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write(Path(__file__).with_name("tower_crane_inputs.csv"))
