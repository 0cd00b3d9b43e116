"""Anti-sway LQR designed on the rigid-rope tower crane, run on the crane whose hook hangs in an elastic rope.

Run ``python examples/crane_control/hoist_sway.py [OUT_DIR] [--quick]`` (default ``out/``; about 10 s).  It
writes the FMU ``tower_crane_winch2.fmu`` and the plot ``hoist_sway.png``, and prints the numbers below.

1. **Design on the rigid rope** (:func:`design`).  ``examples/tower_crane.py`` as it is (rigid rope of 20 m,
   the payload's mass raised by the hook block's to 2.3 t) is linearized at rest; its trolley subsystem
   (``r, beta_r, dr, dbeta_r``, input ``F_trolley``) gets an LQR sampled every 10 ms (Bryson weights:
   0.2 m, 0.2 deg, 1 m/s, 0.5 deg/s; 5 kN) and, for the planned 5 m trolley move (0.5 m/s, 0.25 m/s2,
   rounded by moving averages over 2, 1 and 1 s), the flat feedforward of the same linear model
   (:class:`crane_design.FlatReference`).
2. **The elastic-rope plant** (``build(falls=2)``: the hook block in two falls of a 16 mm wire rope, EA
   1.2e7 N, paid out by the winch ``hoist`` held by its drive torque; the payload 2 m under the hook).  Its
   linearization at rest shows the rope-stretch mode (hook load bouncing on the falls against the drum's
   inertia, about 2.7 Hz) beside the radial swing; the sampled loop closed on the elastic linear model
   (the LQR reads ``r, beta_r`` and their rates) keeps every pole inside the unit circle, the stretch mode
   as damped as it was (printed).
3. **Closed loop on the FMU** (:mod:`crane_loop`: ``FmuPlant``, ``run_closed_loop``): the Co-Simulation FMU
   of the elastic-rope crane stepped every 10 ms with fmpy, *open loop* (the rigid-body force
   ``(m_trolley + m_payload + m_hook) r'' + b_r r'`` along the planned move) against the *LQR* (flat
   feedforward and state feedback).  Printed per run: residual swing (the largest rope angle once the move
   has ended, deg, and the payload's horizontal sway, m) and the largest hook-load ripple ``|hook_load / W
   - 1|`` (the stretch mode: the move hardly excites it, the loop does not either).

The check (``tests/examples/test_hoist_sway.py``): the LQR's residual swing is under a tenth of the open
loop's on the elastic-rope FMU.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from crane_design import FlatReference, bryson, damping, discretize, sampled_lqr  # noqa: E402
from crane_loop import FeedbackLaw, FmuPlant, LoopResult, pyplot, run_closed_loop  # noqa: E402
from crane_motion import Motion, trapezoid  # noqa: E402

MODEL = HERE.parent / "tower_crane.py"
MEASURED = ["r", "beta_r", "dr", "dbeta_r"]
RECORD = ["hook_load", "hoist_rope_tension", "l", "x_payload"]
FALLS = 2
H = 0.01  # s, sampling period = communication step
R0, TRAVEL, V_MAX, A_MAX = 25.0, 5.0, 0.5, 0.25  # m, m, m/s, m/s2
SMOOTHING = (2.0, 1.0, 1.0)  # s
TOLERATED_STATES = [0.2, np.radians(0.2), 1.0, np.radians(0.5)]
TOLERATED_INPUT = [5e3]
M_HOOK = 300.0  # kg, the hook block of the elastic-rope crane (examples/tower_crane.py)
FMU_SOLVER = {"solver.method": 2, "solver.rtol": 1e-8, "solver.atol": 1e-10}  # dopri5


@dataclass
class SwayDesign:
    """The LQR and the modes of steps 1 and 2.

    Attributes:
        K: the sampled LQR's gain on ``MEASURED``.
        move: the planned trolley travel; ``flat`` its flat reference on the rigid model.
        rigid_swing: ``(omega, zeta)`` of the rigid crane's radial swing.
        elastic_modes: ``{name: (omega, zeta)}`` of the elastic crane at rest: radial swing, rope stretch.
        loop_modes: the same modes of the sampled loop closed on the elastic linear model.
        loop_radius: largest ``|z|`` of that loop's poles, but for the free slew and drum (``z = 1``).
        params: the elastic crane's parameters.
    """

    K: np.ndarray
    move: Motion
    flat: FlatReference
    rigid_swing: tuple[float, float]
    elastic_modes: dict[str, tuple[float, float]]
    loop_modes: dict[str, tuple[float, float]]
    loop_radius: float
    params: dict[str, float]


def _mode(A: np.ndarray, states: list[str], name: str, sampled: bool = False) -> tuple[float, float]:
    """Frequency and damping of the oscillating mode largest on state ``name``: of continuous-time ``A``, or of
    the sampled loop ``A`` (period ``H``: its poles ``log(z) / H``)."""
    lam, V = np.linalg.eig(A)
    if sampled:
        lam = np.log(lam.astype(complex)) / H
    osc = np.flatnonzero(lam.imag > 1e-9)
    k = osc[int(np.argmax([abs(V[states.index(name), j]) / np.linalg.norm(V[:, j]) for j in osc]))]
    w, z = damping(lam[k : k + 1])
    return float(w[0]), float(z[0])


def design(quick: bool = False) -> SwayDesign:
    """Steps 1 and 2: the LQR on the rigid rope, the modes of the elastic rope in open and closed loop."""
    from symbody.loader import load_model
    from symbody.numeric import linearize

    rigid = linearize(load_model(MODEL, r0=R0).derive(), inputs=["F_trolley"], p={"m_payload": 2000.0 + M_HOOK})
    sub = [rigid.states.index(n) for n in MEASURED]
    A, b = rigid.A[np.ix_(sub, sub)], rigid.B[sub, :]
    K, _ = sampled_lqr(A, b, bryson(TOLERATED_STATES), bryson(TOLERATED_INPUT), H)
    move = trapezoid(TRAVEL, V_MAX, A_MAX)
    for window in SMOOTHING:
        move = move.smoothed(window)
    flat = FlatReference(A, b[:, 0], move)

    eq = load_model(MODEL, r0=R0, falls=FALLS).derive()
    lin = linearize(eq, inputs=["F_trolley"])
    modes = {"radial swing": _mode(lin.A, lin.states, "beta_r"), "rope stretch": _mode(lin.A, lin.states, "l")}
    Ad, Bd = discretize(lin.A, lin.B, H)
    S = np.eye(len(lin.states))[[lin.states.index(n) for n in MEASURED]]
    closed = Ad - Bd @ K @ S
    zs = np.linalg.eigvals(closed)
    free = np.abs(zs - 1.0) < 1e-6  # the slew and the drum with its load: free rigid-body motions (z = 1)
    loop = {
        n: _mode(closed, lin.states, s, sampled=True) for n, s in (("radial swing", "beta_r"), ("rope stretch", "l"))
    }
    return SwayDesign(K, move, flat, _mode(A, MEASURED, "beta_r"), modes, loop, float(np.abs(zs[~free]).max()),
                      {p.name: p.value for p in eq.parameters})  # fmt: skip


def controllers(d: SwayDesign) -> dict[str, FeedbackLaw]:
    """Open loop (rigid-body force along the move) and the LQR (flat feedforward and state feedback)."""
    p = d.params
    m = p["m_trolley"] + p["m_payload"] + p["m_hook"]

    def open_loop(t: float, y: np.ndarray) -> np.ndarray:
        return np.array([m * d.move.acceleration(t) + p["b_r"] * d.move.velocity(t)])

    def lqr(t: float, y: np.ndarray) -> np.ndarray:
        x_ref, f_ff = d.flat(t)
        x_ref = x_ref + np.array([R0, 0.0, 0.0, 0.0])
        return np.array([f_ff]) - d.K @ (y - x_ref)

    return {
        "open loop": FeedbackLaw(MEASURED, ["F_trolley"], open_loop),
        "LQR": FeedbackLaw(MEASURED, ["F_trolley"], lqr),
    }


def export_plant(path: Path) -> Path:
    """The elastic-rope crane's Co-Simulation FMU."""
    from symbody.fmu import export_fmu
    from symbody.loader import load_model

    return export_fmu(load_model(MODEL, r0=R0, falls=FALLS).derive(), path, kind="cs")


