"""Shapes on models, the geometry document (exact poses), its evaluator, and the geometry inside FMUs."""

from __future__ import annotations

import json
import math
import struct
import zipfile

import numpy as np
import pytest
from scipy.spatial.transform import Rotation as SciRotation

import symbody as sb
from symbody.codegen.geometry import geometry_document
from symbody.fmu import export_fmu
from symbody.fmu.geometry import GEOMETRY_PATHS, read_geometry
from symbody.viz.html import quaternions
from symbody.viz.poses import GeometryError, compile_expression, evaluate_poses


def double_pendulum(shapes: bool = True) -> sb.System:
    s = sb.System("double")
    l1, l2 = s.parameter("l1", 1.5), s.parameter("l2", 0.7)
    a, b = s.coordinate("a", 0.2), s.coordinate("b", -0.4)
    B1 = s.base("B1", s.ground_base, sb.Rz(a))
    B2 = s.base("B2", B1, sb.Rz(b))
    P1 = s.point("P1", s.origin, sb.Vector(B1, l1, 0, 0))
    P2 = s.point("P2", P1, sb.Vector(B2, l2, 0, 0))
    s.solid("bar1", s.origin, B1, mass=2.0, com=(l1 / 2, 0, 0), inertia=(0, 1, 1))
    s.particle("tip", P2, 0.25)
    s.gravity((0, -9.81, 0))
    if shapes:
        s.shape(sb.Box(l1, 0.1, 0.05), on=(s.origin, B1), offset=(l1 / 2, 0, 0), color="steelblue", name="bar")
        s.shape(sb.Cylinder(0.05, 0.2, axis="z"), on=(P1, B2), rotation=sb.Rx(math.pi / 2), color=(1, 0, 0))
        s.shape(sb.Sphere(0.08), on=P2, color="#0f0")
        s.shape(sb.Line(P1, P2), color="grey")
    return s


def closed_form(a: np.ndarray, b: np.ndarray, l1: float = 1.5, l2: float = 0.7):
    p1 = np.stack([l1 * np.cos(a), l1 * np.sin(a), 0 * a], axis=1)
    p2 = p1 + np.stack([l2 * np.cos(a + b), l2 * np.sin(a + b), 0 * a], axis=1)
    return p1, p2


def test_poses_match_closed_form_kinematics():
    doc = geometry_document(double_pendulum().derive())
    a = np.linspace(-3, 3, 7)
    b = np.linspace(2, -1, 7)
    poses = evaluate_poses(doc, {"time": np.zeros(7), "a": a, "b": b})
    p1, p2 = closed_form(a, b)
    np.testing.assert_allclose(poses.anchors["P1@B2"][0], p1, atol=1e-12)
    np.testing.assert_allclose(poses.anchors["P2@xyz"][0], p2, atol=1e-12)
    R = poses.anchors["P1@B2"][1]
    expected = SciRotation.from_euler("z", (a + b)[:, None]).as_matrix()
    np.testing.assert_allclose(R, expected, atol=1e-12)
    # the box's centre is half-way along the first bar; the cylinder's axis turned from z to -y of B2
    k_box = [s["name"] for s in doc["shapes"]].index("bar")
    centre, _ = poses.shape_pose(doc, k_box)
    np.testing.assert_allclose(centre, p1 / 2, atol=1e-12)
    k_cyl = [s["kind"] for s in doc["shapes"]].index("cylinder")
    _, Rc = poses.shape_pose(doc, k_cyl)
    np.testing.assert_allclose(Rc[:, :, 2], -expected[:, :, 1], atol=1e-12)


def test_parameters_recorded_in_the_result_are_used_unless_given():
    doc = geometry_document(double_pendulum().derive())
    cols = {"time": np.zeros(2), "a": np.zeros(2), "b": np.zeros(2), "l1": np.array([3.0, 3.0])}
    p2 = evaluate_poses(doc, cols).anchors["P2@xyz"][0]
    np.testing.assert_allclose(p2, [[3.7, 0, 0], [3.7, 0, 0]], atol=1e-12)
    p2 = evaluate_poses(doc, cols, {"l1": 1.0}).anchors["P2@xyz"][0]
    np.testing.assert_allclose(p2, [[1.7, 0, 0], [1.7, 0, 0]], atol=1e-12)


def test_a_run_with_a_non_positive_size_is_refused():
    doc = geometry_document(double_pendulum().derive())
    with pytest.raises(GeometryError, match="'bar': lx = -1 is not a positive size"):
        evaluate_poses(doc, {"time": np.zeros(1), "a": np.zeros(1), "b": np.zeros(1)}, {"l1": -1.0})


def test_parameters_change_the_poses():
    doc = geometry_document(double_pendulum().derive())
    cols = {"time": np.zeros(1), "a": np.zeros(1), "b": np.zeros(1)}
    poses = evaluate_poses(doc, cols, {"l1": 3.0})
    np.testing.assert_allclose(poses.anchors["P2@xyz"][0][0], [3.7, 0, 0], atol=1e-12)
    assert poses.sizes[0]["lx"] == pytest.approx(3.0)


