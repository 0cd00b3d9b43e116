"""``symbody info`` names the hoisting elements of a model (ropes, slings, buffers)."""

from __future__ import annotations

import json

from symbody.cli import main

HOOK = """
import symbody as sb


def build():
    s = sb.System("hook")
    y = s.coordinate("y", -2.0)
    hook = s.point("hook", s.origin, (0, y, 0))
    s.particle("payload", hook, 10.0)
    s.gravity((0, -9.81, 0))
    s.rope("hoist", [s.origin, hook], stiffness=1e5, unstretched_length=2.0, falls=2)
    s.buffer("stop", s.origin, hook, k=1e4, free_length=0.5)
    return s
"""


def test_info_lists_ropes_and_one_sided_springs(tmp_path, capsys):
    model = tmp_path / "hook.py"
    model.write_text(HOOK)
    assert main(["info", str(model)]) == 0
    out = capsys.readouterr().out
    assert "elements     2 (rope hoist, buffer stop)" in out, out
    assert "hoist_tension" in out
    assert main(["info", str(model), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["elements"] == ["rope hoist", "buffer stop"]
