"""The controller runtime under tests/fmu/c/controller_host.c: every FMI 2 function called right and wrong, FMU states
saved, restored, serialized and corrupted, 1000 instances created and freed -- for every law (continuous and
discrete linear, state feedback, PID, shaper), built with -Wall -Wextra -Werror, and under AddressSanitizer with
UndefinedBehaviorSanitizer and LeakSanitizer (slow: CI runs it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import control
import pytest

import symbody as sb
from symbody.codegen.c_eval import c_compiler
from symbody.fmu.build import fmi_headers_dir, template_dir
from symbody.fmu.controller_spec import CONTROLLER_SOURCES, ControllerSpec
from symbody.fmu.controllers import control_law

HOST = Path(__file__).resolve().parent / "c" / "controller_host.c"
LAWS = {
    "continuous": (control.ss([[-1.0, 2.0], [-3.0, -0.5]], [[1.0, 0.0], [0.5, 1.0]], [[1.0, 0.0]], [[0.1, 0.0]]),
                   ["a", "b"], ["y"]),
    "discrete": (control.c2d(control.tf([1.0, 0.2], [1.0, 0.7, 2.0]), 0.05, "tustin"), ["e"], ["v"]),
    "feedback": (sb.StateFeedback([[2.0, 0.5], [0.0, 1.0]]), ["x", "dx"], ["F", "G"]),
    "pid": (sb.PID(2.0, 1.0, 0.2, sample_time=0.02, tf=0.01, u_min=-0.5, u_max=0.5), ["y"], ["u"]),
    "shaper": (sb.InputShaper.zvd(3.0, 0.1), ["r"], ["s"]),
}
ASAN = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
ENV = {"ASAN_OPTIONS": "detect_leaks=1:halt_on_error=1", "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}


def _host(tmp: Path, law: str, flags: list[str], references: str = "parameters") -> Path:
    controller, ins, outs = LAWS[law]
    spec = ControllerSpec(control_law(controller, ins, outs), f"ctl_{law}", 2, references)
    src = tmp / f"{law}_controller.c"
    src.write_text(spec.source.files["controller.c"])
    sources = [src, *(template_dir() / n for n in (*CONTROLLER_SOURCES, "sbc_fmi2.c")), HOST]
    exe = tmp / f"{law}_{'asan' if flags is ASAN else 'plain'}_{references}"
    cmd = [c_compiler(), "-std=c99", "-Wall", "-Wextra", "-Werror", *flags, f"-I{template_dir()}",
           f"-I{fmi_headers_dir()}", *map(str, sources), "-o", str(exe), "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def _run(exe: Path, env: dict | None = None) -> None:
    import os

    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600, env={**os.environ, **(env or {})})
    assert proc.returncode == 0, f"{exe.name}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "failed 0" in proc.stdout and int(proc.stdout.split()[1]) > 60


@pytest.mark.parametrize("law", sorted(LAWS))
def test_controller_host_every_call_right_and_wrong(tmp_path, law):
    _run(_host(tmp_path, law, ["-O1"]))
    if law == "feedback":
        _run(_host(tmp_path, law, ["-O1"], references="inputs"))


@pytest.mark.slow
@pytest.mark.parametrize("law", sorted(LAWS))
def test_controller_host_under_address_and_undefined_behaviour_sanitizers(tmp_path, law):
    probe = tmp_path / "probe.c"
    probe.write_text("int main(void) { return 0; }\n")
    if subprocess.run([c_compiler(), *ASAN, str(probe), "-o", str(tmp_path / "probe")]).returncode != 0:
        pytest.skip("the C compiler has no AddressSanitizer runtime")
    _run(_host(tmp_path, law, ASAN), ENV)
