"""System structures (symbody system, symbody simulate loop.ssp): the SSP package against the SSP 1.0 schemas
(the normative XSD 1.0 ones and the XSD 1.1 ones with assertions) and read back by an independent SSP library
(pyssp-standard); the OSP file in libcosim; the order of the exchanges along the feedthrough graph, algebraic
loops refused by name; every wrong structure refused in one line before anything is written."""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import pytest

import symbody as sb
from symbody.cli import main
from symbody.fmu.cosim import exchange_order, feedthrough, simulate_structure
from symbody.fmu.platforms import host_platform
from symbody.fmu.ssp import SSD_NAME, open_ssp, system_description, validate_description
from symbody.fmu.system_structure import Link, StructureError, parse_connection, system_structure

HOST = [host_platform().name]


@pytest.fixture(scope="module")
def fmus(tmp_path_factory) -> dict[str, Path]:
    """A first-order plant (x' = -x + u, a continuous controller FMU used as plant: no feedthrough), a gain and
    a second gain, enough for loops with and without algebraic cycles."""
    import control

    d = tmp_path_factory.mktemp("fmus")
    plant = sb.controller_fmu(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]]), d / "plant.fmu", inputs=["u"],
                              outputs=["x"], units={"u": "N", "x": "m"}, platforms=HOST)
    gain = sb.controller_fmu(np.array([[2.0]]), d / "gain.fmu", inputs=["x"], outputs=["u"],
                             units={"x": "m", "u": "N"}, platforms=HOST)
    echo = sb.controller_fmu(np.array([[-1.0]]), d / "echo.fmu", inputs=["u"], outputs=["x"], platforms=HOST)
    return {"plant": plant, "gain": gain, "echo": echo}


LOOP = ["plant.x=gain.x", "gain.u=plant.u"]


def test_parse_connection_splits_at_the_first_dot():
    assert parse_connection("a.b.c=d.e.f") == Link("a", "b.c", "d", "e.f")
    with pytest.raises(StructureError, match="comp.var=comp.var"):
        parse_connection("a=b")


