"""The runtime contract (symbody.fmu.contract) against everything written from it or mirroring it:
the C header and sources of exported FMUs, model.c, modelDescription.xml, the Python backend."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from symbody.errors import ExportError
from symbody.fmu import contract, contract_types, python_backend, python_runtime, python_settings
from symbody.fmu.build import template_dir, write_sources
from symbody.fmu.contract import BLOCKS, RULES, SETTINGS, SETTINGS_DEFAULTS
from symbody.fmu.description import model_description
from symbody.fmu.python_backend import blocks_module
from symbody.fmu.spec import FmuSpec
from symbody.fmu.testing import cached_equations

ROOT = Path(__file__).resolve().parents[2]
FOUR_BAR = str(ROOT / "examples" / "four_bar.py")

#: values probing every rule: its boundaries, both sides of them, the method codes and non-numbers
PROBES = (-1.0, -0.0, 0.0, 1e-300, 0.5, 1.0, 2.0, 3.0, 4.0, 1e300, math.inf, -math.inf, math.nan)


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[int, Path]:
    """The sources/ of the four-bar (constrained, inputs, outputs) for FMI 2 and FMI 3, both interfaces."""
    eq = cached_equations(FOUR_BAR)
    out = {}
    for version in (2, 3):
        d = tmp_path_factory.mktemp(f"four_bar_fmi{version}")
        write_sources(FmuSpec(eq, version, "both"), d)
        out[version] = d
    return out


def c_setting_enum(header: str) -> list[tuple[str, int]]:
    body = re.search(r"typedef enum \{(.*?)\} SbSetting;", header, re.S)
    assert body, "no SbSetting enum"
    text = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
    return [(name, int(value)) for name, value in re.findall(r"(SB_SET_\w+)\s*=\s*(\d+)", text)]


def c_prototypes(text: str) -> dict[str, list[str]]:
    """name -> return type and argument names of every `<type> sb_<block>(const SbPoint *..., double *...)`
    declared or defined."""
    found = {}
    pattern = r"\b(void|int) (sb_\w+)\(const SbPoint \*\w+((?:,\s*double \*\w+)*)\)"
    for returns, name, args in re.findall(pattern, text):
        found[name] = [returns, *re.findall(r"double \*(\w+)", args)]
    return found


def test_model_header_holds_the_generated_contract():
    """symbody_model.h is what contract.py writes (python -m symbody.fmu.contract symbody_model.h)."""
    header = (template_dir() / "symbody_model.h").read_text()
    assert contract.sync_model_header(header) == header


@pytest.mark.parametrize("version", (2, 3))
def test_emitted_sources_declare_the_settings_and_blocks_of_the_table(sources, version):
    header = (sources[version] / "symbody_model.h").read_text()
    assert c_setting_enum(header) == [(s.c_name, s.index) for s in SETTINGS]
    assert [s.index for s in SETTINGS] == list(range(len(SETTINGS)))
    declared = c_prototypes(header)
    assert declared == {b.c_name: [b.returns, *b.outputs] for b in BLOCKS}
    # model.c defines every block with the table's arrays (as _<name>), and no other block
    defined = c_prototypes((sources[version] / "model.c").read_text())
    assert defined == {b.c_name: [b.returns, *(f"_{o}" for o in b.outputs)] for b in BLOCKS}


@pytest.mark.parametrize("version", (2, 3))
def test_model_c_starts_from_the_default_settings(sources, version):
    text = (sources[version] / "model.c").read_text()
    values = re.search(r"settings0\[\] = \{([^}]*)\}", text)
    assert values, "no settings0 in model.c"
    assert [float(v) for v in values.group(1).split(",")] == list(SETTINGS_DEFAULTS)
    assert len(SETTINGS_DEFAULTS) == len(SETTINGS) and SETTINGS_DEFAULTS == tuple(float(s.default) for s in SETTINGS)


@pytest.mark.parametrize("version", (2, 3))
@pytest.mark.parametrize("kind", ("cs", "me"))
def test_model_description_settings_follow_the_table(version, kind):
    eq = cached_equations(FOUR_BAR)
    spec = FmuSpec(eq, version, kind)
    root = ET.fromstring(model_description(spec))
    tag = "ScalarVariable" if version == 2 else None
    described = {}
    for v in root.find("ModelVariables"):
        if tag and v.tag != tag:
            continue
        described[v.get("name")] = v
    expected = [s for s in SETTINGS if s.interfaces == "any" or kind == "cs"]  # the four-bar has constraints
    settings = [v for v in spec.variables if v.kind == "setting"]
    assert [v.name for v in settings] == [s.name for s in expected]
    for var, s in zip(settings, expected):
        assert (var.index, var.type, var.start, var.causality, var.variability) == (
            s.index,
            s.type,
            s.default,
            s.causality,
            s.variability,
        )
        assert (var.unit, var.description, var.min, var.max) == (s.unit, s.description, s.min, s.max)
        xml = described[s.name]
        assert int(xml.get("valueReference")) == var.vr + (version == 3)  # FMI 3: 1-based (description.py)
        assert (xml.get("causality"), xml.get("variability")) == (s.causality, s.variability)
        assert xml.get("description") == s.description
        typed = xml if version == 3 else next(iter(xml))
        start = typed.get("start")
        if s.type == "Boolean":
            assert start == ("true" if s.default else "false")
        else:
            assert float(start) == s.default


def test_settings_of_models_without_constraints_leave_out_the_constraint_ones():
    eq = cached_equations(str(ROOT / "examples" / "simple_pendulum.py"))
    names = [v.name for v in FmuSpec(eq, 2, "both").variables if v.kind == "setting"]
    assert names == [s.name for s in SETTINGS if not s.constrained_only]
    names = [v.name for v in FmuSpec(eq, 2, "me").variables if v.kind == "setting"]
    assert names == [s.name for s in SETTINGS if not s.constrained_only and s.interfaces == "any"] == []


def test_python_runtime_settings_mirror_the_table():
    assert python_settings.SETTING_RULES == tuple((s.name, s.rule) for s in SETTINGS)
    assert python_settings.RULES == RULES
    assert (python_settings.RK4, python_settings.DOPRI5, python_settings.ROSENBROCK23) == tuple(contract.SOLVER_METHODS)
    for s in SETTINGS:
        for value in PROBES:
            assert python_settings.value_problem("setting", s.index, value, None, None) == s.problem(value), (
                s.name,
                value,
            )


def test_python_backend_blocks_are_blocks_of_the_table():
    """The numpy blocks have the names of the table and return its arrays in its order (a subset where the
    Python runtime needs fewer: no input Jacobians)."""
    text = blocks_module(FmuSpec(cached_equations(FOUR_BAR), 2, "cs"))
    functions = []
    for chunk in re.split(r"^def ", text, flags=re.M)[1:]:
        name = chunk[: chunk.index("(")]
        if name != "_sign":
            functions.append((name, re.findall(r"^    return \(([^)]*)\)", chunk, re.M)[-1]))
    by_name = {b.name: b for b in BLOCKS}
    assert len(functions) >= 8
    for name, returned in functions:
        assert name in by_name, name
        arrays = [a.strip().removeprefix("_out_") for a in returned.split(",") if a.strip()]
        outputs = list(by_name[name].outputs)
        assert arrays == [o for o in outputs if o in arrays] and set(arrays) <= set(outputs), (name, arrays)
    # and the Python runtime (every file the FMU ships with it) calls nothing else
    runtime = "".join(path.read_text() for path in python_backend.SHIPPED.values())
    assert Path(python_runtime.__file__) in python_backend.SHIPPED.values()
    called = set(re.findall(r"\b(?:self|m)\.b\.(\w+)\(", runtime))
    assert {"M_delta", "D_beta", "Phi_init", "contacts"} <= called <= {name for name, _ in functions}


def test_c_settings_check_agrees_with_the_table(sources, tmp_path):
    """sb_setting_ok / sb_setting_rule compiled from the header accept and refuse what the table does."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    probes = ", ".join(
        {math.inf: "INFINITY", -math.inf: "-INFINITY"}.get(v, "NAN" if v != v else repr(v)) for v in PROBES
    )
    program = tmp_path / "settings.c"
    program.write_text(
        '#include <stdio.h>\n#include "symbody_model.h"\n'
        "int main(void)\n{\n"
        f"    const double probes[] = {{{probes}}};\n"
        "    for (int s = 0; s < SB_N_SETTINGS; ++s) {\n"
        '        printf("%d|%s|", s, sb_setting_rule((SbSetting)s));\n'
        "        for (size_t k = 0; k < sizeof probes / sizeof probes[0]; ++k)\n"
        '            printf("%d", isfinite(probes[k]) && sb_setting_ok((SbSetting)s, probes[k]));\n'
        '        printf("\\n");\n'
        "    }\n    return 0;\n}\n"
    )
    exe = tmp_path / "settings"
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
    subprocess.run([cc, *flags, f"-I{sources[2]}", str(program), "-o", str(exe), "-lm"], check=True)
    lines = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == len(SETTINGS)
    for s, line in zip(SETTINGS, lines):
        index, rule, accepted = line.split("|")
        assert (int(index), rule) == (s.index, RULES[s.rule])
        assert accepted == "".join("1" if s.accepts(v) else "0" for v in PROBES), s.name