def test_document_is_plain_json_with_colours_and_symbols():
    doc = geometry_document(double_pendulum().derive())
    again = json.loads(json.dumps(doc))
    assert again == doc
    assert doc["up"] == "y"
    assert doc["symbols"]["a"] == {"kind": "coordinate", "value": 0.2}
    assert doc["symbols"]["l1"] == {"kind": "parameter", "value": 1.5}
    colours = {s["name"]: s["color"] for s in doc["shapes"]}
    assert colours["bar"] == "#4682b4" and "#ff0000" in colours.values() and "#00ff00" in colours.values()


def test_default_view_explains_the_model():
    s = double_pendulum(shapes=False)
    doc = geometry_document(s.derive())
    kinds = [sh["kind"] for sh in doc["shapes"]]
    assert doc["default_view"] is True
    assert kinds.count("axes") == 1
    lines = [sh for sh in doc["shapes"] if sh["kind"] == "line"]
    assert {(sh["anchor"], sh["end"]) for sh in lines} == {("O@xyz", "P1@xyz"), ("P1@xyz", "P2@xyz")}
    spheres = {sh["name"]: float(sh["sizes"]["radius"]) for sh in doc["shapes"] if sh["kind"] == "sphere"}
    assert set(spheres) == {"com_bar1", "com_tip"}
    assert spheres["com_tip"] / spheres["com_bar1"] == pytest.approx((0.25 / 2.0) ** (1 / 3))
    # the bar's sphere sits at its centre of mass
    poses = evaluate_poses(doc, {"time": np.zeros(1), "a": np.array([0.5]), "b": np.zeros(1)})
    k = [sh["name"] for sh in doc["shapes"]].index("com_bar1")
    p, _ = poses.shape_pose(doc, k)
    np.testing.assert_allclose(p[0], [0.75 * math.cos(0.5), 0.75 * math.sin(0.5), 0], atol=1e-12)


def test_shape_errors_name_the_shape():
    s = double_pendulum(shapes=False)
    a = s.symbol("a")
    with pytest.raises(sb.ModelError, match="shape 'wobbly'.*coordinate 'a'"):
        s.shape(sb.Sphere(a), on="P1", name="wobbly")
    with pytest.raises(sb.ModelError, match="unknown colour"):
        s.shape(sb.Sphere(0.1), on="P1", color="nocolour")
    with pytest.raises(sb.ModelError, match="cannot attach to 'nowhere'"):
        s.shape(sb.Sphere(0.1), on="nowhere")
    with pytest.raises(sb.ModelError, match="does not exist"):
        s.shape(sb.Line("P1", "P9"))
    with pytest.raises(sb.ModelError, match="lx must be positive"):
        s.shape(sb.Box(-1.0, 1, 1), on="P1")
    with pytest.raises(sb.ModelError, match="not a proper rotation"):
        s.shape(sb.Sphere(0.1), on="P1", rotation=[[1, 0, 0], [0, 1, 0], [0, 0, -1]])
    with pytest.raises(sb.ModelError, match="opacity"):
        s.shape(sb.Sphere(0.1), on="P1", opacity=2)
    with pytest.raises(sb.ModelError, match="width"):
        sb.Line("P1", "P2", width=0)
    assert s.shapes == []  # nothing half-attached
    s.shape(sb.Sphere(0.1), on="P1", name="ball")
    with pytest.raises(sb.ModelError, match="duplicate shape name 'ball'"):
        s.shape(sb.Sphere(0.1), on="P1", name="ball")


@pytest.mark.parametrize(
    "text", ["__import__('os')", "a.__class__", "(lambda: 1)()", "[1, 2]", "'text'", "open('x')", "a if a else b"]
)
def test_evaluator_refuses_anything_but_arithmetic(text):
    with pytest.raises(GeometryError, match="not allowed|not a number|unknown name"):
        compile_expression(text, {"a", "b"})


def test_evaluator_computes_in_floats_so_a_power_tower_fails_at_once():
    doc = {"format": "symbody-geometry", "version": 1, "symbols": {}, "program": [["x", "9**9**9**9"]],
           "anchors": {}, "shapes": []}  # fmt: skip
    with pytest.raises(GeometryError, match="9\\*\\*9"):
        evaluate_poses(doc, {"time": np.zeros(1)})


def test_evaluator_reports_missing_coordinates():
    doc = geometry_document(double_pendulum().derive())
    with pytest.raises(GeometryError, match="no coordinate 'b'"):
        evaluate_poses(doc, {"time": np.zeros(1), "a": np.zeros(1)})


def test_quaternions_match_scipy():
    rots = SciRotation.random(50, random_state=1)
    extra = SciRotation.from_euler("xyz", [[math.pi, 0, 0], [0, math.pi, 0], [0, 0, math.pi], [0, 0, 0]])
    mats = np.concatenate([rots.as_matrix(), extra.as_matrix()])
    q = quaternions(mats)
    back = SciRotation.from_quat(q).as_matrix()
    np.testing.assert_allclose(back, mats, atol=1e-12)


