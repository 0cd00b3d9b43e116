"""The knuckle-boom crane on a rolling ship: co-simulation with recorded ship motion, and an anti-sway loop.

Run ``python examples/crane_control/ship_crane_cosim.py [OUT_DIR] [--fmi 3] [--duration 60]`` (default
``out/``; about 15 s).  It writes the FMU ``knuckle_crane.fmu``, the plot ``ship_crane_sway.png`` and prints
the numbers below.

1. **Ship motion** (:func:`ship_motion`): ``examples/ship_motion.csv`` holds the heave, roll and pitch of the
   ship's reference point every 0.1 s (a few components of a moderate sea, written by
   :func:`write_ship_motion` when missing).  The model takes them as motion inputs, three FMU inputs each
   (``heave``, ``dheave``, ``ddheave``, ...): a cubic spline through the samples
   (``symbody.numeric.Sampled(kind="cubic")``) gives the rates that are consistent with the positions.
2. **Operating point and linear model** (:func:`design`): :func:`symbody.numeric.inverse_dynamics` gives the
   cylinder forces that hold the booms at rest over the starboard side (no slewing torque), and
   :func:`symbody.numeric.linearize` the exact state space there, with the calm sea (the motion inputs at
   zero) and the three drives ``tau_slew``, ``F_main``, ``F_jib`` as inputs.  Printed: the payload's
   swing frequency beside the pendulum's ``sqrt(g / l_rope)``.
3. **Anti-sway controller**: an LQR on the 50 ms zero-order-hold model (Bryson weights: 0.1 deg of sway,
   5 deg of the booms, 10 deg of slew, 0.2, 25 and 20 deg/s of their rates, 100 kN of cylinder force,
   100 kN m of slewing torque).  It measures the
   booms' angles and rates and the rope's angles from the vertical (``sway_t``, ``sway_r`` and their rates,
   outputs of the model: what a camera or an inertial sensor on the hook sees), and adds its correction to
   the holding forces of step 2.  Printed: the frequencies and damping ratios of the loop's poles.
4. **Co-simulation in fmpy** (:func:`run`): the Co-Simulation FMU stepped every 50 ms with fmpy's low-level
   API; at each communication point the ship's motion of the CSV and the drives are set, the outputs read.
   The same run, open loop (the holding forces alone) and closed loop.  Printed: the RMS and the largest sway,
   the reduction, the largest fixation force and torque on the ship (the wrench the crane exerts on the deck,
   outputs of the model).
5. **Co-simulation in libcosim** (:func:`run_libcosim`, when ``libcosimpy`` is installed): the same FMU in
   DNV's co-simulation engine, the controller and the ship motion applied through an override manipulator at
   every step; printed: the largest difference from the fmpy run (both call the same FMU functions with the same
   values: they agree to rounding).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(EXAMPLES))

import knuckle_crane  # noqa: E402
from crane_design import bryson, damping, sampled_lqr  # noqa: E402
from crane_loop import FeedbackLaw, FmuPlant, LoopResult, pyplot, run_closed_loop  # noqa: E402

import symbody as sb  # noqa: E402
from symbody.fmu import export_fmu  # noqa: E402
from symbody.numeric import Sampled, inverse_dynamics, linearize  # noqa: E402

H = 0.05  # communication step and controller sampling period (s)
SHIP_CSV = EXAMPLES / "ship_motion.csv"
SHIP = ("heave", "roll", "pitch")
DRIVES = ["tau_slew", "F_main", "F_jib"]
BOOMS = ["slew", "luff", "fold"]
#: what the controller measures: the booms' angles, the rope's angles from the vertical, their rates
MEASURED = BOOMS + ["sway_t", "sway_r"] + ["d" + b for b in BOOMS] + ["dsway_t", "dsway_r"]


# ---------------------------------------------------------------------------------------- ship motion


def write_ship_motion(path: Path = SHIP_CSV, duration: float = 120.0, dt: float = 0.1) -> Path:
    """A recorded-like ship motion: heave (m), roll and pitch (rad) of a moderate sea, sums of a few waves,
    faded in over the first 10 s (the crane starts at rest in calm water)."""
    t = np.round(np.arange(0.0, duration + dt / 2, dt), 10)
    fade = np.where(t < 10.0, 0.5 - 0.5 * np.cos(np.pi * np.minimum(t, 10.0) / 10.0), 1.0)
    heave = fade * (0.8 * np.sin(2 * np.pi * t / 8.5) + 0.3 * np.sin(2 * np.pi * t / 6.1 + 1.0))
    roll = fade * (0.06 * np.sin(2 * np.pi * t / 9.3 + 0.5) + 0.02 * np.sin(2 * np.pi * t / 6.7 + 2.0))
    pitch = fade * (0.025 * np.sin(2 * np.pi * t / 6.2 + 1.3) + 0.01 * np.sin(2 * np.pi * t / 4.9))
    rows = "\n".join(f"{a:.1f},{b:.6f},{c:.6f},{d:.6f}" for a, b, c, d in zip(t, heave, roll, pitch))
    path.write_text("time,heave,roll,pitch\n" + rows + "\n")
    return path


def ship_motion(path: Path = SHIP_CSV) -> dict[str, Sampled]:
    """The ship's motion of the CSV as cubic splines: ``signal.motion(t)`` gives ``(z, dz, ddz)``."""
    if not path.is_file():
        write_ship_motion(path)
    data = np.genfromtxt(path, delimiter=",", names=True)
    return {name: Sampled(data["time"], data[name], kind="cubic") for name in SHIP}