def test_settings_accept_their_defaults_and_the_method_codes():
    for s in SETTINGS:
        assert s.accepts(float(s.default)), s.name
        assert (s.min is None or s.default >= s.min) and (s.max is None or s.default <= s.max), s.name
    method = contract.setting("solver.method")
    assert [code for code in range(0, 6) if method.accepts(code)] == list(contract.SOLVER_METHODS)
    assert (method.min, method.max) == (min(contract.SOLVER_METHODS), max(contract.SOLVER_METHODS))


def test_log_categories_of_the_runtime_and_the_description_are_the_table():
    names = [name for name, _ in contract.LOG_CATEGORIES]
    runtime = (template_dir() / "sb_runtime.h").read_text()
    bits = re.findall(r"SB_LOG_\w+ = (\d+),\s*/\* (\w+)", runtime)
    assert [(int(bit), name) for bit, name in bits] == [(1 << k, name) for k, name in enumerate(names)]
    assert re.search(rf"SB_LOG_ALL = {(1 << len(names)) - 1}\b", runtime)
    instance = (template_dir() / "sb_instance.c").read_text()
    array = re.search(r"sb_log_category_names\[(\d+)\] = \{([^}]*)\}", instance)
    assert array and int(array.group(1)) == len(names)
    assert re.findall(r'"(\w+)"', array.group(2)) == names
    eq = cached_equations(FOUR_BAR)
    root = ET.fromstring(model_description(FmuSpec(eq, 3, "both")))
    described = [(c.get("name"), c.get("description")) for c in root.find("LogCategories")]
    assert described == list(contract.LOG_CATEGORIES)


