"""Model text (names, descriptions, units) never reaches generated C or XML unchecked.

Every piece of text a model file gives either is refused with a ``ModelError``
naming the object, or ends up in an FMU whose ``modelDescription.xml`` parses
and validates, whose shipped C sources rebuild warning-free, and which runs no
code but its own.
"""

from __future__ import annotations

import math
import re
import subprocess
import zipfile
from pathlib import Path

import fmpy
import pytest
from fmpy.validation import validate_fmu
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from lxml import etree

import symbody as sb
from symbody.codegen.c import c_string
from symbody.codegen.evaluators import evaluator
from symbody.fmu import export_fmu
from symbody.fmu.build import template_dir
from symbody.fmu.sources import ModelSource
from symbody.model.registry import MAX_NAME_LENGTH

FIELDS = ("system", "g", "l", "m", "theta", "T", "y")
UNITS = {"system": None, "g": "m/s2", "l": "m", "m": "kg", "theta": "rad", "T": "N*m", "y": "m"}
THETA0 = 0.3


def pendulum(text: dict | None = None) -> sb.System:
    """A point mass on a rod (g = 9.81, l = 1, m = 1) whose names, units and descriptions come from ``text``.

    ``text`` maps a field of :data:`FIELDS` to ``(name, unit, description)``; missing fields
    keep their plain name, the unit of :data:`UNITS` and no description.
    """
    text = text or {}

    def field(key: str) -> tuple:
        return text.get(key, (key if key != "system" else "pendulum", UNITS[key], ""))

    name, _, description = field("system")
    s = sb.System(name, description)
    name, unit, description = field("g")
    g = s.parameter(name, 9.81, unit=unit, description=description)
    name, unit, description = field("l")
    length = s.parameter(name, 1.0, unit=unit, description=description)
    name, unit, description = field("m")
    m = s.parameter(name, 1.0, unit=unit, description=description)
    name, unit, description = field("theta")
    th = s.coordinate(name, THETA0, unit=unit, description=description)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, (0, -length, 0), base=B), m)
    s.gravity((0, -g, 0))
    name, unit, description = field("T")
    s.generalized_force("motor", th, s.input(name, unit=unit, description=description))
    name, unit, description = field("y")
    s.output(name, -length * sb.cos(th), unit=unit, description=description)
    return s


# -- checks of an exported FMU -------------------------------------------------------------------

GCC_MODES = (["-std=c99", "-pedantic"], ["-std=gnu11"])  # gnu modes predefine linux, unix, i386


def _compile(source: Path, mode: list[str]) -> subprocess.CompletedProcess:
    cmd = ["gcc", *mode, "-Wall", "-Wextra", "-Werror", "-c", str(source), f"-I{source.parent}", "-o", "/dev/null"]
    return subprocess.run(cmd, capture_output=True, text=True)


_reference: dict[int, Path] = {}


def reference_sources(fmi: int, tmp: Path) -> Path:
    """``sources/`` of the plain pendulum's FMU (built once per FMI version)."""
    if fmi not in _reference:
        fmu = export_fmu(pendulum(), tmp / f"reference{fmi}.fmu", fmi_version=fmi)
        _reference[fmi] = _unpack(fmu, tmp / f"reference{fmi}")
    return _reference[fmi]


def _unpack(fmu: Path, folder: Path) -> Path:
    with zipfile.ZipFile(fmu) as z:
        z.extractall(folder)
    return folder / "sources"


