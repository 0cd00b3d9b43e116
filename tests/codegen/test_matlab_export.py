"""The MATLAB export without MATLAB: printing, names, escaping, operation counts, the folder it writes, the CLI.

The operation counts of the ``.m`` blocks are checked against the C export's by reading both
generated texts back with SymPy (independently of the export plan both come from): the same
statements must count the same.  Running the code is ``test_matlab_octave.py``'s part.
"""

from __future__ import annotations

import json
import math
import re
import struct

import numpy as np
import pytest
import sympy
from sympy.parsing.sympy_parser import parse_expr

import symbody as sb
from symbody.cli import main
from symbody.codegen.counts import export_ops
from symbody.codegen.matlab import (
    MATLAB_KEYWORDS,
    NAMELENGTHMAX,
    matlab_comment,
    matlab_identifier,
    matlab_string,
    unique_identifiers,
)
from symbody.codegen.matlab_model import MatlabExport, export_matlab, model_prefix
from symbody.errors import ExportError
from symbody.fmu.sources import ModelSource
from symbody.symbolic.printing import MatlabPrinter

from support import ROOT, example
from support.contact_models import bouncing_ball

PENDULUM = str(ROOT / "examples" / "simple_pendulum.py")


# -- printing ------------------------------------------------------------------------------------
def test_numbers_parse_back_to_the_same_double():
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**63 - 1, 2000, dtype=np.int64)
    values = [struct.unpack("<d", struct.pack("<q", int(b)))[0] for b in bits]
    values += [0.1, 1 / 3, 5e-324, 1.7976931348623157e308, 2.0**-1074, 9.81, 1e22, 123456789012345678.0]
    printer = MatlabPrinter()
    for v in values:
        if math.isfinite(v):
            text = printer.number(v)
            assert float(text) == v and len(re.sub(r"[^0-9]", "", text.split("e")[0]).lstrip("0")) <= 17, text
    assert [printer.number(v) for v in (math.inf, -math.inf, math.nan)] == ["Inf", "-Inf", "NaN"]


def test_expressions_are_element_wise():
    """Every product, quotient and power of the generated statements is element-wise (.*, ./, .^)."""
    export = MatlabExport(example("four_bar").derive())
    lines = [
        line.split("%")[0]
        for text in export.files.values()
        for line in text.splitlines()
        if re.match(r"^(t\d+|[A-Za-z]\w*\(\d+(, \d+)?\)) = ", line)
    ]
    assert len(lines) > 50
    for line in lines:
        assert not re.search(r"(?<!\.)[*/^]", line), line


# -- names and text ------------------------------------------------------------------------------
def test_identifiers_are_valid_distinct_and_short():
    names = ["end", "function", "_p", "2nd", "a b", "a_b", "a" * 70, "a" * 69 + "b", "theta1", ""]
    idents = unique_identifiers(names)
    assert idents[0] == "end_" and idents[-2] == "theta1"
    assert len(set(idents)) == len(idents)
    for ident in idents:
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", ident) and len(ident) <= NAMELENGTHMAX
        assert ident not in MATLAB_KEYWORDS
    assert matlab_identifier("a" * 70) != matlab_identifier("a" * 69 + "b")
    assert len(model_prefix("m" * 80) + "_initial_state") == NAMELENGTHMAX


def test_comments_and_strings_cannot_escape():
    text = "line1\nerror('x')\r\n%{\n%}\u2028quit(3) it's L\u00e4nge"
    comment = matlab_comment(text)
    assert "\n" not in comment and "\r" not in comment and "%{" not in comment and "%}" not in comment
    assert comment.isascii() and comment.isprintable()
    string = matlab_string(text)
    assert string.startswith("'") and string.endswith("'") and "''s" in string
    assert "'" not in string[1:-1].replace("''", "")


