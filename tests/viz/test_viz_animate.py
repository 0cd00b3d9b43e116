"""symbody.animate and ``symbody animate``: scenes, GIFs, modes, Jupyter display, the CLI, crane speed and size."""

from __future__ import annotations

import base64
import html
import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import symbody as sb
from symbody.cli import main
from symbody.fmu import export_fmu
from symbody.fmu.run import simulate
from symbody.models import pendulum
from symbody.numeric.dynamics import simulate as simulate_model
from symbody.numeric.modes import modal_analysis
from symbody.viz import GeometryError, animate
from symbody.viz.scene import frame_times

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_scene_keeps_simulated_instants_and_resamples_long_runs():
    t = np.linspace(0, 2, 11)
    assert np.array_equal(frame_times(t, 30, 1000), t)  # fewer samples than frames: the result's own
    fine = np.linspace(0, 60, 60001)
    ft = frame_times(fine, 30, 2400)
    assert len(ft) == 1801 and ft[0] == 0 and ft[-1] == 60
    assert len(frame_times(fine, 30, 500)) == 500


def test_animating_a_numeric_simulation_matches_its_kinematics():
    eq = pendulum(theta0=0.5).derive()
    res = simulate_model(eq, 1.0, dt=0.05)
    anim = animate(eq, res)
    p, _ = anim.scene.anchors["P@xyz"]
    theta = res["theta"]
    np.testing.assert_allclose(p[:, 0], np.sin(theta), atol=1e-12)
    np.testing.assert_allclose(p[:, 1], -np.cos(theta), atol=1e-12)
    assert anim.scene.up == "y"


def test_gif_has_one_distinct_frame_per_sample(tmp_path):
    t = np.linspace(0.0, 1.0, 9)
    out = tmp_path / "pendulum.gif"
    anim = animate(pendulum(), {"time": t, "theta": 1.2 * np.sin(2 * np.pi * t)}, out, size=(200, 150), fps=8)
    assert anim.path == out
    with Image.open(out) as im:
        assert im.n_frames == 9
        frames = []
        for k in range(im.n_frames):
            im.seek(k)
            frames.append(np.asarray(im.convert("RGB")).astype(int))
    for a, b in zip(frames, frames[1:]):
        assert np.abs(a - b).max() > 50  # consecutive frames differ (the bob moves)
    # the last pose equals the first one (sin(2 pi) = 0): the drawing depends only on the pose (clock text aside)
    same = np.abs(frames[0][:-20] - frames[-1][:-20]).max(axis=2) < 40
    assert same.mean() > 0.998
    moved = np.abs(frames[0][:-20] - frames[2][:-20]).max(axis=2) >= 40
    assert moved.mean() > 0.005


def test_mp4_without_ffmpeg_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    t = np.linspace(0.0, 1.0, 3)
    with pytest.raises(GeometryError, match="MP4 needs ffmpeg"):
        animate(pendulum(), {"time": t, "theta": t}, tmp_path / "p.mp4")
    assert not (tmp_path / "p.mp4").exists()


def test_modes_oscillate_one_after_the_other():
    s = sb.System("two")
    x1, x2 = s.coordinate("x1"), s.coordinate("x2")
    P1 = s.point("P1", s.origin, (x1, 0, 0))
    P2 = s.point("P2", s.origin, (x2 + 2, 0, 0))
    s.particle("m1", P1, 1.0)
    s.particle("m2", P2, 1.0)
    k = 100.0
    s.generalized_force("spring1", x1, -k * x1 - k * (x1 - x2))
    s.generalized_force("spring2", x2, -k * (x2 - x1))
    eq = s.derive()
    modes = modal_analysis(eq, [0.0, 0.0])
    anim = animate(eq, modes, amplitude=0.3, fps=20)
    sc = anim.scene
    assert [c[2] for c in sc.captions] == [f"mode {i + 1}: {f:.4g} Hz" for i, f in enumerate(modes.frequency)]
    # closed form: omega^2 = k (3 -+ sqrt 5) / 2 for equal masses and springs
    w = np.sqrt(k * (3 - np.sqrt(5)) / 2), np.sqrt(k * (3 + np.sqrt(5)) / 2)
    np.testing.assert_allclose(modes.omega, w, rtol=1e-10)
    p1, p2 = sc.anchors["P1@xyz"][0][:, 0], sc.anchors["P2@xyz"][0][:, 0] - 2
    first = sc.times < 3.0
    # mode 1: in phase, mode 2: in opposition, largest displacement = amplitude
    assert np.all(p1[first] * p2[first] >= -1e-12) and np.all(p1[~first] * p2[~first] <= 1e-12)
    assert max(np.abs(p1[first]).max(), np.abs(p2[first]).max()) == pytest.approx(0.3, rel=0.02)
    ratio = p2[first][np.abs(p1[first]) > 0.05] / p1[first][np.abs(p1[first]) > 0.05]
    np.testing.assert_allclose(ratio, (1 + np.sqrt(5)) / 2, rtol=1e-9)  # the golden ratio of this chain