def check_fmu(fmu: Path, fmi: int, tmp: Path, marker: Path) -> None:
    """The XML parses and validates, the sources rebuild with -Wall -Wextra -Werror, the physics is intact."""
    with zipfile.ZipFile(fmu) as z:
        etree.fromstring(z.read("modelDescription.xml"))  # raises on XML that importers cannot parse
    assert validate_fmu(str(fmu)) == []
    src = _unpack(fmu, tmp / "unpacked")
    for mode in GCC_MODES:
        proc = _compile(src / "model.c", mode)
        assert proc.returncode == 0, proc.stderr[:3000]
    # everything else in sources/ is the generic runtime, untouched by model text
    ref = reference_sources(fmi, tmp)
    shipped = {f.name for f in src.iterdir()} - {"model.c", "buildDescription.xml"}
    assert shipped == {f.name for f in ref.iterdir()} - {"model.c", "buildDescription.xml"}
    for name in shipped:
        assert (src / name).read_bytes() == (ref / name).read_bytes(), name
    if fmi == 3:
        etree.fromstring((src / "buildDescription.xml").read_bytes())
    md = fmpy.read_model_description(str(fmu))
    theta = next(v.name for v in md.modelVariables if v.causality == "output" and v.derivative is None)
    res = fmpy.simulate_fmu(str(fmu), stop_time=0.05, output_interval=0.05, output=[theta])
    # theta(t) = theta0 - g sin(theta0) t^2 / 2 + O(t^4) for the unit pendulum at rest
    expected = THETA0 - 9.81 * math.sin(THETA0) * 0.05**2 / 2
    assert res[theta][-1] == pytest.approx(expected, abs=2e-5)
    assert not marker.exists(), "model text ran code inside the importing process"


def injections(marker: Path) -> list[str]:
    """Descriptions that try to leave a C comment or string and run ``system()`` when the FMU loads."""
    call = f'system("touch {marker}")'
    body = f"__attribute__((constructor)) static void sb_evil(void) {{ if ({call}) {{}} }}"
    return [
        # a backslash before a lone CR splices '*' and '/' into the end of the comment (gcc reads CR as a line end)
        f"pwn *\\\r/\r#include <stdlib.h>\r{body}\r/\\\r*",
        f"pwn */ #include <stdlib.h>\n{body} /*",
        f'pwn"); {call}; ("',
        f"pwn ??/\n{body}",
        f"pwn\n#include <stdlib.h>\n{body}\n//",
        f"pwn \u202e */ {body} /* \u2066",
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>&e;',
        f"exit(3); {call}; // \\",
    ]


# -- failures, one by one -----------------------------------------------------------------------------


def test_description_cannot_leave_its_c_comment(tmp_path: Path):
    marker = tmp_path / "pwned"
    payloads = injections(marker)
    for fmi, chunk in ((2, payloads[:4]), (3, payloads[4:])):
        text = {key: (key if key != "system" else "pendulum", UNITS[key], p) for key, p in zip(FIELDS, chunk)}
        fmu = export_fmu(pendulum(text), tmp_path / f"p{fmi}.fmu", fmi_version=fmi)
        check_fmu(fmu, fmi, tmp_path / f"k{fmi}", marker)
        md = fmpy.read_model_description(str(fmu))
        assert md.description == chunk[0]  # the XML keeps the text exactly
        assert [v.description for v in md.modelVariables if v.name in ("g", "l", "m")] == chunk[1:]


def test_names_that_are_c_macros_or_keywords_build_and_run(tmp_path: Path):
    """Predefined macros of compilers and <math.h>, libc and FMI names: the FMU builds and is right."""
    text = {
        "system": ("linux", None, ""),
        "g": ("FP_NAN", "m/s2", ""),
        "l": ("HUGE_VALF", "m", ""),
        "m": ("errno", "kg", ""),
        "theta": ("unix", "rad", ""),
        "T": ("i386", "N*m", ""),
        "y": ("fmi2Instantiate", "m", ""),
    }
    fmu = export_fmu(pendulum(text), tmp_path / "macros.fmu", fmi_version=2)
    check_fmu(fmu, 2, tmp_path, tmp_path / "pwned")
    for header in template_dir().glob("*.h"):  # the runtime headers model.c includes
        (tmp_path / header.name).write_bytes(header.read_bytes())
    others = ["main", "DOMAIN", "EDOM", "M_PI", "INFINITY", "stdin", "sb_model", "fmi3DoStep", "SB_TOKEN", "_t0"]
    for k in range(0, len(others), 5):
        names = dict(zip(("g", "l", "m", "theta", "T"), others[k : k + 5]))
        eq = pendulum({key: (name, UNITS[key], "") for key, name in names.items()}).derive()
        (tmp_path / "model.c").write_text(ModelSource(eq, "both").text)
        for mode in GCC_MODES:
            proc = _compile(tmp_path / "model.c", mode)
            assert proc.returncode == 0, (names, proc.stderr[:2000])