def ship_inputs(signals: dict[str, Sampled], t: float) -> tuple[list[str], list[float]]:
    """The nine FMU inputs of the ship's motion at ``t`` (each motion input with its two rates)."""
    names, values = [], []
    for name, signal in signals.items():
        names += [name, "d" + name, "dd" + name]
        values += [float(v) for v in signal.motion(t)]
    return names, values


# ---------------------------------------------------------------------------------------- design


@dataclass
class Design:
    eq: sb.Equations
    u_hold: np.ndarray  # the drives' forces holding the booms (tau_slew, F_main, F_jib)
    x_op: np.ndarray  # the operating point of MEASURED
    K: np.ndarray  # u = u_hold - K (y - x_op)
    swing_frequency: float  # rad/s
    swing_damping: float  # the smallest damping ratio of the closed loop's oscillating poles


def design(verbose: bool = False) -> Design:
    """Operating point, linear model and sampled LQR (steps 2 and 3 of the module docstring)."""
    eq = knuckle_crane.build().derive()
    n = eq.nq
    inv = inverse_dynamics(eq, [0.0], [eq.q0], [np.zeros(n)], [np.zeros(n)], actuators=DRIVES)
    u = inv.u[0]
    u_hold = np.array([u[eq.index(d)[1]] for d in DRIVES])
    lin = linearize(eq, eq.q0, u=u, inputs=DRIVES)
    names = [c.name for c in eq.coordinates]
    assert lin.states == names + ["d" + c for c in names]  # no constraints: every coordinate is independent
    swing = [p for p in lin.poles() if p.imag > 1.0]
    w_pend = math.sqrt(knuckle_crane.G0 / 6.0)
    # tolerated: slew 10 deg, booms 5 deg, sway 0.1 deg; rates 20, 25, 25, 0.2, 0.2 deg/s; drives 100 kN (m)
    Q = bryson(np.radians([10.0, 5.0, 5.0, 0.1, 0.1, 20.0, 25.0, 25.0, 0.2, 0.2]))
    R = bryson([1e5, 1e5, 1e5])
    K, poles = sampled_lqr(lin.A, lin.B, Q, R, H)
    w, zeta = damping(poles)
    oscillating = [z for p, z in zip(poles, zeta) if abs(p.imag) > 1e-6]
    if verbose:
        print(f"holding forces: F_main = {u_hold[1] / 1e3:.1f} kN, F_jib = {u_hold[2] / 1e3:.1f} kN")
        print(f"swing poles of the open loop (rad/s): {', '.join(f'{p:.3f}' for p in sorted(swing, key=abs))}")
        print(f"pendulum sqrt(g / l_rope) = {w_pend:.3f} rad/s (the radial swing; the tangential one turns the column)")
        print(
            "closed loop (frequency rad/s, damping): "
            + ", ".join(f"({a:.2f}, {b:.2f})" for a, b in sorted(zip(w, zeta)))
        )
    x_op = np.concatenate([eq.q0, np.zeros(n)])
    return Design(eq, u_hold, x_op, K, abs(min(swing, key=abs)), min(oscillating))