def hostile_model() -> sb.System:
    """Names MATLAB reserves or cannot hold, and descriptions that try to end their comments."""
    s = sb.System("end", description="desc\nerror('injected in the description')\n%{")
    k = s.parameter("function", 2.0, unit="N/m", description="stiffness\r\nquit(3) %}")
    c = s.parameter("_c", 0.1, unit="N*s/m", description="damping")
    long = s.parameter("l" * 70, 1.0, unit="kg", description="mass")
    longer = s.parameter("l" * 69 + "x", 0.5, unit="m", description="length")
    x = s.coordinate("otherwise", 0.2, unit="m", description="position\nexit(4)")
    s.particle("m", s.point("P", s.origin, (x, 0, 0)), long)
    s.generalized_force("spring", x, -k * (x - longer))
    s.viscous_friction("damper", x, c)
    s.output("catch", x * 2, unit="m", description="twice\n%{\nerror('injected in an output')")
    return s


def test_hostile_names_and_descriptions_stay_in_their_place():
    export = MatlabExport(hostile_model().derive())
    assert export.prefix == "end_" and set(export.files) == {
        f"end__{f}.m" for f in ("dynamics", "constraints", "outputs", "parameters", "initial_state", "simulate")
    }
    assert list(export.fields.values())[:2] == ["function_", "x_c"]
    for name, text in export.files.items():
        assert text.isascii(), name
        for line in text.splitlines():
            code = line.split("%")[0]
            assert "injected" not in code and "quit(3)" not in code and "exit(4)" not in code, (name, line)
            assert line.strip() not in ("%{", "%}"), (name, line)


# -- operation counts ------------------------------------------------------------------------------
def _count(statements: list[str], functions: dict) -> int:
    return sum(int(sympy.count_ops(parse_expr(rhs, local_dict=functions))) for rhs in statements)


def c_statements(source: str, function: str) -> list[str]:
    """Right-hand sides of the statements of a function of model.c (and of its parts; of their bodies where they
    have an AVX2 clone, symbody.codegen.c_isa), as SymPy text."""
    out = []
    for m in re.finditer(rf"void (body_)?(part\d+_)?{function}\(", source):
        body = source[source.index("{", m.start()) + 1 : source.index("\n}\n", m.start())]
        for line in body.splitlines():
            line = re.sub(r"/\*.*?\*/", "", line).strip().rstrip(";")
            if " = " in line and not line.startswith("memset"):
                rhs = line.split(" = ")[-1]
                # loads of arguments; an input is read as its polynomial over the communication step
                # (value, rate, acceleration: the runtime's input derivatives), which the .m code has not
                if not re.fullmatch(
                    r"_in->\w+\[\d+\]|_w\[\d+\]|_\w+\[\d+\]|_t\d+|_in->u\[\d+\] \+ _in->tau \* .*", rhs
                ):
                    out.append(rhs.replace("1.0/", "1/"))  # SymPy keeps a factor 1.0, not 1
    return out


def m_statements(source: str) -> list[str]:
    """Right-hand sides of the generated statements of a .m function, as SymPy text."""
    out = []
    for line in re.sub(r"\nif nargin < 7\n.*?\nend\n", "\n", source, flags=re.S).splitlines():
        line = line.split("%")[0].strip()
        if line.startswith(("if ", "Phi_q = ")):
            break
        m = re.fullmatch(r"[A-Za-z]\w*(\([\d, ]+\))? = (.*);", line)
        if m and not re.fullmatch(r"(q|dq|u|ddq|lam)\(\d+\)|p\.\w+|t|zeros\(.*\)|[A-Za-z]\w*\(\d+(, \d+)?\)", m[2]):
            out.append(m[2].replace(".*", "*").replace("./", "/").replace(".^", "**"))
    return out


def check_counts(name: str) -> None:
    eq = example(name).derive()
    c = ModelSource(eq, "both", constants=False).text  # the .m code computes every subexpression at every call
    export = MatlabExport(eq)
    files = export.files
    dynamics = files[f"{export.prefix}_dynamics.m"].split("\nfunction ")
    direct = [f for f in dynamics if f.startswith("[ddq, pivots]")]
    pairs = {
        "M_delta": ("sb_M_delta", dynamics[0]),
        "constraints": ("sb_constraints", files[f"{export.prefix}_constraints.m"]),
        "outputs": ("sb_outputs", files[f"{export.prefix}_outputs.m"]),
        "ddq": ("direct_blocks", direct[0] if direct else ""),
    }
    functions = {"pow": sympy.Pow, "fabs": sympy.Abs, "sb_sign": sympy.sign}
    for function, (c_name, m_text) in pairs.items():
        m_count = _count(m_statements(m_text), {})
        c_count = _count(c_statements(c, c_name), functions) if m_text else 0
        assert m_count == c_count, (name, function, m_count, c_count)
    assert export.ops == export_ops(eq)


