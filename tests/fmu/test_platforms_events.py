"""Event FMUs on the other platforms: the bouncing ball and the overhead crane with its end stops and the ground,
their win64 DLLs under wine and aarch64 libraries under qemu-user, driven by a hostile master (Model Exchange:
rk4 steps of 10 ms that see events only at their ends, so every impact is found late; Co-Simulation: steps of
0.5 s with the impacts inside them), give the Linux library's outputs driven the same way (fmpy), and those
outputs hold the physics: the ball never below the floor by more than a step's travel and at rest on it with
the force m g, on its exact motion at every communication point; the trolley never past its stop, the payload
never below the ground."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from support import example
from support.contact_models import ball_motion, ball_rest, bouncing_ball
from support.portable_hosts import (
    Case,
    assert_same,
    build_host,
    extracted_fmus,
    need,
    run_fmpy,
    run_host,
    windows_path,
    wine_env,
)

H0, E, M, G = 1.0, 0.8, 2.0, 9.81
#: the trolley driven into its upper stop, the payload paid out onto the ground (as tests/fmu/test_fmu_events_masters.py)
CRANE_INPUTS = {"F_trolley": (20e3, 0.0), "F_hoist": (0.8 * 4000.0 * 9.80665, 0.0)}
ME_STEP, CS_STEP = 0.01, 0.5
#: the FMU's default relative tolerance: the foreign libraries run the same code, so they differ by rounding,
#: which an event found one step earlier or later would exceed by far
TOL = 1e-6


@pytest.fixture(scope="module")
def fmus(tmp_path_factory) -> dict[tuple[str, int], Path]:
    """The ball and the crane, FMI 2 and 3, CS and ME in one FMU, every installed platform, extracted."""
    systems = {
        "ball": bouncing_ball(H0, E, M),
        "overhead_crane": example("overhead_crane", end_stops=True, ground=True),
    }
    return extracted_fmus(systems, tmp_path_factory.mktemp("event_platforms"))


def cases(fmus, fmis) -> list[Case]:
    """Each model in Model Exchange (5 s of the ball, 10 s of the crane) and Co-Simulation."""
    out = []
    for fmi in fmis:
        for model, inputs, stop in (("ball", {}, 5.0), ("overhead_crane", CRANE_INPUTS, 10.0)):
            for kind, h in (("me", ME_STEP), ("cs", CS_STEP)):
                out.append(Case.of(model, fmi, kind, fmus[(model, fmi)], inputs=inputs, h=h, nsteps=round(stop / h)))
    return out


def column(case: Case, table: np.ndarray, name: str) -> np.ndarray:
    import fmpy

    vr = {v.name: v.valueReference for v in fmpy.read_model_description(str(case.folder)).modelVariables}[name]
    return table[:, 1 + case.outputs.index(vr)]


def check_physics(case: Case, table: np.ndarray) -> None:
    """The reference run holds the physics (so the comparison is not of two wrong runs)."""
    t = table[:, 0]
    if case.model == "ball":
        y, dy, N = (column(case, table, n) for n in ("y", "dy", "N"))
        if case.kind == "cs":  # located inside doStep: on the exact motion
            exact = np.array([ball_motion(float(ti), H0, E) for ti in t])
            assert np.allclose(y, exact[:, 0], atol=1e-8) and np.allclose(dy, exact[:, 1], atol=1e-7), case
        else:  # found late: never deeper than one step's travel at the impact speed
            assert y.min() >= -math.sqrt(2 * G * H0) * case.h - G * case.h**2, (case, y.min())
            assert np.count_nonzero(np.diff(dy) > 1.0) >= 4, case  # it bounced (rebounds seen)
        rest = t > ball_rest(H0, E) + 0.3
        assert np.all(np.abs(y[rest]) <= 1e-8) and np.allclose(N[rest], M * G, rtol=1e-9), case
    else:
        x, z = column(case, table, "x"), column(case, table, "z_payload")
        assert x.max() <= 20.0 + 1e-8 and z.min() >= -15.0 - 1e-8, case
        assert x.max() >= 20.0 - 1e-8 and z.min() <= -15.0 + 1e-8, case  # (both contacts reached)


def compare(results: list[np.ndarray], cases_: list[Case], where: str) -> None:
    for case, got in zip(cases_, results):
        ref = run_fmpy(case)
        check_physics(case, ref)
        assert_same(got, ref, f"{case.model} FMI {case.fmi} {case.kind} {where}", tol=TOL)


@pytest.mark.slow
def test_event_fmus_under_wine_match_linux(fmus, tmp_path):
    need("x86_64-w64-mingw32-gcc", "wine")
    cases_ = cases(fmus, (2, 3))
    exe = build_host("x86_64-w64-mingw32-gcc", tmp_path / "portable_host")
    platform = {2: "win64", 3: "x86_64-windows"}
    lines = [c.line(windows_path(c.library(platform[c.fmi]))) for c in cases_]
    prefix = tmp_path / "wineprefix"
    prefix.mkdir()
    compare(run_host(["wine", str(exe)], lines, env=wine_env(prefix)), cases_, "under wine")


@pytest.mark.slow
def test_event_fmus_under_qemu_aarch64_match_linux(fmus, tmp_path):
    need("aarch64-linux-gnu-gcc", "qemu-aarch64")
    cases_ = cases(fmus, (3,))  # FMI 2 defines no aarch64 folder
    exe = build_host("aarch64-linux-gnu-gcc", tmp_path / "portable_host")
    lines = [c.line(str(c.library("aarch64-linux"))) for c in cases_]
    compare(run_host(["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", str(exe)], lines), cases_, "under qemu-aarch64")


def test_native_host_handles_events_as_fmpy(fmus, tmp_path):
    """The C host drives an event FMU exactly as the fmpy driver does (same library, same numbers)."""
    cases_ = cases(fmus, (2,))
    exe = build_host("gcc", tmp_path / "portable_host")
    results = run_host([str(exe)], [c.line(str(c.library("linux64"))) for c in cases_])
    for case, got in zip(cases_, results):
        ref = run_fmpy(case)
        check_physics(case, ref)
        assert_same(got, ref, f"native host {case.model} {case.kind}", tol=0.0)