# -- the model description types (symbody.fmu.contract_types) ---------------------------------------------------
def c_typedef(header: str, name: str) -> list[str]:
    """The member names of `typedef struct {...} name;` or the constants of `typedef enum {...} name;`."""
    body = re.search(rf"typedef (?:struct|enum) \{{([^{{}}]*)\}} {name};", header, re.S)
    assert body, f"no {name} in the header"
    text = re.sub(r"/\*.*?\*/", "", body.group(1), flags=re.S)
    return [re.findall(r"(\w+)\s*(?:=\s*\d+)?$", part.strip())[0] for part in re.split(r"[;,]", text) if part.strip()]


@pytest.mark.parametrize("version", (2, 3))
def test_emitted_header_declares_the_model_types_of_the_table(sources, version):
    header = (sources[version] / "symbody_model.h").read_text()
    assert c_typedef(header, "SbPoint") == [f.name for f in contract_types.POINT]
    assert c_typedef(header, "SbVariable") == [f.name for f in contract_types.VARIABLE]
    assert c_typedef(header, "SbModel") == [f.name for f in contract_types.MODEL]
    assert c_typedef(header, "SbVarKind") == [c for _, c, _ in contract_types.VAR_KINDS]
    assert c_typedef(header, "SbVarType") == [c for _, c, _ in contract_types.VAR_TYPES]
    for ctype, name, _ in contract_types.MODEL_DATA:  # declared once, in the model's header only
        assert header.count(f"extern {ctype} {name};") == 1
        others = [p.name for p in sources[version].glob("*.h") if p.name != "symbody_model.h" and name in p.read_text()]
        assert not any(f"extern {ctype} {name}" in (sources[version] / o).read_text() for o in others), others
    assert "#define SB_MODEL_LOCAL" in header
    assert not [
        p.name
        for p in sources[version].glob("*.h")
        if p.name != "symbody_model.h" and "#define SB_MODEL_LOCAL" in p.read_text()
    ]


