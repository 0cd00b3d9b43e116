"""The animation page in a real browser: headless Chromium with networking disabled.

Checks that the page draws the mechanism (pixels), that two instants differ, that no script error
is logged, that nothing outside the file is referenced, and that a simulated pendulum's bob is
drawn where the simulation puts it (pixel position under a fixed orthographic camera).
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import symbody as sb
from symbody.fmu import export_fmu
from symbody.fmu.run import simulate

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)"),
    pytest.mark.slow,
]

W, H = 600, 600
BACKGROUND = np.array([0xF4, 0xF5, 0xF7])
L = 0.8  # pendulum length
CAMERA = {"projection": "orthographic", "view": "z", "target": (0.0, -0.4, 0.0), "extent": 1.0}


def chromium(url: str, tmp: Path, *, screenshot: Path | None = None) -> tuple[str, str]:
    """Run headless Chromium without network on ``url``; returns (DOM, stderr log)."""
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
        f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=8000",
        f"--window-size={W},{H}", "--hide-scrollbars",
    ]  # fmt: skip
    cmd.append(f"--screenshot={screenshot}" if screenshot else "--dump-dom")
    proc = subprocess.run([*cmd, url], capture_output=True, text=True, timeout=120, check=False)
    return proc.stdout, proc.stderr


def load_png(path: Path) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(path).convert("RGB")).astype(int)


def marked_pendulum(mesh: Path | None = None) -> sb.System:
    s = sb.System("marked_pendulum")
    g = s.parameter("g", 9.81)
    th = s.coordinate("theta", 1.0)
    B = s.base("B", s.ground_base, sb.Rz(th))
    P = s.point("P", s.origin, sb.Vector(B, 0, -L, 0))
    s.particle("bob", P, 1.0)
    s.gravity((0, -g, 0))
    s.shape(sb.Sphere(0.05), on=P, color="#ff0000", name="marker")
    s.shape(sb.Line(s.origin, P), color="#303030")
    s.shape(sb.Box(0.3, 0.04, 0.04), color="#303030", name="support")
    s.shape(sb.Cylinder(0.03, 0.1, axis="z"), on=(s.origin, B), color="#4060a0", name="hinge")
    if mesh is not None:
        s.shape(sb.Mesh(mesh, scale=0.1), on=(P, B), offset=(0.1, 0, 0), color="#208020", name="tag")
    return s


@pytest.fixture(scope="module")
def pendulum_page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    tag = tmp / "tag.obj"  # a small square plate, to draw a mesh too
    tag.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n")
    fmu = export_fmu(marked_pendulum(tag), tmp / "marked_pendulum.fmu", fmi_version=3, kind="cs")
    res = simulate(fmu, stop_time=2.0, interval=0.01)
    page = tmp / "pendulum.html"
    sb.animate(fmu, res, page, camera=CAMERA, fps=1000)  # every simulated sample is a frame
    return tmp, page, res


def red_centroid(img: np.ndarray) -> np.ndarray:
    red = (img[:, :, 0] > 150) & (img[:, :, 1] < 90) & (img[:, :, 2] < 90)
    assert red.sum() > 20, "the red marker is not drawn"
    ys, xs = np.nonzero(red)
    return np.array([xs.mean(), ys.mean()])


def expected_pixel(theta: float) -> np.ndarray:
    """Where the orthographic camera of CAMERA (looking along -z, y up) shows the bob (closed form)."""
    x, y = L * math.sin(theta), -L * math.cos(theta)
    scale = (H / 2) / CAMERA["extent"]
    tx, ty, _ = CAMERA["target"]
    return np.array([W / 2 + (x - tx) * scale, H / 2 - (y - ty) * scale])


def test_page_draws_each_instant_without_errors_or_network(pendulum_page):
    tmp, page, res = pendulum_page
    shots = []
    for t in (0.0, 0.7):
        dom, log = chromium(f"{page.as_uri()}?t={t}&ui=0", tmp)
        assert 'data-state="ready"' in dom, dom[-2000:]
        assert "error:" not in dom.split("<body", 1)[1][:200]
        console = [line for line in log.splitlines() if ":CONSOLE" in line and "GL Driver Message" not in line]
        assert console == []  # no script error, no console.error/warn/log at all
        shot = tmp / f"shot_{t}.png"
        chromium(f"{page.as_uri()}?t={t}&ui=0", tmp, screenshot=shot)
        img = load_png(shot)
        assert img.shape[:2] == (H, W)
        drawn = np.any(np.abs(img - BACKGROUND) > 30, axis=2)
        assert drawn.sum() > 500, "blank canvas"
        shots.append(img)
    changed = np.any(np.abs(shots[0] - shots[1]) > 30, axis=2)
    assert changed.sum() > 200, "the two instants look the same"


def test_bob_is_drawn_where_the_simulation_puts_it(pendulum_page):
    tmp, page, res = pendulum_page
    for t in (0.5, 1.3):
        k = int(np.argmin(np.abs(res["time"] - t)))
        t_k, theta = float(res["time"][k]), float(res["theta"][k])
        shot = tmp / f"bob_{t}.png"
        chromium(f"{page.as_uri()}?t={t_k!r}&ui=0", tmp, screenshot=shot)
        got = red_centroid(load_png(shot))
        want = expected_pixel(theta)
        assert np.linalg.norm(got - want) < 3.0, (t, got, want)
    # the two instants are far apart on the screen (the test would catch a frozen or mirrored bob)
    assert np.linalg.norm(expected_pixel(float(np.interp(0.5, res["time"], res["theta"])))
                          - expected_pixel(float(np.interp(1.3, res["time"], res["theta"])))) > 50  # fmt: skip


def test_screenshot_command_of_the_animation_guide(pendulum_page):
    """The headless screenshot command docs/how-to/animation.md gives draws the page (its flags, on this page)."""
    tmp, page, _ = pendulum_page
    guide = (Path(__file__).resolve().parents[2] / "docs" / "how-to" / "animation.md").read_text()
    command = re.search(r"^chromium --headless (.*?)\"file://", guide.replace("\\\n", " "), re.M | re.S)
    assert command, "the animation guide gives no chromium command"
    flags = [f for f in command.group(1).split() if not f.startswith(("--screenshot", "--window-size"))]
    for needed in ("--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--virtual-time-budget=8000"):
        assert needed in flags
    shot = tmp / "guide.png"
    isolated = ["--no-sandbox", f"--user-data-dir={tmp / 'guide_profile'}", "--proxy-server=127.0.0.1:9"]
    cmd = [CHROMIUM, "--headless", *flags, *isolated, f"--window-size={W},{H}", f"--screenshot={shot}"]
    subprocess.run([*cmd, f"{page.as_uri()}?t=0.5&ui=0"], capture_output=True, timeout=120, check=False)
    img = load_png(shot)
    assert np.any(np.abs(img - BACKGROUND) > 30, axis=2).sum() > 500, "blank canvas"
    red_centroid(img)  # the bob is drawn


def test_bad_time_parameter_is_reported_in_the_page(pendulum_page):
    tmp, page, _ = pendulum_page
    dom, _ = chromium(f"{page.as_uri()}?t=soon", tmp)
    assert 'data-state="error: ?t=soon is not a number"' in dom


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.refs += [v or "" for k, v in attrs if k in ("src", "href", "action", "data", "poster", "srcset")]


def test_page_references_nothing_external(pendulum_page):
    _, page, _ = pendulum_page
    text = page.read_text(encoding="utf-8")
    parser = _Refs()
    parser.feed(text)
    assert parser.refs == []  # no src/href at all: scripts and data are inline
    assert "link" not in parser.tags and "iframe" not in parser.tags
    # the page's own code and data (everything but the vendored, unmodified three.js text)
    own = text
    for block in ("three-core", "three-module", "orbit-controls"):
        start = own.index(f'id="{block}">')
        own = own[:start] + own[own.index("</script>", start) :]
    for word in ("http:", "https:", "fetch(", "XMLHttpRequest", 'import("http', "//cdn"):
        assert word not in own, word
    assert len(text) < 2_000_000


def test_jupyter_display_draws_inside_its_iframe(pendulum_page, tmp_path):
    tmp, _, res = pendulum_page
    anim = sb.animate(tmp / "marked_pendulum.fmu", res, camera=CAMERA)
    notebook = tmp_path / "notebook.html"
    notebook.write_text(f"<html><body style='margin:0'>{anim._repr_html_()}</body></html>", encoding="utf-8")
    shot = tmp_path / "notebook.png"
    _, log = chromium(notebook.as_uri(), tmp, screenshot=shot)
    img = load_png(shot)[:480]
    assert np.abs(img - BACKGROUND).max(axis=2).__gt__(30).sum() > 500, "the inline view is blank"
    assert [line for line in log.splitlines() if ":CONSOLE" in line and "GL Driver Message" not in line] == []