def test_names_alike_in_their_first_63_characters_stay_apart_in_c(tmp_path: Path):
    """C99 compilers need only tell identifiers apart by 63 characters: long names get private locals."""
    long_l, long_m = "L" * 70 + "a", "L" * 70 + "b"
    eq = pendulum({"l": (long_l, "m", ""), "m": (long_m, "kg", "")}).derive()
    src = ModelSource(eq, "both").text
    assert f"/* parameter {long_l} */" in src and f"/* parameter {long_m} */" in src
    code = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)  # comments out
    code = re.sub(r'"(\\.|[^"\\])*"', '""', code)  # string literals out
    assert max(len(w) for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code)) <= 63


@pytest.mark.parametrize("bad", ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1f", "\ud800", "\uffff"])
def test_descriptions_that_xml_cannot_hold_are_refused_where_declared(bad: str):
    for key, kind in (("m", "parameter"), ("theta", "coordinate"), ("T", "input"), ("y", "output")):
        with pytest.raises(sb.ModelError, match=rf"{kind} '{key}' description: contains .*U\+{ord(bad):04X}"):
            pendulum({key: (key, UNITS[key], f"text{bad}more")})
    with pytest.raises(sb.ModelError, match=r"system 'pendulum' description"):
        pendulum({"system": ("pendulum", None, f"a{bad}")})
    s = pendulum()
    with pytest.raises(sb.ModelError, match=r"system 'pendulum' description"):
        s.description = bad


def test_text_changed_after_the_checks_fails_the_export_not_the_importer(tmp_path: Path):
    s = pendulum()
    s.parameters["m"].description = "mass\x02"  # bypasses the declaration checks
    with pytest.raises(sb.ModelError, match=r"'m' description: contains the control character U\+0002"):
        export_fmu(s, tmp_path / "bad.fmu")
    assert not (tmp_path / "bad.fmu").exists()


def test_tabs_line_breaks_and_unicode_are_kept_in_the_xml(tmp_path: Path):
    text = 'Masse\tdes "Wagens"\r\nLänge < 2 & ∞ 😀'
    fmu = export_fmu(pendulum({"m": ("m", "kg", text)}), tmp_path / "u.fmu", fmi_version=3)
    md = fmpy.read_model_description(str(fmu))
    assert next(v for v in md.modelVariables if v.name == "m").description == text
    check_fmu(fmu, 3, tmp_path, tmp_path / "pwned")


def test_over_long_model_names(tmp_path: Path):
    with pytest.raises(sb.ModelError, match=r"system name .* 300 characters long: at most 128"):
        sb.System("a" * 300)
    name = "crane_" + "x" * 122
    fmu = export_fmu(pendulum({"system": (name, None, "")}), tmp_path / "long.fmu", fmi_version=3)
    md = fmpy.read_model_description(str(fmu))
    assert md.modelName == name
    ident = md.coSimulation.modelIdentifier
    assert len(ident) <= 64 and ident.startswith("crane_xxx") and ident.isidentifier()
    check_fmu(fmu, 3, tmp_path, tmp_path / "pwned")


def test_windows_device_names_get_a_usable_model_identifier(tmp_path: Path):
    fmu = export_fmu(pendulum({"system": ("con", None, "")}), tmp_path / "con.fmu", fmi_version=2)
    md = fmpy.read_model_description(str(fmu))
    assert md.modelName == "con" and md.coSimulation.modelIdentifier == "con_model"


def test_a_leading_underscore_does_not_start_the_model_identifier(tmp_path: Path):
    """Identifiers such as _Model are reserved to C implementations (a function prefix builds on it)."""
    fmu = export_fmu(pendulum({"system": ("_Model", None, "")}), tmp_path / "u.fmu", fmi_version=3)
    md = fmpy.read_model_description(str(fmu))
    assert md.modelName == "_Model" and md.modelExchange.modelIdentifier.startswith("m__Model_")
    check_fmu(fmu, 3, tmp_path, tmp_path / "pwned")


@pytest.mark.parametrize(
    ("key", "kind", "unit", "suggestion"),
    [
        ("m", "parameter", "kgg", "'kg'"),
        ("theta", "coordinate", "Rad", "'rad'"),
        ("T", "input", "Nm", "'N\\*m'"),
        ("y", "output", "meter", ""),
        ("l", "parameter", "m/", ""),
    ],
)
def test_misspelled_units_are_refused_naming_the_object(key, kind, unit, suggestion):
    with pytest.raises(sb.ModelError, match=rf"{kind} '{key}': unknown unit '{unit}'.*{suggestion}"):
        pendulum({key: (key, unit, "")})


def test_a_unit_changed_after_its_check_fails_the_derivation():
    s = pendulum()
    s.parameters["m"].unit = "kgg"  # bypasses the declaration check
    with pytest.raises(sb.ModelError, match=r"parameter 'm': unknown unit 'kgg'"):
        s.derive()


def test_units_must_be_strings():
    with pytest.raises(sb.ModelError, match=r"parameter 'm': the unit must be a string"):
        pendulum({"m": ("m", 1, "")})


def test_a_bare_number_in_a_unit_checked_sum_suggests_a_parameter():
    s = pendulum()
    s.generalized_force("damping", s.symbol("theta"), -0.5 * s.symbol("dtheta"))
    with pytest.raises(sb.ModelError) as err:
        s.derive()
    msg = str(err.value)
    assert "unit mismatch in the equation of coordinate 'theta'" in msg
    assert "load 'damping' is written with bare numbers (force = -0.5*dtheta)" in msg
    # a damping coefficient on a rotation: N*m per rad/s
    assert "s.parameter('damping_force', 0.5, unit='kg*m2/s')" in msg


def test_bare_numbers_on_both_sides_of_a_sum_are_both_named():
    s = sb.System("two")
    m = s.parameter("m", 1.0, unit="kg")
    th = s.coordinate("theta", THETA0, unit="rad")
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, (0, -s.parameter("l", 1.0, unit="m"), 0), base=B), m)
    s.gravity((0, -9.81, 0))  # gravity without a unit, and a damping coefficient without one
    s.generalized_force("damping", th, -0.5 * s.symbol("dtheta"))
    with pytest.raises(sb.ModelError) as err:
        s.derive()
    # both objects where a bare number was written are named, with the unit each number needs
    assert "gravity 'gravity' is written with bare numbers (g = (0, -9.81, 0) in base 'xyz')" in str(err.value)
    assert "s.parameter('g', -9.81, unit='m/s2')" in str(err.value)
    assert "load 'damping' is written with bare numbers (force = -0.5*dtheta)" in str(err.value)
    assert "unit='kg*m2/s'" in str(err.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ({"l": ("l", "mm", "")}, r"adds terms in different units \('N\*m' and 'mm'\)"),
        ({"theta": ("theta", "deg", "")}, r"sin\(theta\) takes the function of an argument in 'deg'"),
        ({"m": ("m", "g", "")}, r"different units .*'g'"),
        ({"y": ("y", "rad", "")}, r"output 'y' is declared in 'rad' .* is in m"),
        ({"y": ("y", "mm", "")}, r"output 'y' is declared in 'mm' but .* is 1000 times that unit"),
    ],
)
def test_units_of_another_scale_must_be_used_consistently(text, message):
    """The equations do not convert units: a length in mm beside g in m/s2 would be silently wrong."""
    with pytest.raises(sb.ModelError, match=message):
        pendulum(text).derive()


