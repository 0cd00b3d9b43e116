"""Anti-sway LQR for a tower crane slewing 90 deg while its trolley travels 10 m, in closed loop with its FMU.

Run ``python examples/crane_control/tower_lqr.py [OUT_DIR] [--fmi 3]`` (default ``out/``;
about 6 s).  It writes the FMU ``tower_crane.fmu``, the plots ``tower_transfer.png`` (the
three transfers: payload path seen from above, swing, drive torque and force) and
``tower_fmu_vs_python.png``, and prints the numbers below.

The workflow, one function per step (as in ``overhead_lqr.py``):

1. **Model** (:func:`design`).  ``examples/tower_crane.py`` (slew ``theta``, trolley ``r``,
   radial and tangential swing ``beta_r``, ``beta_t``, payload twist ``gamma``; inputs
   ``tau_slew``, ``F_trolley``; a 2 t, 8 m beam on a 20 m rope) is built and derived.  The
   hanging equilibrium comes from :func:`symbody.numeric.static_equilibrium` (slew and
   trolley held, from a swung-out guess); printed: the swing angles found, the holding
   efforts (zero) and the rope tension output there, beside the payload weight.
   :func:`symbody.numeric.linearize` gives ``A, B`` (10 states); printed: its oscillating
   modes -- tangential swing (the slewing jib barely moves, ``sqrt(g/l)``), radial swing (the
   light trolley moves with it, faster) and the slow twist of the beam on the reeving.
2. **Controller** (:func:`design`, :func:`controllers`), two degrees of freedom:

   * feedforward: the planned motion is an S-curve of the payload's slew angle (90 deg at
     0.06 rad/s, 0.012 rad/s2) and of its radius (25 to 35 m at 0.5 m/s, 0.25 m/s2), both
     rounded by moving averages over 2, 1 and 1 s.  At rest the linear model splits into
     the slewing subsystem (``theta, beta_t`` driven by ``tau_slew``) and the trolley
     subsystem (``r, beta_r`` driven by ``F_trolley``); the flat output of each
     (:class:`crane_design.FlatReference`) gives the jib, trolley and swing trajectories and
     the feedforward torque and force.  What the linearization at rest misses is added
     quasi-statically: the centrifugal and Coriolis accelerations of the payload (rope tilt
     and drive force) and the slewing inertia growing with the radius;
   * feedback: an LQR on the tracking error of all 10 states, designed on the 10 ms
     zero-order-hold model (Bryson weights: tolerated 5 mrad slew, 0.2 m trolley, 0.2 deg
     swing; 300 kN.m torque, 5 kN force).  The twist is not weighted: the drives can hardly
     act on it through the weak reeving stiffness (its pole stays where the reeving puts it).

   Printed: the poles of the sampled loop (frequency, damping ratio).
3. **FMU co-simulation**: the Co-Simulation FMU (``symbody export examples/tower_crane.py -o
   out/tower_crane.fmu --kind cs``) is driven with fmpy's ``FMU2Slave`` every 10 ms: the
   controller reads the 10 states and sets ``tau_slew``, ``F_trolley``.  The LQR loop is run
   again on the Python model for the first 20 s (it is slower); printed: largest differences.
4. **Comparison** with the same planned motions: *open loop* (the rigid-body torque
   ``(J_slew + (m_trolley + m_payload) r^2) alpha + 2 (m_trolley + m_payload) r r' omega +
   c_slew omega`` and force ``(m_trolley + m_payload)(r'' - r omega^2) + b_r r'``), *ZV shaper*
   (the same after shaping each motion for its own swing mode) and *LQR*.  Printed per run:
   settling time (payload within 5 cm of its target, horizontally), maximum swing (rope
   angle from the vertical), residual swing once the planned motions have ended, residual
   sway; then the largest twist and the largest swing in the last 5 s of the run.

   The criterion for "the closed loop damps the swing" (checked by
   ``tests/examples/test_crane_control.py``): every pole of the sampled loop except the twist has a
   damping ratio of at least 0.45 (the open-loop swing modes: below 0.07); in the FMU
   co-simulation the LQR's residual swing is under 10 % of open loop and its swing in the
   last 5 s is under 0.05 deg.  The beam's twist is not damped (about 54 deg: the jib turns
   under a beam the reeving barely drags along; a rotating hook would be needed).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symbody.numeric import NumericModel

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from crane_design import FlatReference, bryson, damping, sampled_lqr  # noqa: E402
from crane_loop import (  # noqa: E402
    FeedbackLaw,
    FmuPlant,
    LoopResult,
    ModelPlant,
    plot_fmu_vs_python,
    pyplot,
    run_closed_loop,
)
from crane_motion import Motion, TransferMetrics, format_table, transfer_metrics, trapezoid, zv_shaper  # noqa: E402

MODEL = HERE.parent / "tower_crane.py"
STATES = ["theta", "r", "beta_r", "beta_t", "gamma", "dtheta", "dr", "dbeta_r", "dbeta_t", "dgamma"]
INPUTS = ["tau_slew", "F_trolley"]
SLEW = [0, 3, 5, 8]  # theta, beta_t, dtheta, dbeta_t: driven by tau_slew (twist left out of the feedforward)
TROLLEY = [1, 2, 6, 7]  # r, beta_r, dr, dbeta_r: driven by F_trolley
RECORD = ["x_payload", "y_payload", "z_payload", "rope_tension"]

H = 0.01  # s, sampling period = communication step
T_END = 50.0  # s
R0 = 25.0  # m, trolley radius at the start
SLEW_ANGLE, OMEGA_MAX, ALPHA_MAX = np.pi / 2, 0.06, 0.012  # rad, rad/s, rad/s2
TROLLEY_TRAVEL, V_MAX, A_MAX = 10.0, 0.5, 0.25  # m, m/s, m/s2
SMOOTHING = (2.0, 1.0, 1.0)  # s, moving averages rounding both trapezoids
# LQR weights (Bryson): tolerated errors of the 10 states, then of tau_slew and F_trolley
# (the twist is not weighted: the drives can hardly act on it, the reeving damps it)
TOLERATED_STATES = [5e-3, 0.2, np.radians(0.2), np.radians(0.2), np.inf]
TOLERATED_STATES += [5e-2, 1.0, np.radians(0.5), np.radians(0.6), np.inf]
TOLERATED_INPUTS = [3e5, 5e3]
FMU_SOLVER = {"solver.method": 2, "solver.rtol": 1e-9, "solver.atol": 1e-11}  # dopri5
PYTHON_HORIZON = 20.0  # s, length of the Python-model run compared with the FMU
LATE_WINDOW = 5.0  # s, the end of the run where the swing must have died out


@dataclass
class TowerDesign:
    """Everything steps 1 and 2 produce (see ``overhead_lqr.OverheadDesign``).

    Attributes:
        swing_modes: ``{name: (omega, zeta)}`` of the open-loop oscillating modes.
        slew_move, trolley_move: planned payload slew angle (rad) and radius change (m).
        slew_flat, trolley_flat: their flat references.
    """

    eq: object
    params: dict[str, float]
    q_eq: np.ndarray
    A: np.ndarray
    B: np.ndarray
    swing_modes: dict[str, tuple[float, float]]
    K: np.ndarray
    loop_poles: np.ndarray
    slew_move: Motion
    trolley_move: Motion
    slew_flat: FlatReference
    trolley_flat: FlatReference

    @property
    def motion_end(self) -> float:
        return max(self.slew_move.end, self.trolley_move.end)

    @property
    def target(self) -> np.ndarray:
        """Horizontal position of the payload at the end of the transfer."""
        r, th = R0 + TROLLEY_TRAVEL, SLEW_ANGLE
        return np.array([r * np.cos(th), r * np.sin(th)])


def _mode(A: np.ndarray, coordinate: int) -> tuple[float, float]:
    """Frequency and damping of the oscillating mode whose eigenvector is largest on a coordinate."""
    lam, V = np.linalg.eig(A)
    n = A.shape[0] // 2
    osc = np.flatnonzero(lam.imag > 1e-9)
    share = [abs(V[coordinate, k]) / np.linalg.norm(V[:n, k]) for k in osc]
    k = osc[int(np.argmax(share))]
    w, z = damping(lam[k : k + 1])
    return float(w[0]), float(z[0])


def _planned(distance: float, v: float, a: float) -> Motion:
    move = trapezoid(distance, v, a)
    for window in SMOOTHING:
        move = move.smoothed(window)
    return move


def design(eq=None, verbose: bool = False) -> TowerDesign:
    """Steps 1 and 2: equilibrium, linearization, modes, LQR, planned motions and their flat references."""
    from symbody.loader import load_model
    from symbody.numeric import linearize, static_equilibrium

    eq = load_model(MODEL, r0=R0).derive() if eq is None else eq
    params = {p.name: p.value for p in eq.parameters}
    rest = static_equilibrium(eq, q=[0.0, R0, 0.1, 0.1, 0.1], fixed=["theta", "r"])
    lin = linearize(eq, rest.q, inputs=INPUTS, outputs=["rope_tension"])
    if lin.states != STATES:
        raise RuntimeError(f"unexpected state order {lin.states}")
    modes = {
        "tangential swing": _mode(lin.A, STATES.index("beta_t")),
        "radial swing": _mode(lin.A, STATES.index("beta_r")),
        "twist": _mode(lin.A, STATES.index("gamma")),
    }
    K, loop_poles = sampled_lqr(lin.A, lin.B, bryson(TOLERATED_STATES), bryson(TOLERATED_INPUTS), H)
    slew_move = _planned(SLEW_ANGLE, OMEGA_MAX, ALPHA_MAX)
    trolley_move = _planned(TROLLEY_TRAVEL, V_MAX, A_MAX)
    slew_flat = FlatReference(lin.A[np.ix_(SLEW, SLEW)], lin.B[SLEW, 0], slew_move)
    trolley_flat = FlatReference(lin.A[np.ix_(TROLLEY, TROLLEY)], lin.B[TROLLEY, 1], trolley_move)
    d = TowerDesign(
        eq, params, rest.q, lin.A, lin.B, modes, K, loop_poles, slew_move, trolley_move, slew_flat, trolley_flat
    )
    if verbose:
        nm = NumericModel(eq)
        ddq, lam = nm.accelerations(rest.q, np.zeros(eq.nq))
        tension = nm.outputs(rest.q, np.zeros(eq.nq), t=0.0, u=None, ddq=ddq, lam=lam)[
            [o.name for o in eq.outputs].index("rope_tension")
        ]
        print(
            "hanging equilibrium: "
            + ", ".join(f"{n} = {v:.2e}" for n, v in zip(("beta_r", "beta_t", "gamma"), rest.q[2:]))
            + " rad; holding efforts "
            + ", ".join(f"{k} {v:.1e}" for k, v in rest.holding.items())
        )
        print(f"rope tension there: {tension:.1f} N (payload weight {params['m_payload'] * params['g']:.1f} N)")
        l, g = params["l"], params["g"]
        for name, (w, z) in modes.items():
            print(f"{name:>17}: omega = {w:.4f} rad/s, zeta = {z:.4f}, period {2 * np.pi / w:.2f} s")
        print(f"  (pendulum sqrt(g/l) = {np.sqrt(g / l):.4f} rad/s)")
        w, z = damping(loop_poles)
        print(
            "poles of the 10 ms loop (omega [rad/s], zeta): "
            + ", ".join(f"({wi:.3f}, {zi:.2f})" for wi, zi, p_ in zip(w, z, loop_poles) if p_.imag >= 0)
        )
    return d


# ---------------------------------------------------------------------------
# controllers, runs, metrics
# ---------------------------------------------------------------------------

RUNS = ("open loop", "ZV shaper", "LQR")


def controllers(d: TowerDesign, corrections: bool = True) -> dict[str, FeedbackLaw]:
    """The transfers as sampled controllers of ``tau_slew``, ``F_trolley`` from the 10 measured states.

    ``corrections=False`` leaves out the LQR's quasi-static feedforward of what the linearization at
    rest misses (centrifugal and Coriolis accelerations, inertia growing with the radius).
    """
    p = d.params
    m = p["m_trolley"] + p["m_payload"]

    def rigid(slew: Motion, trolley: Motion) -> FeedbackLaw:
        """Rigid-body torque and force along the planned jib and trolley motions (no measurement)."""

        def u(t: float, s: np.ndarray) -> np.ndarray:
            w, alpha = slew.velocity(t), slew.acceleration(t)
            r, v, a = R0 + trolley.position(t), trolley.velocity(t), trolley.acceleration(t)
            tau = (p["J_slew"] + m * r * r) * alpha + 2 * m * r * v * w + p["c_slew"] * w
            return np.array([tau, m * (a - r * w * w) + p["b_r"] * v])

        return FeedbackLaw(STATES, INPUTS, u)

    def lqr(t: float, s: np.ndarray) -> np.ndarray:
        xs, tau_ff = d.slew_flat(t)
        xr, F_ff = d.trolley_flat(t)
        ref = np.zeros(10)
        ref[SLEW], ref[TROLLEY] = xs, xr
        ref[1] += R0
        if corrections:
            # what the linearization at rest (radius R0, no slew rate) leaves out, quasi-statically:
            # centrifugal and Coriolis accelerations, and the inertia growing with the radius
            w, alpha = d.slew_move.velocity(t), d.slew_move.acceleration(t)
            r, v = R0 + d.trolley_move.position(t), d.trolley_move.velocity(t)
            ref[2] += r * w * w / p["g"]
            ref[3] -= ((r - R0) * alpha + 2 * v * w) / p["g"]
            F_ff -= m * r * w * w
            tau_ff += m * (r * r - R0 * R0) * alpha + 2 * m * r * v * w
        return np.array([tau_ff, F_ff]) - d.K @ (s - ref)

    zv_slew = zv_shaper(*d.swing_modes["tangential swing"])
    zv_trolley = zv_shaper(*d.swing_modes["radial swing"])
    return {
        "open loop": rigid(d.slew_move, d.trolley_move),
        "ZV shaper": rigid(d.slew_move.shaped(zv_slew), d.trolley_move.shaped(zv_trolley)),
        "LQR": FeedbackLaw(STATES, INPUTS, lqr),
    }


def motion_end(d: TowerDesign, name: str) -> float:
    """End of the planned motions of a run (the shapers delay them)."""
    if name == "ZV shaper":
        return max(
            d.slew_move.shaped(zv_shaper(*d.swing_modes["tangential swing"])).end,
            d.trolley_move.shaped(zv_shaper(*d.swing_modes["radial swing"])).end,
        )
    return d.motion_end


def export_plant(eq, path: Path, fmi_version: int = 2) -> Path:
    """Step 3: the Co-Simulation FMU of the crane."""
    from symbody.fmu import export_fmu

    return export_fmu(eq, path, fmi_version=fmi_version, kind="cs")


def run_transfers(d: TowerDesign, fmu: Path, names=RUNS, t_end: float = T_END) -> dict[str, LoopResult]:
    """Run transfers in closed loop with the FMU (a fresh instance per run)."""
    laws = controllers(d)
    return {name: run_closed_loop(FmuPlant(fmu, FMU_SOLVER), laws[name], t_end, H, RECORD) for name in names}


def run_python_reference(d: TowerDesign, name: str = "LQR", t_end: float = PYTHON_HORIZON) -> LoopResult:
    """The same closed loop on the Python model (symbody.numeric.simulate between samples)."""
    return run_closed_loop(ModelPlant(d.eq), controllers(d)[name], t_end, H, RECORD)


def swing_angle(res: LoopResult) -> np.ndarray:
    """Angle of the rope from the vertical (rad)."""
    return np.arccos(np.clip(np.cos(res["beta_r"]) * np.cos(res["beta_t"]), -1.0, 1.0))


def metrics(d: TowerDesign, name: str, res: LoopResult) -> TransferMetrics:
    """Settling time, maximum and residual swing of one run."""
    err = np.hypot(res["x_payload"] - d.target[0], res["y_payload"] - d.target[1])
    swing = swing_angle(res)
    return transfer_metrics(res.t, err, swing, d.params["l"] * np.sin(swing), motion_end(d, name))


def max_difference(a: LoopResult, b: LoopResult, names=("theta", "r", "beta_r", "beta_t", "gamma", "tau_slew")):
    """Largest absolute difference of each signal over the common samples of two runs."""
    n = min(len(a.t), len(b.t))
    return {k: float(np.max(np.abs(a[k][:n] - b[k][:n]))) for k in names}


# ---------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------


def animate_transfers(fmu: Path, runs: dict[str, LoopResult], path: Path, names=("open loop", "LQR")) -> Path:
    """GIF of the transfers side by side (``symbody.animate`` with the crane's shapes, from the FMU's geometry)."""
    import symbody as sb
    from symbody.viz.movie import write_movie

    scenes = [
        sb.animate(fmu, {"time": runs[n].t, **runs[n].signals}, fps=4, title=n, trails=["payload_cog"]).scene
        for n in names
    ]
    return write_movie(scenes, path, fps=4, speed=2.5, size=(600, 300), colors=128)


def plot_transfers(d: TowerDesign, runs: dict[str, LoopResult], path: Path) -> None:
    """Payload path from above, swing angles, slewing torque and trolley force of every run."""
    plt = pyplot()
    fig = plt.figure(figsize=(11, 8))
    grid = fig.add_gridspec(3, 2, width_ratios=(1, 1.6))
    top = fig.add_subplot(grid[:, 0])
    ax = [fig.add_subplot(grid[i, 1]) for i in range(3)]
    for name, r in runs.items():
        lw = 2.2 if name == "LQR" else 1.2
        top.plot(r["x_payload"], r["y_payload"], lw=lw, label=name)
        ax[0].plot(r.t, np.degrees(r["beta_r"]), lw=lw, label=f"{name}, radial")
        ax[1].plot(r.t, np.degrees(r["beta_t"]), lw=lw, label=f"{name}, tangential")
        ax[2].plot(r.t, r["tau_slew"] / 1e3, lw=lw, label=name)
    top.plot(*d.target, "k+", ms=14)
    top.set_aspect("equal")
    top.set_xlabel("x [m]")
    top.set_ylabel("y [m]")
    top.set_title("payload path, seen from above", fontsize=10)
    top.legend(fontsize=8)
    ax[0].set_ylabel("radial swing [deg]")
    ax[1].set_ylabel("tangential swing [deg]")
    ax[2].set_ylabel("slewing torque [kN.m]")
    ax[2].set_xlabel("time [s]")
    for a in ax[:2]:
        a.axvline(d.motion_end, color="grey", lw=0.8, ls="--")
    fig.suptitle(
        f"Tower crane: slew {np.degrees(SLEW_ANGLE):g} deg and trolley {R0:g} -> {R0 + TROLLEY_TRAVEL:g} m with a "
        f"{d.params['m_payload'] / 1e3:g} t beam on a {d.params['l']:g} m rope (FMU co-simulation, 10 ms control)",
        fontsize=10,
    )
    for a in (*ax, top):
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> dict:
    """Run the workflow; returns ``design, fmu, runs, python, metrics, plots`` (used by the tests)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default="out", help="folder for the FMU and the PNGs (default: out/)")
    ap.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version of the exported FMU")
    ap.add_argument("--transfer-gif", default=None, help="also write a GIF of open loop against LQR here")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    print("== 1-2. model, hanging equilibrium, linearization, controller")
    d = design(verbose=True)

    print(f"\n== 3. FMU (FMI {args.fmi} Co-Simulation), closed loop sampled every {1e3 * H:g} ms")
    fmu = export_plant(d.eq, out / "tower_crane.fmu", args.fmi)
    print(f"FMU: {fmu}")
    runs = run_transfers(d, fmu)
    ref = run_python_reference(d)
    diff = max_difference(runs["LQR"], ref)
    print(
        f"LQR loop, FMU vs Python model over {PYTHON_HORIZON:g} s, largest differences: "
        + ", ".join(f"{k} {v:.1e}" for k, v in diff.items())
    )

    print(f"\n== 4. slew {np.degrees(SLEW_ANGLE):g} deg and trolley {R0:g} -> {R0 + TROLLEY_TRAVEL:g} m")
    table = {name: metrics(d, name, r) for name, r in runs.items()}
    print(format_table(table))
    for name, r in runs.items():
        late = np.degrees(swing_angle(r)[r.t >= r.t[-1] - LATE_WINDOW].max())
        twist = np.degrees(np.abs(r["gamma"]).max())
        print(f"{name:<26}largest twist {twist:6.2f} deg, largest swing in the last {LATE_WINDOW:g} s {late:.3f} deg")
    ratio = table["LQR"].residual_swing / table["open loop"].residual_swing
    print(f"LQR residual swing = {100 * ratio:.2f} % of open loop (reduction {100 * (1 - ratio):.2f} %)")

    plot_transfers(d, runs, out / "tower_transfer.png")
    plot_fmu_vs_python(
        runs["LQR"],
        ref,
        out / "tower_fmu_vs_python.png",
        [("beta_r", 180 / np.pi, "deg"), ("beta_t", 180 / np.pi, "deg")],
        "tower crane, LQR closed loop: FMU vs Python model",
    )
    if args.transfer_gif:
        print(f"animation: {animate_transfers(fmu, runs, Path(args.transfer_gif))}")
    print(f"\nplots: {out / 'tower_transfer.png'}, {out / 'tower_fmu_vs_python.png'}")
    print(f"total {time.perf_counter() - t0:.1f} s")
    plots = [out / "tower_transfer.png", out / "tower_fmu_vs_python.png"]
    return {"design": d, "fmu": fmu, "runs": runs, "python": ref, "metrics": table, "plots": plots}


if __name__ == "__main__":
    main()