# ---------------------------------------------------------------------------------------- runs


def controller(d: Design, signals: dict[str, Sampled], closed: bool) -> FeedbackLaw:
    """The drives (the holding forces, and the LQR's correction when ``closed``) and the ship's motion."""
    ship_names, _ = ship_inputs(signals, 0.0)

    def law(t: float, y: np.ndarray) -> np.ndarray:
        u = d.u_hold - (d.K @ (y - d.x_op) if closed else 0.0)
        return np.concatenate([u, ship_inputs(signals, t)[1]])

    return FeedbackLaw(MEASURED, DRIVES + ship_names, law)


RECORDED = ["payload_x", "payload_y", "payload_z", "fixation_force_z", "fixation_torque_x", "fixation_torque_y"]


def export(d: Design, path: Path, fmi: int = 2) -> Path:
    """The Co-Simulation FMU (as ``symbody export examples/knuckle_crane.py -o PATH --kind cs``)."""
    return export_fmu(d.eq, path, fmi_version=fmi, kind="cs")


def start_values(d: Design) -> dict[str, float]:
    """Set before initialization: the drives holding the booms (the plant starts at rest), the tolerance."""
    return {"solver.rtol": 1e-8, **dict(zip(DRIVES, d.u_hold))}


def run(d: Design, fmu: Path, signals: dict[str, Sampled], duration: float, closed: bool) -> LoopResult:
    """One co-simulation in fmpy: open loop or with the anti-sway LQR."""
    plant = FmuPlant(fmu, start_values(d))
    return run_closed_loop(plant, controller(d, signals, closed), duration, H, record=RECORDED)


def run_libcosim(d: Design, fmu: Path, signals: dict[str, Sampled], duration: float, closed: bool) -> LoopResult:
    """The same co-simulation in libcosim (DNV's engine): the controller sets the inputs through an override
    manipulator before each step and reads the outputs through a last-value observer."""
    import fmpy
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimManipulator import CosimManipulator
    from libcosimpy.CosimObserver import CosimObserver
    from libcosimpy.CosimSlave import CosimLocalSlave

    log_output_level(CosimLogLevel.ERROR)
    vr = {v.name: v.valueReference for v in fmpy.read_model_description(str(fmu)).modelVariables}
    ex = CosimExecution.from_step_size(step_size=round(H * 1e9))
    crane = ex.add_local_slave(CosimLocalSlave(fmu_path=str(fmu), instance_name="crane"))
    observer = CosimObserver.create_last_value()
    manipulator = CosimManipulator.create_override()
    ex.add_observer(observer)
    ex.add_manipulator(manipulator)
    law = controller(d, signals, closed)
    for name, value in start_values(d).items():
        ex.real_initial_value(crane, vr[name], value)
    names = law.measured + RECORDED
    steps = round(duration / H)
    ys, us = np.zeros((steps, len(names))), np.zeros((steps, len(law.inputs)))
    y = d.x_op  # at t = 0 the plant rests at the operating point with the calm sea of its start values
    for k in range(steps):
        u = law(k * H, y)
        manipulator.slave_real_values(crane, [vr[n] for n in law.inputs], list(u))
        if not ex.step():  # (the first step initializes the FMU)
            raise RuntimeError(f"libcosim failed at t = {k * H:g}: {ex.status()}")
        ys[k], us[k] = observer.last_real_values(crane, [vr[n] for n in names]), u
        y = ys[k, : len(law.measured)]
    signals_out = {n: ys[:, j] for j, n in enumerate(names)} | {n: us[:, j] for j, n in enumerate(law.inputs)}
    return LoopResult(H * np.arange(1, steps + 1), signals_out)  # (the outputs after each step)


