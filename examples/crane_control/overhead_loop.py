"""The overhead crane's LQR loop as a deliverable: plant FMU + controller FMUs + ``loop.ssp``.

Run ``python examples/crane_control/overhead_loop.py [OUT_DIR] [--stop-time 30]`` (default ``out/``;
about 10 s).  It writes to ``OUT_DIR``:

* ``crane.fmu``: the overhead crane of ``examples/overhead_crane.py`` (FMI 2 Co-Simulation, every
  platform whose compiler is installed), as ``symbody export examples/overhead_crane.py --kind cs``;
* ``lqr.fmu``: the LQR of :func:`overhead_lqr.design` as a state-feedback controller FMU,
  ``F = F_ref - K (x - x_ref)``, measuring the crane's six states and commanding its two forces, with the
  references as inputs (``x_ref`` comes from the shaper, the others keep their start values: the
  rope held at 12 m by the payload's weight);
* ``shaper.fmu``: the zero-vibration shaper of the swing pole (the crane examples' ``zv_shaper``) turning
  the trolley target ``x_target`` into the LQR's reference ``x_ref``: two steps half a swing period apart;
* ``loop_parameters.txt`` and ``loop.ssp``: the three FMUs wired (``symbody system``), the target
  0.5 m and the crane's solver tolerance bound as parameters, the 10 ms communication step of the LQR's
  design; libcosim's ``OspSystemStructure.xml`` is inside the package (``resources/``);
* ``overhead_loop.png``: the trolley, swing and force in each master.

The loop then runs in every master at hand: ``symbody simulate loop.ssp`` (:mod:`symbody.fmu.cosim`), OSP's
libcosim (``libcosimpy``, from the ``.ssp`` and from the OSP file) and Ecos (``ecospy``).  Printed: the
settling of the move and the largest differences between the masters.  libcosim and Ecos agree to
rounding: both exchange values after each step (Jacobi); ``symbody simulate`` exchanges them along the
feedthrough graph at each communication point (shaper, then LQR, then crane: no delay), so in the others
the reference reaches the LQR, and the LQR's force the crane, one communication step later, a difference
of a few millimetres in this move (the LQR's design assumes no delay).

The same as commands::

    symbody export examples/overhead_crane.py --kind cs -o out/crane.fmu
    symbody system out/crane.fmu out/lqr.fmu out/shaper.fmu --connect crane.x=lqr.x ... \\
        --parameters out/loop_parameters.txt --step 0.01 --stop-time 30 -o out/loop.ssp
    symbody simulate out/loop.ssp --output crane.x --output crane.theta --output lqr.F_trolley
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from crane_motion import zv_shaper  # noqa: E402
from overhead_lqr import INPUTS, STATES, H, design  # noqa: E402

TARGET = 0.5  # m, the trolley's move
STOP = 30.0  # s
#: The connections, as ``symbody system --connect`` takes them: states to the LQR, forces to the crane.
CONNECTIONS = (
    [f"crane.{s}=lqr.{s}" for s in STATES] + ["shaper.x_ref=lqr.x_ref"] + [f"lqr.{u}=crane.{u}" for u in INPUTS]
)
RECORD = ["crane.x", "crane.theta", "crane.x_payload", "lqr.F_trolley", "shaper.x_ref"]


def build_fmus(out: Path, d=None, platforms: list[str] | None = None) -> dict[str, Path]:
    """The three FMUs of the loop: crane, LQR (references as inputs), ZV shaper."""
    import symbody as sb
    from symbody.fmu import export_fmu

    d = design() if d is None else d
    crane = export_fmu(d.eq, out / "crane.fmu", fmi_version=2, kind="cs", platforms=platforms)
    operating_point = sb.StateFeedback(d.K, x_ref=[0.0, d.l0, 0.0, 0.0, 0.0, 0.0], u_ref=[0.0, d.F_hold])
    lqr = sb.controller_fmu(operating_point, out / "lqr.fmu", inputs=STATES, outputs=INPUTS, plant=d.eq,
                            references="inputs", platforms=platforms,
                            description="LQR of the overhead crane about the hanging load, 10 ms design")
    zv = zv_shaper(d.swing_omega, d.swing_zeta)
    shaper = sb.controller_fmu(zv, out / "shaper.fmu", inputs=["x_target"], outputs=["x_ref"],
                               units={"x_target": "m", "x_ref": "m"}, platforms=platforms,
                               description="zero-vibration shaper of the swing pole")
    return {"crane": crane, "lqr": lqr, "shaper": shaper}


def write_loop(out: Path, fmus: dict[str, Path], stop: float = STOP) -> Path:
    """``loop_parameters.txt`` and ``loop.ssp`` (as ``symbody system``)."""
    from symbody.fmu.ssp import write_ssp
    from symbody.fmu.system_structure import read_parameter_file, system_structure

    params = out / "loop_parameters.txt"
    params.write_text(
        "# the trolley's target, shaped into the LQR's reference\n"
        f"shaper.x_target = {TARGET}\n"
        "# the crane's embedded solver, tighter than the loop's differences\n"
        "crane.solver.rtol = 1e-9\n"
    )
    structure = system_structure(list(fmus.values()), CONNECTIONS, read_parameter_file(params), name="loop",
                                 step=H, stop=stop)
    return write_ssp(structure, out / "loop.ssp")


def run_symbody(ssp: Path, stop: float = STOP) -> dict[str, np.ndarray]:
    """The loop in ``symbody simulate`` (the feedthrough order)."""
    from symbody.fmu.cosim import simulate_structure
    from symbody.fmu.ssp import open_ssp

    with open_ssp(ssp) as structure:
        res = simulate_structure(structure, stop_time=stop, outputs=RECORD)
    return {n: np.asarray(res[n]) for n in res.dtype.names or ()}


def run_libcosim(path: Path, stop: float = STOP, osp: bool = False) -> dict[str, np.ndarray]:
    """The loop in libcosim from the ``.ssp`` (or, ``osp=True``, from the OSP file of its extracted package)."""
    from libcosimpy.CosimExecution import CosimExecution
    from libcosimpy.CosimLogging import CosimLogLevel, log_output_level
    from libcosimpy.CosimObserver import CosimObserver

    log_output_level(CosimLogLevel.ERROR)
    ex = CosimExecution.from_osp_config_file(str(path)) if osp else CosimExecution.from_ssp_file(str(path))
    observer = CosimObserver.create_last_value()
    ex.add_observer(observer)
    index = {s.name.decode(): s.index for s in ex.slave_infos()}
    refs = {}
    for name in RECORD:
        comp, var = name.split(".", 1)
        refs[name] = (index[comp], next(v.reference for v in ex.slave_variables(index[comp]) if v.name.decode() == var))
    rows = []
    for k in range(round(stop / H)):
        ex.step()  # the first step initializes
        rows.append([(k + 1) * H, *(observer.last_real_values(i, [r])[0] for i, r in refs.values())])
    data = np.array(rows)
    return {"time": data[:, 0], **{n: data[:, j + 1] for j, n in enumerate(RECORD)}}


def run_ecos(ssp: Path, stop: float = STOP) -> dict[str, np.ndarray]:
    """The loop in Ecos (``ecospy``), the parameter set of the ``.ssp`` applied."""
    from ecospy import EcosLib, EcosSimulation

    EcosLib.set_log_level("warn")
    rows = []
    with EcosSimulation(ssp_path=str(ssp), step_size=H) as sim:
        sim.init(parameter_set="initialValues")
        for k in range(round(stop / H)):
            sim.step()
            rows.append([(k + 1) * H, *(sim.get_real(n.replace(".", "::", 1)) for n in RECORD)])
    data = np.array(rows)
    return {"time": data[:, 0], **{n: data[:, j + 1] for j, n in enumerate(RECORD)}}


def largest_difference(a: dict, b: dict, names=RECORD) -> dict[str, float]:
    """Largest absolute difference of each recorded variable at the communication points both have."""
    out = {}
    for n in names:
        ta, tb = np.round(a["time"] / H).astype(int), np.round(b["time"] / H).astype(int)
        common, ia, ib = np.intersect1d(ta, tb, return_indices=True)
        out[n] = float(np.max(np.abs(a[n][ia] - b[n][ib]))) if len(common) else float("nan")
    return out


def settling_time(run: dict, band: float = 0.01) -> float:
    """The time after which the payload stays within ``band`` m of the target."""
    outside = np.flatnonzero(np.abs(run["crane.x_payload"] - TARGET) > band)
    return float(run["time"][outside[-1] + 1]) if len(outside) and outside[-1] + 1 < len(run["time"]) else 0.0


def plot(runs: dict[str, dict], path: Path) -> None:
    from crane_loop import pyplot

    plt = pyplot()
    fig, ax = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    for name, run in runs.items():
        ax[0].plot(run["time"], run["crane.x"], label=name)
        ax[1].plot(run["time"], np.degrees(run["crane.theta"]), label=name)
        ax[2].plot(run["time"], run["lqr.F_trolley"] / 1e3, label=name)
    ax[0].plot(runs["symbody simulate"]["time"], runs["symbody simulate"]["shaper.x_ref"], "k:", label="shaped reference")
    ax[0].set_ylabel("trolley x [m]")
    ax[0].legend(fontsize=8)
    ax[1].set_ylabel("swing [deg]")
    ax[2].set_ylabel("trolley force [kN]")
    ax[2].set_xlabel("time [s]")
    ax[0].set_title(f"Overhead crane, LQR + ZV shaper as FMUs wired by loop.ssp: {TARGET:g} m move", fontsize=10)
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> dict:
    """Build the FMUs and ``loop.ssp``, run it in every master at hand; returns the runs and files."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", default="out", help="folder for the FMUs, loop.ssp and the plot")
    ap.add_argument("--stop-time", type=float, default=STOP)
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    fmus = build_fmus(out)
    ssp = write_loop(out, fmus, args.stop_time)
    print(f"wrote {', '.join(p.name for p in fmus.values())} and {ssp}")
    runs = {"symbody simulate": run_symbody(ssp, args.stop_time)}
    try:
        runs["libcosim"] = run_libcosim(ssp, args.stop_time)
    except ImportError:
        print("libcosimpy is not installed: the libcosim run is left out")
    try:
        runs["Ecos"] = run_ecos(ssp, args.stop_time)
    except (ImportError, OSError) as e:  # not installed, or its binaries miss Debian's libtbb12
        print(f"ecospy is not usable here ({e}): the Ecos run is left out")
    for name, run in runs.items():
        print(f"{name:17s} payload within 1 cm of {TARGET} m from t = {settling_time(run):.2f} s, "
              f"largest swing {np.degrees(np.abs(run['crane.theta']).max()):.3f} deg")
    reference = runs["symbody simulate"]
    for name, run in runs.items():
        if name != "symbody simulate":
            diff = largest_difference(run, reference, ["crane.x", "crane.theta"])
            print(f"{name} vs symbody simulate: x {diff['crane.x']:.2e} m, theta {diff['crane.theta']:.2e} rad "
                  "(the Jacobi exchange's one-step delay)")
    if "libcosim" in runs and "Ecos" in runs:
        diff = largest_difference(runs["libcosim"], runs["Ecos"], ["crane.x", "crane.theta"])
        print(f"libcosim vs Ecos: x {diff['crane.x']:.1e} m, theta {diff['crane.theta']:.1e} rad (the same exchange)")
    png = out / "overhead_loop.png"
    plot(runs, png)
    print(f"plot: {png}; total {time.perf_counter() - t0:.1f} s")
    return {"fmus": fmus, "ssp": ssp, "runs": runs, "plot": png}


if __name__ == "__main__":
    main()