def _cube_stl_binary() -> bytes:
    tris = [((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((0, 0, 1), (1, 0, 1), (0, 1, 1))]
    out = b"\0" * 80 + struct.pack("<I", len(tris))
    for tri in tris:
        out += struct.pack("<3f", 0, 0, 1) + b"".join(struct.pack("<3f", *v) for v in tri) + b"\0\0"
    return out


def test_meshes_from_stl_and_obj(tmp_path):
    stl = tmp_path / "part.stl"
    stl.write_bytes(_cube_stl_binary())
    mesh = sb.Mesh(stl, scale=2.0)
    assert len(mesh.faces) == 2 and mesh.vertices[4] == [1.0, 0.0, 1.0]
    ascii_stl = tmp_path / "a.stl"
    ascii_stl.write_text("solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
                         "endloop\nendfacet\nendsolid a\n")  # fmt: skip
    assert len(sb.Mesh(ascii_stl).faces) == 1
    obj = tmp_path / "quad.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1/1 2/2 3/3 4/4\n")
    m = sb.Mesh(obj)
    assert m.faces == [[0, 1, 2], [0, 2, 3]]
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nf 1 2 3\n")
    with pytest.raises(sb.ModelError, match="malformed"):
        sb.Mesh(bad)
    s = double_pendulum(shapes=False)
    s.shape(mesh, on="bar1", color="orange")
    doc = geometry_document(s.derive())
    assert doc["shapes"][0]["faces"] == [[0, 1, 2], [3, 4, 5]] and doc["shapes"][0]["scale"] == 2.0


@pytest.mark.parametrize("fmi", [2, 3])
def test_fmu_carries_the_geometry(tmp_path, fmi):
    s = double_pendulum()
    fmu = export_fmu(s, tmp_path / "double.fmu", fmi_version=fmi, kind="cs")
    with zipfile.ZipFile(fmu) as zf:
        assert GEOMETRY_PATHS[fmi] in zf.namelist()
    doc = read_geometry(fmu)
    assert doc == geometry_document(s.derive())
    import fmpy

    md = fmpy.read_model_description(str(fmu), validate=True)
    names = {v.name for v in md.modelVariables}
    coords = [n for n, info in doc["symbols"].items() if info["kind"] != "time"]
    assert set(coords) <= names  # every symbol of the poses is a variable of the FMU
    assert fmpy.validation.validate_fmu(str(fmu)) == []


def test_fmu_without_geometry_is_a_clear_error(tmp_path):
    fake = tmp_path / "other.fmu"
    with zipfile.ZipFile(fake, "w") as zf:
        zf.writestr("modelDescription.xml", "<fmiModelDescription/>")
    with pytest.raises(sb.ExportError, match="holds no geometry"):
        read_geometry(fake)


def test_default_view_survives_points_not_computable_at_the_defaults():
    s = sb.System("odd")
    c = s.parameter("c", -1.0)
    x = s.coordinate("x", 0.0)
    s.particle("m", s.point("P", s.origin, (x, 0, 0)), 1.0)
    s.point("Q", s.origin, (sb.sqrt(c), 0, 0))  # NaN at the defaults: only drawn, never in the equations
    doc = geometry_document(s.derive())
    assert {sh["name"] for sh in doc["shapes"]} == {"ground_axes", "link_P", "link_Q", "com_m"}
    with pytest.raises(GeometryError, match="not finite"):
        evaluate_poses(doc, {"time": np.zeros(1), "x": np.zeros(1)})
    poses = evaluate_poses(doc, {"time": np.zeros(1), "x": np.ones(1)}, {"c": 4.0})
    np.testing.assert_allclose(poses.anchors["Q@xyz"][0][0], [2.0, 0, 0])


def test_python_backend_fmu_carries_the_geometry_too(tmp_path):
    s = double_pendulum()
    fmu = export_fmu(s, tmp_path / "double_py.fmu", backend="python")
    assert read_geometry(fmu) == geometry_document(s.derive())


def test_a_malformed_document_is_a_geometry_error():
    from symbody.viz.scene import build_scene

    doc = geometry_document(double_pendulum().derive())
    del doc["shapes"][0]["offset"]
    with pytest.raises(GeometryError, match="malformed geometry document"):
        build_scene(doc, {"time": np.zeros(1), "a": np.zeros(1), "b": np.zeros(1)})


def test_page_data_cannot_close_its_script_block():
    from symbody.viz.html import page_html
    from symbody.viz.scene import build_scene

    s = double_pendulum()
    s.shape(sb.Sphere(0.1), on="P2", name="x</script><script>alert(1)</script><!--")
    scene = build_scene(geometry_document(s.derive()), {"time": np.zeros(1), "a": np.zeros(1), "b": np.zeros(1)})
    page = page_html(scene)
    data = page.split('id="scene-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and json.loads(data)["shapes"][-1]["name"].startswith("x</script>")