def sway(run_: LoopResult) -> np.ndarray:
    """The rope's angle from the vertical (rad) at each sample."""
    return np.hypot(run_["sway_t"], run_["sway_r"])


# ---------------------------------------------------------------------------------------- main


def plot(runs: dict[str, LoopResult], path: Path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    for name, r in runs.items():
        ax[0].plot(r.t, np.degrees(r["sway_t"]), label=name)
        ax[1].plot(r.t, np.degrees(r["sway_r"]), label=name)
        ax[2].plot(r.t, r["fixation_torque_x"] / 1e6, label=name)
    ax[0].set_ylabel("tangential sway [deg]")
    ax[1].set_ylabel("radial sway [deg]")
    ax[2].set_ylabel("fixation torque x [MN m]")
    ax[2].set_xlabel("time [s]")
    ax[0].legend()
    fig.suptitle("knuckle-boom crane on a rolling ship: open loop and anti-sway LQR (FMU in fmpy)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    """Run the steps of the module docstring; returns ``design, fmu, runs, libcosim, plot``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default="out", help="folder for the FMU and the PNG (default: out/)")
    ap.add_argument("--fmi", type=int, choices=(2, 3), default=2, help="FMI version of the exported FMU")
    ap.add_argument("--duration", type=float, default=60.0, help="simulated time (s)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    signals = ship_motion()
    print("== 1-3. model, holding forces, linear model, anti-sway LQR")
    d = design(verbose=True)
    fmu = export(d, out / "knuckle_crane.fmu", args.fmi)
    print(f"\n== 4. co-simulation in fmpy, {args.duration:g} s of {SHIP_CSV.name}, {1e3 * H:g} ms steps ({fmu})")
    runs = {"open loop": run(d, fmu, signals, args.duration, False), "LQR": run(d, fmu, signals, args.duration, True)}
    for name, r in runs.items():
        s = np.degrees(sway(r))
        print(
            f"{name:>9}: sway RMS {np.sqrt(np.mean(s**2)):.3f} deg, max {s.max():.3f} deg; fixation force z "
            f"{r['fixation_force_z'].min() / 1e3:.1f} .. {r['fixation_force_z'].max() / 1e3:.1f} kN, torque x up to "
            f"{np.abs(r['fixation_torque_x']).max() / 1e6:.2f} MN m"
        )
    ratio = np.sqrt(np.mean(sway(runs["LQR"]) ** 2) / np.mean(sway(runs["open loop"]) ** 2))
    print(f"the LQR leaves {100 * ratio:.1f} % of the open loop's RMS sway")
    cosim = None
    try:
        import libcosimpy  # noqa: F401
    except ImportError:
        print("\n== 5. libcosim: libcosimpy is not installed (pip install 'symbody[test]')")
    else:
        if args.fmi == 2:
            print("\n== 5. the same closed loop in libcosim")
            cosim = run_libcosim(d, fmu, signals, args.duration, True)
            diff = max(float(np.abs(cosim[n] - runs["LQR"][n][1:]).max()) for n in MEASURED)
            print(f"largest difference from the fmpy run: {diff:.1e}")
    png = out / "ship_crane_sway.png"
    plot(runs, png)
    print(f"\nplot: {png}; total {time.perf_counter() - t0:.1f} s")
    return {"design": d, "fmu": fmu, "runs": runs, "libcosim": cosim, "plot": png, "ratio": ratio}


if __name__ == "__main__":
    main()