def test_ssp_package_validates_and_reads_back_in_another_library(fmus, tmp_path):
    params = tmp_path / "p.txt"
    params.write_text("# gains\ngain.K[u,x] = 3.5\ngain.x_ref = 0.25  # the set point\n")
    out = tmp_path / "loop.ssp"
    assert main(["system", str(fmus["plant"]), str(fmus["gain"]), *sum((["--connect", c] for c in LOOP), []),
                 "--parameters", str(params), "--stop-time", "2", "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        ssd = zf.read(SSD_NAME)
        zf.extractall(tmp_path / "x")
    assert {SSD_NAME, "resources/plant.fmu", "resources/gain.fmu", "resources/OspSystemStructure.xml"} <= names
    validate_description(ssd)
    xmlschema = pytest.importorskip("xmlschema")
    pyssp = pytest.importorskip("pyssp_standard")
    schema11 = Path(pyssp.__file__).parent / "resources" / "SystemStructureDescription11.xsd"
    xmlschema.XMLSchema11(str(schema11)).validate(str(tmp_path / "x" / SSD_NAME))
    from pyssp_standard.ssd import SSD

    read = SSD(tmp_path / "x" / SSD_NAME)
    assert read.version == "1.0" and [c.name for c in read.system.elements] == ["plant", "gain"]
    assert [(c.start_element, c.start_connector, c.end_element, c.end_connector) for c in read.connections()] == [
        ("plant", "x", "gain", "x"), ("gain", "u", "plant", "u")]
    gain = read.system.elements[1]
    (binding,) = gain.parameter_bindings
    assert {p["name"]: p["type_value"].parameter["value"] for p in binding.ssv.parameters} == {
        "K[u,x]": "3.5", "x_ref": "0.25"}
    units = {c.name: c.type_.unit for c in gain.connectors}
    assert units["x"] == "m" and units["u"] == "N"


def test_ssd_carries_omsimulators_fixed_step_master_at_the_communication_step(fmus, tmp_path):
    """OMSimulator takes a system only with OpenModelica's vendor annotation naming its master: ``oms-ma`` at the
    ``--step`` (an ``xs:decimal``, no exponent), the tolerance of the FMUs' default experiments; libcosim's
    annotation and the schema validation stay as they were."""
    import io
    import xml.etree.ElementTree as ET

    from symbody.fmu.ssp import NS

    out = tmp_path / "loop.ssp"
    assert main(["system", str(fmus["plant"]), str(fmus["gain"]), *sum((["--connect", c] for c in LOOP), []),
                 "--step", "2.5e-05", "--stop-time", "3", "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as zf:
        ssd = zf.read(SSD_NAME)
        fmus_inside = [zipfile.ZipFile(io.BytesIO(zf.read(f"resources/{c}.fmu"))) for c in ("plant", "gain")]
    tolerances = {ET.fromstring(f.read("modelDescription.xml")).find("DefaultExperiment").get("tolerance")
                  for f in fmus_inside}
    validate_description(ssd)
    assert tolerances == {"1e-06"}
    root = ET.fromstring(ssd)
    system = root.find("ssd:System", NS)
    assert system is not None and system[-1].tag == f"{{{NS['ssd']}}}Annotations"  # the schema's place for it
    (note,) = system.findall("ssd:Annotations/ssc:Annotation", NS)
    assert note.get("type") == "org.openmodelica"
    (master,) = note.findall("oms:Annotations/oms:SimulationInformation/*", NS)
    assert master.tag == f"{{{NS['oms']}}}FixedStepMaster"
    assert master.attrib == {"description": "oms-ma", "stepSize": "0.000025", "relativeTolerance": "0.000001"}
    assert b"<oms:FixedStepMaster " in ssd and b'xmlns:oms="https://raw.githubusercontent.com/OpenModelica/' in ssd
    (fixed,) = root.findall("ssd:DefaultExperiment/ssd:Annotations/ssc:Annotation/osp:Algorithm/*", NS)
    assert fixed.attrib == {"baseStepSize": "2.5e-05"}
    with open_ssp(out) as structure:
        assert structure.step == 2.5e-05 and structure.stop == 3.0


def test_omsimulator_tolerance_is_the_tightest_default_experiments_or_its_own_default():
    from types import SimpleNamespace

    from symbody.fmu.ssp import OMS_TOLERANCE, _relative_tolerance
    from symbody.fmu.system_structure import Element, SystemStructure

    def element(name, experiment):
        return Element(name, Path(f"{name}.fmu"), SimpleNamespace(defaultExperiment=experiment))

    loose, tight = SimpleNamespace(tolerance="1e-4"), SimpleNamespace(tolerance="1e-8")
    mixed = [element("a", loose), element("b", tight), element("c", None), element("d", SimpleNamespace(tolerance=None))]
    assert _relative_tolerance(SystemStructure("s", mixed, [], step=0.01)) == 1e-8
    assert _relative_tolerance(SystemStructure("s", mixed[2:], [], step=0.01)) == OMS_TOLERANCE == 1e-4


def test_a_schema_violation_is_refused(fmus):
    structure = system_structure([fmus["plant"]], [])
    xml = system_description(structure).replace(b"generationTool=", b'colour="red" generationTool=', 1)
    with pytest.raises(sb.ExportError, match="does not validate against SSP 1.0"):
        validate_description(xml)


def test_simulate_ssp_runs_the_loop_as_the_closed_form_says(fmus, tmp_path):
    """x' = -x + u with u = 2 (x_ref - x) held over each 0.01 s step, no delay: the exact zero-order-hold recursion."""
    ssp = tmp_path / "loop.ssp"
    system_args = ["system", str(fmus["plant"]), str(fmus["gain"]), "-o", str(ssp)]
    assert main([*system_args, *sum((["--connect", c] for c in LOOP), []), "--step", "0.01"]) == 0
    csv = tmp_path / "run.csv"
    assert main(["simulate", str(ssp), "--stop-time", "1", "--set", "gain.x_ref=1", "--set", "plant.u_ref=0",
                 "--output", "plant.x", "--output", "gain.u", "--no-plot", "-o", str(csv)]) == 0
    assert csv.read_text().splitlines()[0] == "time,plant.x,gain.u"
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    x = np.zeros(101)
    a, b = np.exp(-0.01), 1 - np.exp(-0.01)
    for k in range(100):
        x[k + 1] = a * x[k] + b * 2 * (1 - x[k])
    assert np.abs(data[:, 1] - x).max() < 1e-12
    assert np.abs(data[:, 2] - 2 * (1 - x)).max() < 1e-12  # the gain answers at the same instant


def test_fmi3_components_run_as_fmi2_ones(fmus, tmp_path):
    """The same loop of FMI 3 FMUs gives the FMI 2 loop's numbers (fmpy's FMU3Slave in the master)."""
    import control

    plant3 = sb.controller_fmu(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]]), tmp_path / "plant.fmu",
                               inputs=["u"], outputs=["x"], fmi=3, platforms=HOST)
    gain3 = sb.controller_fmu(np.array([[2.0]]), tmp_path / "gain.fmu", inputs=["x"], outputs=["u"], fmi=3,
                              platforms=HOST)
    runs = []
    for files in ((fmus["plant"], fmus["gain"]), (plant3, gain3)):
        structure = system_structure(list(files), LOOP, [("gain", "x_ref", "1.0")], step=0.05)
        runs.append(simulate_structure(structure, stop_time=2.0, outputs=["plant.x", "gain.u"]))
    assert np.array_equal(runs[0]["plant.x"], runs[1]["plant.x"]) and runs[0]["plant.x"][-1] > 0.6


def test_exchange_order_follows_the_feedthrough_graph(fmus):
    structure = system_structure([fmus["plant"], fmus["gain"], fmus["echo"]],
                                 ["gain.u=echo.u", "echo.x=plant.u", "plant.x=gain.x"])
    depends = {}
    for e in structure.elements:
        depends.update(feedthrough(e))
    assert depends[("plant", "x")] == set() and depends[("gain", "u")] == {"x"}
    order = [str(link) for link in exchange_order(structure.links, depends)]
    assert order == ["plant.x=gain.x", "gain.u=echo.u", "echo.x=plant.u"]


def test_algebraic_loop_is_refused_naming_it(fmus, tmp_path, capsys):
    structure = system_structure([fmus["gain"], fmus["echo"]], ["gain.u=echo.u", "echo.x=gain.x"], step=0.1)
    with pytest.raises(StructureError, match=r"algebraic loop: echo\.x=gain\.x -> gain\.u=echo\.u \("):
        simulate_structure(structure, stop_time=1.0)
    ssp = tmp_path / "alg.ssp"
    assert main(["system", str(fmus["gain"]), str(fmus["echo"]), "--connect", "gain.u=echo.u", "--connect",
                 "echo.x=gain.x", "-o", str(ssp)]) == 0  # a structure may hold one; running it may not
    assert main(["simulate", str(ssp), "--stop-time", "1", "--no-plot", "-o", str(tmp_path / "a.csv")]) == 1
    err = capsys.readouterr().err
    assert "symbody: error: algebraic loop: echo.x=gain.x -> gain.u=echo.u" in err
    assert not (tmp_path / "a.csv").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--connect", "plant.x=gain.u"], "gain.u is an output, not an input"),
        (["--connect", "plant.x=gain.x", "--connect", "plant.x=gain.x"], "gain.x is already fed by plant.x=gain.x"),
        (["--connect", "plant.y=gain.x"], "plant (plant.fmu) has no variable 'y'"),
        (["--connect", "crane.x=gain.x"], "no component 'crane'"),
        (["--connect", "plant.x=plant.u"], "connects a component to itself"),
        (["--step", "-1"], "communication step -1"),
    ],
)
def test_wrong_structures_are_refused_in_one_line(fmus, tmp_path, capsys, args, message):
    out = tmp_path / "bad.ssp"
    assert main(["system", str(fmus["plant"]), str(fmus["gain"]), *args, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not out.exists()


def test_wrong_files_and_parameters_are_refused(fmus, tmp_path, capsys):
    twin = tmp_path / "sub"
    twin.mkdir()
    (twin / "gain.fmu").write_bytes(fmus["gain"].read_bytes())
    bad = tmp_path / "9lives.fmu"
    bad.write_bytes(fmus["gain"].read_bytes())
    params = tmp_path / "p.txt"
    cases = [
        ([str(fmus["gain"]), str(twin / "gain.fmu")], None, "would both be component 'gain'"),
        ([str(bad)], None, "must be an identifier"),
        ([str(fmus["gain"])], "gain.u = 1\n", "only parameters and inputs take start values, it is a output"),
        ([str(fmus["gain"])], "gain.x_ref = abc\n", "gain.x_ref = 'abc' is not a Real value"),
        ([str(fmus["gain"])], "gain.x_ref 1\n", "p.txt, line 1: write comp.var = value"),
    ]
    for files, text, message in cases:
        args = ["system", *files, "-o", str(tmp_path / "o.ssp")]
        if text is not None:
            params.write_text(text)
            args += ["--parameters", str(params)]
        assert main(args) == 1
        err = capsys.readouterr().err
        assert message in err, (message, err)
    assert not (tmp_path / "o.ssp").exists()


def test_osp_file_alone_points_at_the_fmus_and_runs_in_libcosim(fmus, tmp_path):
    libcosim = pytest.importorskip("libcosimpy.CosimExecution")
    osp = tmp_path / "here" / "OspSystemStructure.xml"
    osp.parent.mkdir()
    assert main(["system", str(fmus["plant"]), str(fmus["gain"]), *sum((["--connect", c] for c in LOOP), []),
                 "--step", "0.01", "-o", str(osp)]) == 0
    text = osp.read_text()
    assert 'source="../plant.fmu"' not in text and "plant.fmu" in text
    ex = libcosim.CosimExecution.from_osp_config_file(str(osp))
    assert ex.num_slaves() == 2 and ex.simulate_until(int(1e9))


def test_open_ssp_refuses_what_is_not_a_package(tmp_path):
    fake = tmp_path / "x.ssp"
    fake.write_text("hello")
    with pytest.raises(StructureError, match="not an SSP package"):
        with open_ssp(fake):
            pass
    with zipfile.ZipFile(tmp_path / "y.ssp", "w") as zf:
        zf.writestr("readme.txt", "no ssd")
    with pytest.raises(StructureError, match="holds no SystemStructure.ssd"):
        with open_ssp(tmp_path / "y.ssp"):
            pass