def test_a_model_written_consistently_in_millimetres_is_accepted():
    text = {"l": ("l", "mm", ""), "g": ("g", "mm/s2", ""), "T": ("T", "mN*mm", ""), "y": ("y", "mm", "")}
    s = pendulum(text)
    s.parameters["l"].value, s.parameters["g"].value = 1000.0, 9810.0
    eq = s.derive()
    M, delta = evaluator(eq, "M", "delta")(0.0, [THETA0], [0.0], [0.0], [9810.0, 1000.0, 1.0])
    # the same angular acceleration as in metres: -g sin(theta) / l
    assert delta[0] / M[0, 0] == pytest.approx(-9.81 * math.sin(THETA0))


def test_the_mass_matrix_and_the_forces_must_balance():
    """M ddq and delta are checked against each other, not only each on its own."""
    s = sb.System("unbalanced")
    g = s.parameter("g", 9.81, unit="m/s2")
    length = s.parameter("l", 1000.0, unit="mm")  # M = m l^2 in kg*mm2, delta = -m g l sin in kg*m*mm/s2
    th = s.coordinate("theta", THETA0, unit="rad")
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, (0, -length, 0), base=B), s.parameter("m", 1.0, unit="kg"))
    s.gravity((0, -g, 0))
    with pytest.raises(
        sb.ModelError, match=r"M\(theta, theta\) ddtheta and the generalized force differ by a factor 1000"
    ):
        s.derive()


