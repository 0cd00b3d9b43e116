"""Anti-sway LQR for a 10 m trolley transfer of the overhead crane, in closed loop with its FMU.

Run ``python examples/crane_control/overhead_lqr.py [OUT_DIR] [--fmi 3] [--transfer-plot PNG]``
(default ``out/``; about 10 s).  It writes the FMU ``overhead_crane.fmu``, the plots
``overhead_transfer.png`` (the four transfers) and ``overhead_fmu_vs_python.png`` (the LQR
loop on the FMU and on the Python model) and prints the numbers below.

The workflow, one function per step:

1. **Model** (:func:`design`).  ``examples/overhead_crane.py`` (trolley ``x``, rope length ``l``,
   swing ``theta``; inputs ``F_trolley``, ``F_hoist``) is built and derived.  The hanging
   equilibrium comes from :func:`symbody.numeric.static_equilibrium` with the hoist force
   off and ``x``, ``l`` held: the force holding the rope is the hoist force that keeps the
   load, printed beside the payload weight ``m_payload g`` (they are equal).
   :func:`symbody.numeric.linearize` gives the exact state space ``A, B`` about it (symbolic
   Jacobians; states ``x, l, theta, dx, dl, dtheta``).  Printed: the swing pole (frequency,
   damping, period) beside the hand formula ``sqrt(g/l (1 + m_payload/m_trolley))`` of a
   force-driven trolley.
2. **Controller** (:func:`design`, :func:`controllers`), two degrees of freedom:

   * feedforward: the planned motion is an S-curve of the *payload* (10 m at 0.5 m/s,
     0.25 m/s2, a trapezoid rounded by moving averages over 1, 0.5 and 0.5 s); the flat output of the linear
     model (:class:`crane_design.FlatReference`) turns it into the trolley, swing and force
     trajectories that deliver the payload without swing -- in the linear model;
   * feedback: an LQR on the tracking error, designed on the 10 ms zero-order-hold model
     (Bryson weights: tolerated 0.1 m trolley, 5 cm rope, 0.5 deg swing, 5 kN forces).  Its
     hoist row holds the rope at 12 m around the payload weight.

   Printed: the gain ``K`` and the poles of the sampled loop (frequency, damping ratio).
3. **FMU co-simulation** (:func:`export_plant`, :func:`run_transfers`).  The model is exported
   as a Co-Simulation FMU (as ``symbody export examples/overhead_crane.py -o
   out/overhead_crane.fmu --kind cs``) and driven with fmpy's ``FMU2Slave`` (``FMU3Slave``
   with ``--fmi 3``): every 10 ms the controller reads ``x, l, theta, dx, dl, dtheta``, sets
   ``F_trolley, F_hoist`` and calls ``doStep`` (:mod:`crane_loop`; the FMU integrates with
   its embedded dopri5, ``solver.rtol`` 1e-9).  The LQR loop is run again on the Python
   model (:class:`crane_loop.ModelPlant`: :func:`symbody.numeric.simulate` between samples);
   printed: the largest differences (about 1e-12: the two agree far beyond plotting accuracy).
4. **Comparison**, the same planned motion and the same hoist loop in every run:

   * *open loop*: the rigid-body force ``(m_trolley + m_payload) a + b_x v`` of the trolley
     following the S-curve (a trapezoidal force profile), no measurement;
   * *ZV shaper*: the same with the S-curve convolved with a zero-vibration shaper tuned to
     the swing pole of step 1 (input shaping, still open loop);
   * *PD*: the rigid-body force plus a critically damped trolley position loop (0.8 rad/s),
     no swing sensor;
   * *LQR*: step 2.

   Printed per run: settling time (payload within 5 cm of its target for good), maximum
   swing, residual swing (largest swing once the planned motion has ended), residual sway
   of the payload; then the LQR's residual swing relative to open loop (well under 1 %).
   In the nominal case the feedforward does most of that work; the feedback matters when
   the model is wrong: the last table repeats the transfer with a 6 t payload (the
   controllers still assume 4 t; the hoist holds the actual weight) with the LQR's
   feedforward alone and with the LQR.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

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

MODEL = HERE.parent / "overhead_crane.py"
STATES = ["x", "l", "theta", "dx", "dl", "dtheta"]
INPUTS = ["F_trolley", "F_hoist"]
TROLLEY_SWING = [0, 2, 3, 5]  # x, theta, dx, dtheta: the subsystem F_trolley drives (decoupled from l at rest)
RECORD = ["x_payload", "z_payload", "rope_tension"]

H = 0.01  # s, sampling period of the controller = communication step of the FMU
T_END = 35.0  # s, duration of every run
DISTANCE = 10.0  # m, transfer
V_MAX, A_MAX = 0.5, 0.25  # m/s, m/s2: speed and acceleration of the planned motion
SMOOTHING = (1.0, 0.5, 0.5)  # s, windows of the moving averages that round the trapezoid into an S-curve
F_TROLLEY_MAX = 10e3  # N, trolley drive limit
# LQR weights (Bryson): tolerated x, l, theta, dx, dl, dtheta and F_trolley, F_hoist
TOLERATED_STATES = [0.1, 0.05, np.radians(0.5), 0.5, 0.05, np.radians(1.0)]
TOLERATED_INPUTS = [5e3, 5e3]
PD_BANDWIDTH = 0.8  # rad/s, trolley position loop of the PD baseline (critically damped, rigid crane)
FMU_SOLVER = {"solver.method": 2, "solver.rtol": 1e-9, "solver.atol": 1e-11}  # dopri5
ROBUST_PAYLOAD = 6000.0  # kg, payload of the robustness check (the controllers assume the model's 4 t)


@dataclass
class OverheadDesign:
    """Everything steps 1 and 2 produce.

    Attributes:
        eq: derived equations of the crane.
        params: parameter values by name.
        q_eq: hanging equilibrium ``(x, l, theta)``.
        F_hold: hoist force that holds the load at rest (N).
        A, B: linear model about the equilibrium (states ``STATES``, inputs ``INPUTS``).
        swing_omega, swing_zeta: natural frequency (rad/s) and damping ratio of the swing pole.
        K: LQR gain (2 x 6) of the sampled loop.
        loop_poles: poles of the sampled closed loop (as ``log(z) / h``).
        move: the planned payload motion.
        flat: its flat reference (trolley and swing trajectories, feedforward force).
    """

    eq: object
    params: dict[str, float]
    q_eq: np.ndarray
    F_hold: float
    A: np.ndarray
    B: np.ndarray
    swing_omega: float
    swing_zeta: float
    K: np.ndarray
    loop_poles: np.ndarray
    move: Motion
    flat: FlatReference

    @property
    def l0(self) -> float:
        return float(self.q_eq[1])


def design(eq=None, verbose: bool = False) -> OverheadDesign:
    """Steps 1 and 2: equilibrium, linearization, swing pole, LQR gain, planned motion and its flat reference."""
    from symbody.loader import load_model
    from symbody.numeric import linearize, static_equilibrium

    eq = load_model(MODEL).derive() if eq is None else eq
    params = {p.name: p.value for p in eq.parameters}
    # the rope held with the hoist off: the force holding it is the hoist force that keeps the load
    rest = static_equilibrium(eq, q=[0.0, 12.0, 0.2], u={"F_hoist": 0.0}, fixed=["x", "l"])
    F_hold = -rest.holding["l"]
    lin = linearize(eq, rest.q, u={"F_hoist": F_hold}, inputs=INPUTS, outputs=["x_payload"])
    if lin.states != STATES:
        raise RuntimeError(f"unexpected state order {lin.states}")
    poles = lin.poles()
    swing = poles[np.argmax(poles.imag)]
    omega, zeta = abs(swing), -swing.real / abs(swing)
    K, loop_poles = sampled_lqr(lin.A, lin.B, bryson(TOLERATED_STATES), bryson(TOLERATED_INPUTS), H)
    move = trapezoid(DISTANCE, V_MAX, A_MAX)
    for window in SMOOTHING:  # three averages: the flat feedforward (which uses the 4th derivative) is continuous
        move = move.smoothed(window)
    sub = np.ix_(TROLLEY_SWING, TROLLEY_SWING)
    flat = FlatReference(lin.A[sub], lin.B[TROLLEY_SWING, 0], move)
    d = OverheadDesign(eq, params, rest.q, F_hold, lin.A, lin.B, omega, zeta, K, loop_poles, move, flat)
    if verbose:
        p = params
        hand = np.sqrt(p["g"] / rest["l"] * (1 + p["m_payload"] / p["m_trolley"]))
        print(f"hanging equilibrium: x = {rest['x']:.3f} m, l = {rest['l']:.3f} m, theta = {rest['theta']:.1e} rad")
        print(
            f"hoist force holding the load: {F_hold:.1f} N (payload weight m_payload g = {p['m_payload'] * p['g']:.1f} N)"
        )
        print(
            f"swing pole: omega = {omega:.4f} rad/s (hand formula {hand:.4f}), zeta = {zeta:.4f}, "
            f"period {2 * np.pi / omega:.3f} s"
        )
        terms = " ".join(f"{c:+.4g} {STATES[i]}" for i, c in zip(TROLLEY_SWING, flat.c))
        print(f"flat output (payload position): y = {terms}")
        print("LQR gain K (rows F_trolley, F_hoist; columns " + ", ".join(STATES) + "):")
        print(np.array2string(K, precision=1, suppress_small=True, max_line_width=120))
        w, z = damping(loop_poles)
        print(
            "poles of the 10 ms loop (omega [rad/s], zeta): "
            + ", ".join(f"({wi:.2f}, {zi:.2f})" for wi, zi, p_ in zip(w, z, loop_poles) if p_.imag >= 0)
        )
    return d


# ---------------------------------------------------------------------------
# step 2 (controllers) and steps 3, 4 (FMU, runs, metrics)
# ---------------------------------------------------------------------------

RUNS = ("open loop", "ZV shaper", "PD (no swing feedback)", "LQR")


def controllers(d: OverheadDesign, hoist_force: float | None = None) -> dict[str, FeedbackLaw]:
    """The transfers as sampled controllers of ``F_trolley``, ``F_hoist`` from the measured states.

    ``RUNS`` plus ``"LQR feedforward only"`` (the LQR's reference and feedforward, no feedback on
    the trolley).  ``hoist_force`` is the force the hoist holds (default: the model's payload weight).
    """
    p = d.params
    m_total = p["m_trolley"] + p["m_payload"]
    F_hold = d.F_hold if hoist_force is None else hoist_force
    K, l0 = d.K, d.l0
    k_l, k_dl = K[1, 1], K[1, 4]  # the hoist loop: the (l, dl) part of the LQR's hoist row
    limits = {"F_trolley": (-F_TROLLEY_MAX, F_TROLLEY_MAX)}

    def rigid(reference: Motion, kp: float = 0.0, kd: float = 0.0) -> FeedbackLaw:
        """Rigid-body force along a trolley reference, optional PD on the trolley, hoist loop."""

        def u(t: float, s: np.ndarray) -> np.ndarray:
            x, v, a = reference.position(t), reference.velocity(t), reference.acceleration(t)
            F = m_total * a + p["b_x"] * v - kp * (s[0] - x) - kd * (s[3] - v)
            return np.array([F, F_hold - k_l * (s[1] - l0) - k_dl * s[4]])

        return FeedbackLaw(STATES, INPUTS, u, limits)

    def two_dof(feedback: bool) -> FeedbackLaw:
        """Flat reference and feedforward of the payload motion, LQR on the tracking error."""

        def u(t: float, s: np.ndarray) -> np.ndarray:
            xs, F_ff = d.flat(t)
            ref = np.array([xs[0], l0, xs[1], xs[2], 0.0, xs[3]])
            err = s - ref
            F = F_ff - (K[0] @ err if feedback else 0.0)
            return np.array([F, F_hold - (K[1] @ err if feedback else k_l * err[1] + k_dl * err[4])])

        return FeedbackLaw(STATES, INPUTS, u, limits)

    kp = m_total * PD_BANDWIDTH**2
    kd = 2 * m_total * PD_BANDWIDTH - p["b_x"]
    return {
        "open loop": rigid(d.move),
        "ZV shaper": rigid(d.move.shaped(zv_shaper(d.swing_omega, d.swing_zeta))),
        "PD (no swing feedback)": rigid(d.move, kp, kd),
        "LQR": two_dof(True),
        "LQR feedforward only": two_dof(False),
    }


def motion_end(d: OverheadDesign, name: str) -> float:
    """End of the planned motion of a run (the ZV shaper delays it by half a swing period)."""
    if name == "ZV shaper":
        return d.move.shaped(zv_shaper(d.swing_omega, d.swing_zeta)).end
    return d.move.end


def export_plant(eq, path: Path, fmi_version: int = 2) -> Path:
    """Step 3: the Co-Simulation FMU of the crane."""
    from symbody.fmu import export_fmu

    return export_fmu(eq, path, fmi_version=fmi_version, kind="cs")


def run_transfers(
    d: OverheadDesign,
    fmu: Path,
    names=RUNS,
    t_end: float = T_END,
    parameters: dict[str, float] | None = None,
    hoist_force: float | None = None,
) -> dict[str, LoopResult]:
    """Run transfers in closed loop with the FMU (a fresh instance per run, ``parameters`` set in the FMU)."""
    laws = controllers(d, hoist_force)
    settings = {**FMU_SOLVER, **(parameters or {})}
    return {name: run_closed_loop(FmuPlant(fmu, settings), laws[name], t_end, H, RECORD) for name in names}


def run_python_reference(d: OverheadDesign, name: str = "LQR", t_end: float = T_END) -> LoopResult:
    """The same closed loop on the Python model (symbody.numeric.simulate between samples)."""
    return run_closed_loop(ModelPlant(d.eq), controllers(d)[name], t_end, H, RECORD)


def metrics(d: OverheadDesign, name: str, res: LoopResult) -> TransferMetrics:
    """Settling time, maximum and residual swing of one run."""
    return transfer_metrics(
        res.t, res["x_payload"] - DISTANCE, res["theta"], res["l"] * np.sin(res["theta"]), motion_end(d, name)
    )


def max_difference(a: LoopResult, b: LoopResult, names=("x", "l", "theta", "x_payload", "F_trolley")) -> dict:
    """Largest absolute difference of each signal between two runs."""
    return {n: float(np.max(np.abs(a[n] - b[n]))) for n in names}


# ---------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------


def plot_transfers(d: OverheadDesign, runs: dict[str, LoopResult], path: Path) -> None:
    """Payload position, swing and trolley force of every run (one PNG)."""
    plt = pyplot()
    fig, ax = plt.subplots(3, 1, figsize=(9, 8.5), sharex=True)
    t_ref = np.linspace(0, T_END, 701)
    ax[0].plot(t_ref, [d.move.position(t) for t in t_ref], "k:", lw=1, label="planned motion")
    for name, r in runs.items():
        lw = 2.2 if name == "LQR" else 1.2
        ax[0].plot(r.t, r["x_payload"], lw=lw, label=name)
        ax[1].plot(r.t, np.degrees(r["theta"]), lw=lw, label=name)
        ax[2].plot(r.t, r["F_trolley"] / 1e3, lw=lw, label=name)
    ax[0].set_ylabel("payload x [m]")
    ax[0].legend(loc="lower right", fontsize=8)
    ax[0].set_title(
        f"Overhead crane: {DISTANCE:g} m transfer of {d.params['m_payload'] / 1e3:g} t on a {d.l0:g} m rope "
        "(FMU co-simulation, 10 ms control)",
        fontsize=10,
    )
    ax[1].set_ylabel("swing [deg]")
    ax[1].axvline(d.move.end, color="grey", lw=0.8, ls="--")
    ax[1].text(d.move.end, ax[1].get_ylim()[1] * 0.8, " planned motion ends", fontsize=8, color="grey")
    ax[2].set_ylabel("trolley force [kN]")
    ax[2].set_xlabel("time [s]")
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> dict:
    """Run the workflow; returns ``design, fmu, runs, python, metrics, robust_runs, robust_metrics, plots``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default="out", help="folder for the FMU and the PNGs (default: out/)")
    ap.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version of the exported FMU")
    ap.add_argument("--transfer-plot", type=Path, help="path of the transfer plot (default: OUT/overhead_transfer.png)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()

    print("== 1-2. model, hanging equilibrium, linearization, controller")
    d = design(verbose=True)

    print(f"\n== 3. FMU (FMI {args.fmi} Co-Simulation), closed loop sampled every {1e3 * H:g} ms")
    fmu = export_plant(d.eq, out / "overhead_crane.fmu", args.fmi)
    print(f"FMU: {fmu}")
    runs = run_transfers(d, fmu)
    ref = run_python_reference(d)
    diff = max_difference(runs["LQR"], ref)
    print("LQR loop, FMU vs Python model, largest differences: " + ", ".join(f"{k} {v:.1e}" for k, v in diff.items()))

    print(f"\n== 4. {DISTANCE:g} m transfer")
    table = {name: metrics(d, name, r) for name, r in runs.items()}
    print(format_table(table))
    ratio = table["LQR"].residual_swing / table["open loop"].residual_swing
    print(f"LQR residual swing = {100 * ratio:.2f} % of open loop (reduction {100 * (1 - ratio):.2f} %)")

    m = ROBUST_PAYLOAD
    print(f"\nthe same with a {m / 1e3:g} t payload (controllers designed for {d.params['m_payload'] / 1e3:g} t):")
    names = ("open loop", "ZV shaper", "LQR feedforward only", "LQR")
    robust = run_transfers(d, fmu, names, parameters={"m_payload": m}, hoist_force=m * d.params["g"])
    robust_table = {name: metrics(d, name, r) for name, r in robust.items()}
    print(format_table(robust_table))

    plot = args.transfer_plot or out / "overhead_transfer.png"
    plot.parent.mkdir(parents=True, exist_ok=True)
    plot_transfers(d, runs, plot)
    plot_fmu_vs_python(
        runs["LQR"],
        ref,
        out / "overhead_fmu_vs_python.png",
        [("x_payload", 1.0, "m"), ("theta", 180 / np.pi, "deg")],
        "LQR closed loop: FMU vs Python model",
    )
    print(f"\nplots: {plot}, {out / 'overhead_fmu_vs_python.png'}")
    print(f"total {time.perf_counter() - t0:.1f} s")
    return {
        "design": d,
        "fmu": fmu,
        "runs": runs,
        "python": ref,
        "metrics": table,
        "robust_runs": robust,
        "robust_metrics": robust_table,
        "plots": [plot, out / "overhead_fmu_vs_python.png"],
    }


if __name__ == "__main__":
    main()