@pytest.mark.parametrize("version", (2, 3))
def test_model_c_initializes_every_field_of_the_table(sources, version):
    text = (sources[version] / "model.c").read_text()
    model = re.search(r"const SbModel sb_model = \{(.*?)\n\};", text, re.S)
    assert model, "no sb_model in model.c"
    assert re.findall(r"^\s+\.(\w+) = ", model.group(1), re.M) == [f.name for f in contract_types.MODEL]
    table = re.search(r"static const SbVariable variables\[\] = \{\n(.*?)\n\};", text, re.S)
    assert table
    spec = FmuSpec(cached_equations(FOUR_BAR), version, "both")
    rows = table.group(1).splitlines()
    assert len(rows) == len(spec.variables)
    kinds = {c: k for k, c, _ in contract_types.VAR_KINDS}
    for row, var in zip(rows, spec.variables):
        values = [v.strip() for v in row[row.index("{") + 1 : row.rindex("}")].split(",")]
        assert len(values) == len(contract_types.VARIABLE), row
        assert (values[0], kinds[values[1]], int(values[2])) == (f'"{var.name}"', var.kind, var.index)
    # every kind and type of the FMU variables is in the table
    assert {v.kind for v in spec.variables} <= set(kinds.values())
    assert {v.type for v in spec.variables} <= {t for t, _, _ in contract_types.VAR_TYPES}


def test_an_initializer_without_a_field_is_refused():
    values = {f.name: "0" for f in contract_types.MODEL if f.name != "nmotion"}
    with pytest.raises(ExportError, match="nmotion"):
        contract_types.field_values(contract_types.MODEL, values, "SbModel")
    with pytest.raises(ExportError, match="nq2"):
        contract_types.field_values(contract_types.MODEL, values | {"nmotion": "0", "nq2": "1"}, "SbModel")


def test_compiled_model_holds_the_sizes_of_the_equations(sources, tmp_path):
    """sb_model compiled from model.c: every integer field holds what the equations say (none left at zero by
    an initializer that forgot it), every array is given, the names and the token are the model's."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    ints = [f.name for f in contract_types.MODEL if f.ctype == "int"]
    arrays = [f.name for f in contract_types.MODEL if f.ctype.endswith("*") and f.ctype != "const char *"]
    program = tmp_path / "sizes.c"
    program.write_text(
        '#include <stdio.h>\n#include "symbody_model.h"\nint main(void)\n{\n'
        + "".join(f'    printf("{n} %d\\n", sb_model.{n});\n' for n in ints)
        + "".join(f'    printf("{n} %d\\n", sb_model.{n} != NULL);\n' for n in arrays)
        + '    printf("name %s\\ntoken %s\\n", sb_model.name, sb_model.token);\n    return 0;\n}\n'
    )
    exe = tmp_path / "sizes"
    flags = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-Wmissing-field-initializers"]
    subprocess.run(
        [cc, *flags, f"-I{sources[2]}", str(program), str(sources[2] / "model.c"), "-o", str(exe), "-lm"], check=True
    )
    out = dict(
        line.split(" ", 1)
        for line in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    )
    eq = cached_equations(FOUR_BAR)
    spec = FmuSpec(eq, 2, "both")
    expected = {
        "nq": len(eq.coordinates), "nc": len(eq.constraint_rows), "nh": len(eq.Phi), "ninit": len(eq.Phi_init),
        "nu": len(eq.inputs), "np": len(eq.parameters), "ny": len(eq.outputs), "has_me": 1, "has_cs": 1,
        "nvars": len(spec.variables), "nk": len(eq.contacts), "nsw": len(eq.switches), "nf": len(eq.frictions),
        "friction_implicit": 0, "has_direct": 0, "ns": len(eq.states), "nmotion": len(eq.motion_inputs),
    }  # fmt: skip
    # fields this test has no value of its own for: the compiled value is the one model.c writes
    written = dict(re.findall(r"^\s+\.(\w+) = (-?\d+),", (sources[2] / "model.c").read_text(), re.M))
    expected |= {n: int(written[n]) for n in ints if n not in expected}
    assert {n: int(out[n]) for n in ints} == expected
    assert expected["nq"] > 0 and expected["nc"] > 0 and expected["nvars"] > 10  # the four-bar: a real check
    assert all(out[n] == "1" for n in arrays), out
    assert (out["name"], out["token"]) == (eq.name, spec.token)