def residual(d: SwayDesign, res: LoopResult) -> dict[str, float]:
    """Residual swing after the move (deg, and the payload's horizontal sway in m) and the hook-load ripple."""
    after = res.t >= d.move.end
    beta = res["beta_r"][after]
    weight = (d.params["m_payload"] + d.params["m_hook"]) * d.params["g"]
    return {
        "swing_deg": float(np.degrees(np.abs(beta).max())),
        "sway_m": float(np.abs(res["l"][after] * np.sin(beta)).max()),
        "hook_ripple": float(np.abs(res["hook_load"] / weight - 1).max()),
        "final_r": float(res["r"][-1]),
    }


def run(fmu: Path, d: SwayDesign, t_end: float) -> dict[str, LoopResult]:
    """Step 3: each controller in closed loop with the elastic-rope FMU."""
    return {
        name: run_closed_loop(FmuPlant(fmu, FMU_SOLVER), law, t_end, H, record=RECORD)
        for name, law in controllers(d).items()
    }


def plot(d: SwayDesign, runs: dict[str, LoopResult], path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    for name, res in runs.items():
        axes[0].plot(res.t, res["r"], label=name)
        axes[1].plot(res.t, np.degrees(res["beta_r"]), label=name)
        weight = (d.params["m_payload"] + d.params["m_hook"]) * d.params["g"]
        axes[2].plot(res.t, res["hook_load"] / weight - 1, label=name)
    axes[0].set_ylabel("trolley r (m)")
    axes[1].set_ylabel("radial swing (deg)")
    axes[2].set_ylabel("hook load / W - 1")
    axes[2].set_xlabel("time (s)")
    for ax in axes:
        ax.axvline(d.move.end, color="grey", lw=0.5)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="out")
    parser.add_argument("--quick", action="store_true", help="a shorter run (the test's)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    d = design()
    print(f"rigid rope, radial swing: {d.rigid_swing[0] / 2 / np.pi:.4f} Hz, zeta {d.rigid_swing[1]:.4f}")
    for name, (w, z) in d.elastic_modes.items():
        lw, lz = d.loop_modes[name]
        print(
            f"elastic rope, {name}: {w / 2 / np.pi:.4f} Hz, zeta {z:.4f}; with the LQR {lw / 2 / np.pi:.4f} Hz, zeta {lz:.4f}"
        )
    print(
        f"sampled loop on the elastic linear model: largest |z| = {d.loop_radius:.6f} (besides the free slew and drum)"
    )
    fmu = export_plant(out / f"tower_crane_winch{FALLS}.fmu")
    t_end = d.move.end + (10.0 if args.quick else 30.0)
    runs = run(fmu, d, t_end)
    table = {name: residual(d, res) for name, res in runs.items()}
    for name, r in table.items():
        print(f"{name:>9}: residual swing {r['swing_deg']:.3f} deg ({r['sway_m']:.3f} m), "
              f"hook-load ripple {100 * r['hook_ripple']:.3f} %, trolley at {r['final_r']:.3f} m")  # fmt: skip
    ratio = table["LQR"]["swing_deg"] / table["open loop"]["swing_deg"]
    print(f"LQR / open loop residual swing: {ratio:.4f}")
    plot(d, runs, out / "hoist_sway.png")
    return table


if __name__ == "__main__":
    main()