@pytest.mark.parametrize("name", ["simple_pendulum", "four_bar", "overhead_crane"])
def test_operation_counts_equal_the_c_export(name):
    check_counts(name)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["crank_rod_disc", "double_pendulum_square_disc", "n_link_pendulum_on_cart", "slider_crank", "tower_crane"]
)
def test_operation_counts_of_every_example(name):
    check_counts(name)


# -- the folder ----------------------------------------------------------------------------------
def test_export_into_a_new_or_empty_folder_only(tmp_path):
    eq = example("simple_pendulum").derive()
    out = export_matlab(eq, tmp_path / "new")
    assert sorted(p.name for p in out.iterdir()) == sorted(MatlabExport(eq).files)
    (tmp_path / "empty").mkdir()
    export_matlab(eq, tmp_path / "empty")
    with pytest.raises(ExportError, match="not empty"):
        export_matlab(eq, tmp_path / "new")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ExportError, match="not a folder"):
        export_matlab(eq, tmp_path / "file")
    with pytest.raises(ExportError, match="does not exist"):
        export_matlab(eq, tmp_path / "missing" / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "file", "new"]


def test_a_failed_export_leaves_nothing(tmp_path, monkeypatch):
    from pathlib import Path

    calls = []

    def fail(self, *args, **kwargs):
        calls.append(self.name)
        if len(calls) == 3:
            raise OSError("disk full")
        return original(self, *args, **kwargs)

    original = Path.write_text
    monkeypatch.setattr(Path, "write_text", fail)
    with pytest.raises(OSError, match="disk full"):
        export_matlab(example("simple_pendulum").derive(), tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_contacts_are_refused():
    with pytest.raises(
        ExportError, match="unilateral contacts .*'floor'.*handles no events; export an FMU without --with-matlab"
    ):
        MatlabExport(bouncing_ball(1.0, 0.5, 1.0).derive())


# -- the command line ----------------------------------------------------------------------------
def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_exports_matlab(tmp_path, capsys):
    code, out, err = run(capsys, "export", PENDULUM, "--format", "matlab", "-o", str(tmp_path / "m"))
    assert code == 0 and "6 .m files" in out, err
    assert (tmp_path / "m" / "simple_pendulum_dynamics.m").is_file()


@pytest.mark.parametrize(
    "options",
    [
        ["--fmi", "3"],
        ["--kind", "cs"],
        ["--backend", "c"],
        ["--platforms", "x86_64-linux"],
        ["--jacobians", "none"],
        ["--with-matlab"],
    ],
)
def test_cli_fmu_options_are_errors_with_matlab(tmp_path, capsys, options):
    code, out, err = run(capsys, "export", PENDULUM, "--format", "matlab", "-o", str(tmp_path / "m"), *options)
    assert code == 1 and f"{options[0]} applies to FMUs" in err and not (tmp_path / "m").exists()


def test_cli_matlab_output_is_a_folder(tmp_path, capsys):
    code, _, err = run(capsys, "export", PENDULUM, "--format", "matlab", "-o", str(tmp_path / "x.fmu"))
    assert code == 1 and "a folder of .m files" in err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.m").write_text("% mine")
    code, _, err = run(capsys, "export", PENDULUM, "--format", "matlab", "-o", str(tmp_path / "full"))
    assert code == 1 and "not empty" in err and (tmp_path / "full" / "keep.m").read_text() == "% mine"


def test_info_reports_the_exported_counts(capsys):
    code, out, _ = run(capsys, "info", PENDULUM, "--json")
    info = json.loads(out)
    eq = example("simple_pendulum").derive()
    assert info["export_ops"] == MatlabExport(eq).ops == export_ops(eq)
    code, out, _ = run(capsys, "info", PENDULUM)
    assert f"exported     M_delta {info['export_ops']['M_delta']}," in out and "(C and MATLAB code)" in out
