"""The hand-written C runtime stays a house people can live in: files by concern, none over 700 lines,
each opening with a comment that names it and says what it holds."""

from __future__ import annotations

import re

from symbody.fmu.build import WRAPPERS, template_dir
from symbody.fmu.controller_spec import CONTROLLER_HEADERS, CONTROLLER_SOURCES, CONTROLLER_WRAPPERS
from symbody.fmu.spec import GENERIC_HEADERS, GENERIC_SOURCES

MAX_LINES = 700


def test_runtime_files_are_short_and_say_what_they_hold():
    files = sorted([*template_dir().glob("*.c"), *template_dir().glob("*.h")])
    assert len(files) >= 15
    for f in files:
        text = f.read_text()
        assert text.count("\n") <= MAX_LINES, f"{f.name} has {text.count(chr(10))} lines (at most {MAX_LINES})"
        head = re.match(r"/\*\n \* (\S+) -- (.+)", text)
        assert head and head.group(1) == f.name, f"{f.name} does not open with '/*\\n * {f.name} -- ...'"


def test_every_runtime_file_is_shipped_and_compiled():
    """What fmu_templates/ holds is what the FMUs' sources/ hold: models' and controllers' (the glibc floor header
    excepted)."""
    controllers = {*CONTROLLER_SOURCES, *CONTROLLER_HEADERS, *CONTROLLER_WRAPPERS}
    shipped = {*GENERIC_SOURCES, *GENERIC_HEADERS, *WRAPPERS, *controllers, "sb_glibc_floor.h"}
    present = {f.name for f in [*template_dir().glob("*.c"), *template_dir().glob("*.h")]}
    assert present == shipped


def test_the_runtime_header_lists_every_runtime_source():
    """sb_runtime.h's list of the runtime's files by concern names each source the FMUs compile besides the
    wrappers, and only those."""
    header = (template_dir() / "sb_runtime.h").read_text()
    listed = re.findall(r"^ \*   (sb_\w+\.c) ", header[: header.index("*/")], re.M)
    assert sorted(listed) == sorted(GENERIC_SOURCES)


def test_the_wrappers_name_each_function_once_and_keep_no_logic_of_their_own():
    """The FMI 2 and FMI 3 wrappers of models (fmi2Functions.c, fmi3Functions.c, logic in sb_calls.c) and of
    controllers (sbc_fmi2.c, sbc_fmi3.c, logic in sbc_calls.c) enter every call with one macro that names the
    function by ``__func__`` (never a string of its name written again) and leave the instance's host data and
    the FMU states' memory to the shared file."""
    for name in (*WRAPPERS, *CONTROLLER_WRAPPERS):
        text = (template_dir() / name).read_text()
        assert not re.findall(r'"fmi[23][A-Za-z]+"', text), f"{name} spells a function's name again"
        shared = "sbc_calls.h" if name.startswith("sbc_") else "sb_calls.h"
        assert f'#include "{shared}"' in text
        for call in ("malloc(", "free(", "snapshot(", "deserialize("):
            assert call not in text, f"{name} calls {call}...): that logic belongs in {shared.replace('.h', '.c')}"