# -- the whole class: random model text ---------------------------------------------------------------

MACROS = [
    "linux", "unix", "i386", "x86_64", "FP_NAN", "FP_INFINITE", "HUGE_VALF", "HUGE_VAL", "NAN", "INFINITY",
    "errno", "main", "exit", "system", "fmi2Instantiate", "fmi3DoStep", "sb_model", "SB_TOKEN", "M_PI",
    "EDOM", "DOMAIN", "stdin", "NULL", "_t0", "_in", "s_theta", "con", "printf", "memset", "__LINE__",
]  # fmt: skip
RESERVED = ["int", "double", "sin", "t", "M", "delta", "None", "lambda", "B", "P", "bob", "xyz"]
META = "\"'\\/*?#%&<>;{}()[]\r\n\t\x00\x01\x0b\x1b\x7f\x85\u2028\u202e\ud800\ufffe\uffffé∞😀 "
XML_SAFE_META = "".join(c for c in META if c not in "\x00\x01\x0b\x1b\ud800\ufffe\uffff")
# text that a model may legitimately hold: it must come out as a sound FMU
GOOD_NAMES = st.one_of(
    st.sampled_from(MACROS),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True),
    st.integers(min_value=60, max_value=128).map(lambda n: "L" * n),
)
GOOD_TEXTS = st.one_of(
    st.text(alphabet=st.sampled_from("ab */\\" + XML_SAFE_META), max_size=20),
    st.sampled_from(["@INJECT@"]),
)
GOOD_UNITS = st.sampled_from(["kg", "m", "rad", "N*m", "m/s2", "1", "", None, "s^-1", "deg/s", "kN*m**2"])
SPELLINGS = {"m/s2": ["m/s^2", "m/s**2", "m*s-2", "m/s/s"], "N*m": ["kg*m2/s2", "J", "N.m"], "rad": ["1"]}
# anything at all: refused by name or a sound FMU
ANY_NAMES = st.one_of(
    GOOD_NAMES,
    st.sampled_from(RESERVED),
    st.text(alphabet=st.sampled_from("ab_1" + META), min_size=0, max_size=6),
    st.integers(min_value=129, max_value=140).map(lambda n: "L" * n),
)
ANY_TEXTS = st.one_of(GOOD_TEXTS, st.text(alphabet=st.sampled_from("ab" + META), max_size=12), st.text(max_size=10))
ANY_UNITS = st.one_of(GOOD_UNITS, st.text(alphabet=st.sampled_from("kgmsN*/^-2 " + META), max_size=6), st.integers())


