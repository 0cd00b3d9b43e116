"""The overhead crane's LQR loop delivered as plant FMU + controller FMUs + ``loop.ssp``
(``examples/crane_control/overhead_loop.py``), run in three masters:

* ``symbody simulate loop.ssp``, libcosim (from the ``.ssp`` and from its ``OspSystemStructure.xml``) and Ecos
  each equal a Python loop over the same FMUs that exchanges values in that master's order (1e-6: metres,
  radians, and newtons relative to the largest force);
* libcosim and Ecos exchange alike (Jacobi), so the crane moves identically in both (1e-9); the controller's
  output they report differs only where Ecos reads it again after setting the new inputs;
* ``symbody simulate`` (no delay along the feedthrough graph) differs from them by the one-step delay of the
  Jacobi exchange: the Python loops of the two orders differ by exactly as much as the masters do.
"""

from __future__ import annotations

import sys
import zipfile

import numpy as np
import pytest

from symbody.fmu.platforms import host_platform

from support import ROOT, masters

sys.path.insert(0, str(ROOT / "examples" / "crane_control"))

import overhead_loop  # noqa: E402

STOP = 6.0  # s: both shaper impulses (the second at 1.9 s), the force peaks and the swing
H = overhead_loop.H
STEPS = round(STOP / H)
CONNECTIONS = [
    (*a.split("."), *b.split(".")) for a, b in (c.split("=") for c in overhead_loop.CONNECTIONS)
]
RECORD = [tuple(n.split(".")) for n in overhead_loop.RECORD]
START = {"shaper": {"x_target": overhead_loop.TARGET}, "crane": {"solver.rtol": 1e-9}}


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    out = tmp_path_factory.mktemp("loop")
    fmus = overhead_loop.build_fmus(out, platforms=[host_platform().name])
    ssp = overhead_loop.write_loop(out, fmus, STOP)
    return fmus, ssp


def need_ecos() -> None:
    """Skip without ecospy, or with an ecospy whose binaries cannot load (Debian's libtbb12 missing)."""
    try:
        import ecospy  # noqa: F401
    except (ImportError, OSError) as e:
        pytest.skip(f"ecospy is not usable here: {e}")


def _columns(run: dict) -> np.ndarray:
    return np.column_stack([run["time"], *(run[n] for n in overhead_loop.RECORD)])


def _assert_equal(a: np.ndarray, b: np.ndarray, what: str, tol: float = 1e-6) -> None:
    """Equal to ``tol``, the forces relative to the largest one."""
    scale = np.maximum(1.0, np.abs(b).max(axis=0))
    err = (np.abs(a - b) / scale).max()
    assert err <= tol, f"{what}: largest (scaled) difference {err:.3g}"


def test_symbody_simulate_is_the_feedthrough_ordered_loop(loop):
    fmus, ssp = loop
    got = _columns(overhead_loop.run_symbody(ssp, STOP))
    want = masters.gauss_seidel(fmus, CONNECTIONS, START, H, STEPS, RECORD)
    _assert_equal(got, want, "symbody simulate vs its Python loop")
    assert np.abs(got[:, 1]).max() > 0.4  # the trolley moved (the comparison is not of two rest states)


def test_libcosim_from_the_ssp_and_from_the_osp_file_is_its_jacobi_loop(loop, tmp_path):
    pytest.importorskip("libcosimpy")
    fmus, ssp = loop
    want = masters.libcosim(fmus, CONNECTIONS, START, H, STEPS, RECORD)[1:]  # libcosim reports after each step
    _assert_equal(_columns(overhead_loop.run_libcosim(ssp, STOP)), want, "libcosim (.ssp) vs its Python loop")
    with zipfile.ZipFile(ssp) as zf:
        zf.extractall(tmp_path)
    osp = overhead_loop.run_libcosim(tmp_path / "resources" / "OspSystemStructure.xml", STOP, osp=True)
    _assert_equal(_columns(osp), want, "libcosim (OspSystemStructure.xml) vs its Python loop")


def test_ecos_is_its_jacobi_loop(loop):
    need_ecos()
    fmus, ssp = loop
    want = masters.ecos(fmus, CONNECTIONS, START, H, STEPS, RECORD)[1:]
    _assert_equal(_columns(overhead_loop.run_ecos(ssp, STOP)), want, "Ecos vs its Python loop")


def test_masters_differ_by_what_their_exchange_orders_explain(loop):
    pytest.importorskip("libcosimpy")
    need_ecos()
    fmus, ssp = loop
    runs = {
        "symbody": overhead_loop.run_symbody(ssp, STOP),
        "libcosim": overhead_loop.run_libcosim(ssp, STOP),
        "ecos": overhead_loop.run_ecos(ssp, STOP),
    }
    crane = ["crane.x", "crane.theta", "crane.x_payload"]
    same = overhead_loop.largest_difference(runs["libcosim"], runs["ecos"], crane)
    assert max(same.values()) < 1e-9, same
    delay = overhead_loop.largest_difference(runs["libcosim"], runs["symbody"], crane)
    # the one-step delay of the Jacobi exchange: millimetres of trolley, a fraction of a milliradian of swing
    assert 1e-4 < delay["crane.x"] < 1e-2 and 1e-5 < delay["crane.theta"] < 1e-3, delay
    jacobi = masters.libcosim(fmus, CONNECTIONS, START, H, STEPS, RECORD)
    seidel = masters.gauss_seidel(fmus, CONNECTIONS, START, H, STEPS, RECORD)
    explained = np.abs(jacobi[1:, 1:3] - seidel[1:, 1:3]).max(axis=0)
    assert np.allclose(explained, [delay["crane.x"], delay["crane.theta"]], rtol=1e-6, atol=1e-12)


def test_the_script_writes_its_deliverables(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SYMBODY_PLATFORMS", host_platform().name)
    result = overhead_loop.main([str(tmp_path), "--stop-time", "3"])
    names = {p.name for p in tmp_path.iterdir()}
    assert {"crane.fmu", "lqr.fmu", "shaper.fmu", "loop.ssp", "loop_parameters.txt", "overhead_loop.png"} <= names
    assert "symbody simulate" in result["runs"] and len(result["runs"]["symbody simulate"]["time"]) == 301
    assert "payload within 1 cm" in capsys.readouterr().out