def test_jupyter_display_is_an_iframe_with_the_whole_page():
    t = np.linspace(0.0, 1.0, 4)
    anim = animate(pendulum(), {"time": t, "theta": t})
    out = anim._repr_html_()
    assert out.startswith("<iframe srcdoc=") and out.endswith("</iframe>")
    page = html.unescape(out.split('srcdoc="', 1)[1].split('" style=', 1)[0])
    assert page == anim.html()
    assert "Animation('pendulum': 4 frames" in repr(anim)


def test_results_that_do_not_fit_are_clear_errors():
    eq = pendulum().derive()
    with pytest.raises(GeometryError, match="no variable 'theta'"):
        animate(eq, {"time": np.zeros(2), "phi": np.zeros(2)})
    with pytest.raises(GeometryError, match="trail: no point 'Q'"):
        animate(eq, {"time": np.zeros(2), "theta": np.zeros(2)}, trails=["Q"])
    with pytest.raises(GeometryError, match="not increasing"):
        animate(eq, {"time": np.array([1.0, 0.0]), "theta": np.zeros(2)})
    with pytest.raises(GeometryError, match="camera view 'top'"):
        animate(eq, {"time": np.zeros(2), "theta": np.zeros(2)}, camera={"view": "top"}).html()


def test_cli_animates_a_model_file_and_refuses_bad_outputs(tmp_path, capsys):
    out = tmp_path / "pendulum.html"
    code = main(["animate", str(EXAMPLES / "simple_pendulum.py"), "-o", str(out), "--stop-time", "1", "--trail", "bob"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    text = out.read_text()
    assert 'id="scene-data"' in text and "wrote" in captured.out
    code = main(["animate", str(EXAMPLES / "simple_pendulum.py"), "-o", str(tmp_path / "p.png")])
    assert code == 1 and "must end in .html or .gif or .mp4" in capsys.readouterr().err
    assert not (tmp_path / "p.png").exists()


def test_cli_input_file_drives_the_fmu(tmp_path, capsys):
    fmu = export_fmu(pendulum(theta0=0.0), tmp_path / "pendulum.fmu", kind="cs")
    csv = tmp_path / "torque.csv"
    csv.write_text("time,T\n0,0\n0.5,0\n0.5,5\n2,5\n")
    out = tmp_path / "driven.html"
    assert main(["animate", str(fmu), "-o", str(out), "--input-file", str(csv), "--stop-time", "2"]) == 0
    data = json.loads(out.read_text().split('id="scene-data">', 1)[1].split("</script>", 1)[0])
    bob = next(a for a in data["anchors"] if a["key"] == "P@xyz")
    assert bob["fixed"] is False  # at rest without the torque (theta0 = 0): the input file moved it
    x = np.frombuffer(base64.b64decode(bob["p"]), dtype=np.float32).reshape(-1, 3)[:, 0]
    times = np.frombuffer(base64.b64decode(data["times"]), dtype=np.float64)
    assert np.all(x[times <= 0.5] == 0) and x[-1] > 0.1  # the torque starts at 0.5 s, about +z
    bad = tmp_path / "bad.csv"
    bad.write_text("time,torque\n0,1\n")
    assert main(["animate", str(fmu), "-o", str(out), "--input-file", str(bad)]) == 1
    assert "'torque' is not an input" in capsys.readouterr().err


def test_sixty_second_tower_crane_page_is_small(tmp_path):
    sys.path.insert(0, str(EXAMPLES))
    try:
        import tower_crane
    finally:
        sys.path.remove(str(EXAMPLES))
    fmu = export_fmu(tower_crane.build(), tmp_path / "tower_crane.fmu", kind="cs")
    res = simulate(fmu, stop_time=60.0, interval=0.01, start_values={"tau_slew": 2e5, "F_trolley": 2e3})
    anim = animate(fmu, res, tmp_path / "crane.html", trails=["payload_cog"], plots=["theta", "beta_r"])
    size = (tmp_path / "crane.html").stat().st_size
    assert size < 2_000_000, size
    assert len(anim.scene.times) == 1801  # 30 frames per second from 6001 samples
    # the payload hangs the rope length below the trolley at every frame
    p_trolley = anim.scene.anchors["trolley@xyz"][0]
    p_payload = anim.scene.anchors["payload_cog@xyz"][0]
    np.testing.assert_allclose(np.linalg.norm(p_trolley - p_payload, axis=1), 20.0, rtol=1e-6)
    k = 900
    theta = np.interp(anim.scene.times[k], res["time"], res["theta"])
    r = np.interp(anim.scene.times[k], res["time"], res["r"])
    np.testing.assert_allclose(p_trolley[k], [r * math.cos(theta), r * math.sin(theta), 40.0], rtol=1e-9)


def test_cli_writes_a_gif_at_the_chosen_frame_rate(tmp_path, capsys):
    out = tmp_path / "pendulum.gif"
    args = ["animate", str(EXAMPLES / "simple_pendulum.py"), "-o", str(out), "--stop-time", "1", "--fps", "5"]
    assert main(args) == 0, capsys.readouterr().err
    with Image.open(out) as im:
        assert im.n_frames == 6  # 0, 0.2, ..., 1.0 s
        assert im.info["duration"] == 200


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg is not installed")
def test_mp4_with_ffmpeg(tmp_path):
    t = np.linspace(0.0, 1.0, 11)
    out = animate(pendulum(), {"time": t, "theta": t}, tmp_path / "p.mp4", size=(160, 120)).path
    assert out.stat().st_size > 1000 and out.read_bytes()[4:8] == b"ftyp"


def _page_anchor(page: Path, key: str) -> tuple[np.ndarray, np.ndarray]:
    data = json.loads(page.read_text().split('id="scene-data">', 1)[1].split("</script>", 1)[0])
    a = next(a for a in data["anchors"] if a["key"] == key)
    times = np.frombuffer(base64.b64decode(data["times"]), dtype=np.float64)
    return times, np.frombuffer(base64.b64decode(a["p"]), dtype=np.float32).reshape(-1, 3)


def test_cli_set_changes_the_parameters_of_the_drawing_too(tmp_path, capsys):
    out = tmp_path / "long.html"
    args = ["animate", str(EXAMPLES / "simple_pendulum.py"), "-o", str(out), "--stop-time", "2", "--set", "l=2.5"]
    assert main(args) == 0, capsys.readouterr().err
    _, p = _page_anchor(out, "bob@xyz")
    np.testing.assert_allclose(np.linalg.norm(p, axis=1), 2.5, rtol=1e-6)  # the rod the simulation used
    assert np.ptp(p[:, 0]) > 1.0  # and it swings


def test_readme_gif_of_the_tower_crane_transfer_is_small():
    gif = EXAMPLES.parent / "docs" / "tower_crane_transfer.gif"
    assert gif.stat().st_size < 2_000_000
    with Image.open(gif) as im:
        assert im.n_frames > 40 and im.size == (600, 300)


def test_cli_refuses_mp4_without_ffmpeg_before_any_work(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)

    def never(*args, **kwargs):
        raise AssertionError("the model was loaded before the refusal")

    monkeypatch.setattr("symbody.loader.load_model_file", never)  # refused before loading, exporting, simulating
    assert main(["animate", str(EXAMPLES / "tower_crane.py"), "-o", str(tmp_path / "crane.mp4")]) == 1
    assert "MP4 needs ffmpeg" in capsys.readouterr().err


def test_gif_draws_the_bob_where_the_motion_puts_it(tmp_path):
    s = sb.System("marked")
    th = s.coordinate("theta", 0.0)
    P = s.point("P", s.origin, sb.Vector(s.base("B", s.ground_base, sb.Rz(th)), 0, -0.8, 0))
    s.particle("bob", P, 1.0)
    s.gravity((0, -9.81, 0))
    s.shape(sb.Sphere(0.05), on=P, color="#ff0000")
    s.shape(sb.Line(s.origin, P), color="#303030")
    theta = np.array([-0.9, 0.2, 1.1])
    camera = {"view": "z", "target": (0.0, -0.4, 0.0), "extent": 1.0}
    W = H = 300
    out = animate(s, {"time": np.arange(3.0), "theta": theta}, tmp_path / "m.gif", camera=camera, size=(W, H), fps=1)
    with Image.open(out.path) as im:
        for k in range(3):
            im.seek(k)
            img = np.asarray(im.convert("RGB")).astype(int)
            red = (img[:, :, 0] > 150) & (img[:, :, 1] < 90) & (img[:, :, 2] < 90)
            ys, xs = np.nonzero(red)
            x, y = 0.8 * math.sin(theta[k]), -0.8 * math.cos(theta[k])
            want = np.array([W / 2 + x * (W / 2), H / 2 - (y + 0.4) * (H / 2)])
            assert np.linalg.norm([xs.mean(), ys.mean()] - want) < 2.0, (k, xs.mean(), ys.mean(), want)