@st.composite
def model_texts(draw):
    """Nasty but legitimate text in some fields, and at most one field drawn from anything at all."""
    wild_field = draw(st.sampled_from([None, *FIELDS]))
    wild_part = draw(st.integers(min_value=0, max_value=2))
    text = {}
    for key in FIELDS:
        if key != wild_field and draw(st.booleans()):
            continue
        wild = wild_part if key == wild_field else -1
        name = draw(ANY_NAMES if wild == 0 else GOOD_NAMES)
        right = [UNITS[key], None, *SPELLINGS.get(UNITS[key] or "", [])]
        unit = None if key == "system" else draw(ANY_UNITS if wild == 1 else st.sampled_from(right))
        text[key] = (name, unit, draw(ANY_TEXTS if wild == 2 else GOOD_TEXTS))
    return text, draw(st.sampled_from([2, 3]))


def _build(text: dict) -> tuple[sb.System | None, str | None]:
    """The model, or the ModelError's message with the field it was raised on."""
    try:
        return pendulum(text), None
    except sb.ModelError as e:
        return None, str(e)


@pytest.mark.slow  # long: with --slow (CI)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(model_texts())
def test_any_model_text_is_refused_by_name_or_gives_a_sound_fmu(tmp_path_factory, drawn):
    text, fmi = drawn
    tmp = tmp_path_factory.mktemp("text")
    marker = tmp / "pwned"
    payload = injections(marker)[len(text) % len(injections(marker))]
    text = {k: (n, u, d.replace("@INJECT@", payload)) for k, (n, u, d) in text.items()}
    system, error = _build(text)
    if error is not None:
        # the message names an object this text declared (its kind and name), or a unit mismatch
        assert "unit mismatch" in error or any(
            repr(name) in error or (key == "system" and "system" in error) for key, (name, _, _) in text.items()
        ), error
        event("refused when declared")
        return
    try:
        eq = system.derive()
    except sb.ModelError as e:
        # an inconsistent equation, or an output whose declared unit is not that of its expression
        assert "unit mismatch" in str(e) or repr(text.get("y", ("y",))[0]) in str(e), str(e)
        event("unit mismatch")
        return
    fmu = export_fmu(eq, tmp / "model.fmu", fmi_version=fmi)
    check_fmu(fmu, fmi, tmp, marker)
    event("exported")


# -- the length of names, descriptions and units ---------------------------------------------------------


def _strict_c99(fmu: Path, folder: Path) -> None:
    """Every C file of the FMU's sources/ compiles with -std=c99 -pedantic -Wall -Wextra -Werror (ISO C99
    guarantees string literals of 4095 characters only, C99 5.2.4.1; gcc -pedantic warns beyond)."""
    src = _unpack(fmu, folder)
    files = sorted(src.glob("*.c"))
    assert "model.c" in [f.name for f in files] and len(files) > 5
    for c in files:
        proc = _compile(c, ["-std=c99", "-pedantic"])
        assert proc.returncode == 0, (c.name, proc.stderr[:2000])


def test_names_up_to_the_limit_and_any_descriptions_and_units_give_strict_c99_sources(tmp_path: Path):
    limit = MAX_NAME_LENGTH
    description = 'Länge <"x"> ' * 600  # 7200 characters, in the XML and (sanitized) in C comments
    unit = "*".join(["m"] * 1500) + "/" + "/".join(["m"] * 1499)  # m, in 6000 characters
    text = {
        "system": ("s" * 128, None, description),
        "g": ("g" * limit, "m/s2", description),
        "l": ("l" * limit, unit, description),
        "m": ("m" * limit, "kg", description),
        "theta": ("q" * (limit - 2), "rad", description),  # its acceleration dd<name> is at the limit
        "T": ("T" * limit, "N*m", description),
        "y": ("y" * limit, unit, description),
    }
    fmu = export_fmu(pendulum(text), tmp_path / "long.fmu", fmi_version=3, kind="both")
    check_fmu(fmu, 3, tmp_path, tmp_path / "pwned")
    _strict_c99(fmu, tmp_path / "strict")
    md = fmpy.read_model_description(str(fmu))
    assert {v.name for v in md.modelVariables} >= {"q" * (limit - 2), "ddq" + "q" * (limit - 3), "T" * limit}
    assert md.description == description and {v.unit for v in md.modelVariables if v.name == "l" * limit} == {unit}

    s = sb.System("ball")  # contact and friction names at the limit: their forces and event indicators
    x, y = s.coordinate("x" * (limit - 2), 0.0, dq0=1.0), s.coordinate("y", 0.5)
    s.particle("b", s.point("P", s.origin, (x, y, 0)), 1.0)
    s.gravity((0, -9.81, 0))
    s.unilateral("c" * (limit - len("force_")), y, restitution=0.5)
    s.stick_slip("f" * (limit - len("force_")), x, normal=9.81, mu=0.3)
    fmu = export_fmu(s, tmp_path / "ball.fmu", fmi_version=2, kind="both")
    _strict_c99(fmu, tmp_path / "ball")


@pytest.mark.parametrize("length", [MAX_NAME_LENGTH + 1, 4095, 4096, 10_000])
def test_longer_names_are_refused_naming_the_object(length: int):
    for key, kind in (("g", "parameter"), ("theta", "coordinate"), ("T", "input"), ("y", "output")):
        message = rf"^{kind} name '{key[0] * 40}'\.\.\. is {length} characters long: at most {MAX_NAME_LENGTH}$"
        with pytest.raises(sb.ModelError, match=message):
            pendulum({key: (key[0] * length, UNITS[key], "")})
    s = sb.System("c")  # a name of its own within the limit, one it gives a part of the model beyond it
    with pytest.raises(sb.ModelError, match=rf"^acceleration name 'ddqqq.*is {MAX_NAME_LENGTH + 1} characters"):
        s.coordinate("q" * (MAX_NAME_LENGTH - 1))
    assert s.coordinates == [] and len(s.registry) == 4  # nothing of it was declared


def test_no_c_string_literal_beyond_the_c99_limit(tmp_path: Path):
    assert c_string("a" * 4095) == '"' + "a" * 4095 + '"'
    for text in ("a" * 4096, "\u00e9" * 2048):  # 4096 bytes, in ASCII or in UTF-8
        with pytest.raises(sb.ModelError, match="is 4096 bytes long: a C string literal holds at most 4095"):
            c_string(text)
    s = pendulum()
    s.parameters["m"].name = "m" * 5000  # bypasses the declaration checks
    with pytest.raises(sb.ModelError, match="'mmmm.*is 5000 bytes long: a C string literal holds at most 4095"):
        export_fmu(s, tmp_path / "bad.fmu")
    assert not (tmp_path / "bad.fmu").exists()


@pytest.mark.parametrize("name", ["Fmi2Slave", "Real", "numpy", "math", "runtime", "symbody_python_runtime"])
def test_python_backend_refuses_names_that_shadow_its_own(tmp_path: Path, name: str):
    """The slave class and script are named after the model ('Fmi2Slave' crashed the exporting process)."""
    with pytest.raises(sb.ExportError, match=rf"cannot name the FMU '{name}': it would shadow"):
        export_fmu(pendulum({"system": (name, None, "")}), tmp_path / "py.fmu", backend="python")
    assert not (tmp_path / "py.fmu").exists()


def test_python_backend_keeps_hostile_text_inert(tmp_path: Path):
    marker = tmp_path / "pwned"
    text = {
        "system": ("linux", None, f'"""\'\'\' */ \r\nimport os; os.system("touch {marker}")'),
        "m": ("FP_NAN", "kg", "\\"),
    }
    fmu = export_fmu(pendulum(text), tmp_path / "py.fmu", backend="python")
    res = fmpy.simulate_fmu(str(fmu), stop_time=0.05, output_interval=0.05)
    assert res["theta"][-1] == pytest.approx(THETA0 - 9.81 * math.sin(THETA0) * 0.05**2 / 2, abs=2e-5)
    assert not marker.exists()
