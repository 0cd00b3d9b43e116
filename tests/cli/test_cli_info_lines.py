"""``symbody info MODEL.py`` is one loop over the table of its lines (``symbody.fmu.info_cli.INFO_LINES``).

The lines of the examples with every kind of element (hydraulic cylinders, a rope and a winch on the knuckle
crane; two flexible bodies on the tower crane) are those the command printed before it was a table; a new
element kept in ``System.elements`` shows in the ``elements`` line with no change to the command.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from symbody.cli import main
from symbody.fmu.info_cli import INFO_LINES

ROOT = Path(__file__).resolve().parents[2]

KNUCKLE_HYDRAULIC = """\
knuckle_crane: knuckle-boom crane on a ship (heave, roll and pitch as motion inputs)
  coordinates  7 (slew, luff, fold, swing_t, swing_r, hang, hoist)
  constraints  0 (0 holonomic, 0 non-holonomic), dof 7
  parameters   53 (g, x_ped, y_ped, z_ped, h_col, e_col, L1, L2, ... (53))
  inputs       13 (heave, dheave, ddheave, roll, droll, ddroll, pitch, dpitch, ... (13))
  motion       3 motion inputs (heave, roll, pitch)
  states       4 (main_cylinder_p1, main_cylinder_p2, jib_cylinder_p1, jib_cylinder_p2)
  outputs      31 (main_cylinder_extension, main_cylinder_force, main_cylinder_flow1, main_cylinder_flow2, \
jib_cylinder_extension, jib_cylinder_force, jib_cylinder_flow1, jib_cylinder_flow2, ... (31))
  elements     4 (hydraulic cylinder main_cylinder, hydraulic cylinder jib_cylinder, rope wire, winch hoist)
  atoms        #
  dynamics     virtual power formulation"""

FLEXIBLE_TOWER = """\
tower_crane_flexible
  coordinates  19 (theta, mast_rz1, mast_ry1, mast_rz2, mast_ry2, mast_rz3, mast_ry3, mast_rz4, ... (19))
  constraints  0 (0 holonomic, 0 non-holonomic), dof 19
  flexible     mast: 4 segments, 8 coordinates, 5 solids
  flexible     jib: 4 segments, 8 coordinates, 5 solids
  parameters   23 (g, m_slew, J_slew, m_payload, m_trolley, l, c_slew, H, ... (23))
  inputs       1 (tau_slew)
  outputs      3 (x_payload, y_payload, z_payload)
  atoms        #
  dynamics     articulated formulation, accelerations by articulated-body algorithm"""

# the counts of operations and the time depend on the optimizer and the machine: their form only
COUNTS = [
    r"  operations   M \d+, delta \d+, M_delta \d+, Phi \d+, Phi_q \d+, gamma \d+(, ddq \d+)?",
    r"  exported     M_delta \d+, constraints \d+, outputs \d+(, ddq \d+)? \(C and MATLAB code\)",
    r"  derived in   [0-9.e+-]+ s",
]


@pytest.mark.parametrize(
    "model, options, expected",
    [
        ("knuckle_crane.py", ["--option", "actuation=hydraulic"], KNUCKLE_HYDRAULIC),
        # the flexible lines are checked by default in tests/model/test_flexible.py; the whole crane is slow
        pytest.param("crane_control/flexible_tower_crane.py", [], FLEXIBLE_TOWER, marks=pytest.mark.slow),
    ],
    ids=["knuckle-hydraulic", "flexible-tower"],
)
def test_info_of_the_examples_is_unchanged(capsys, model, options, expected):
    assert main(["info", str(ROOT / "examples" / model), *options]) == 0
    lines = capsys.readouterr().out.rstrip("\n").split("\n")
    head, counts = lines[: -len(COUNTS)], lines[-len(COUNTS) :]
    atoms = [i for i, line in enumerate(head) if line.startswith("  atoms ")]
    assert len(atoms) == 1 and re.fullmatch(r"  atoms        \d+", head[atoms[0]])
    head[atoms[0]] = "  atoms        #"
    assert "\n".join(head) == expected
    for line, pattern in zip(counts, COUNTS):
        assert re.fullmatch(pattern, line), line


def test_the_lines_are_one_table_in_the_order_printed():
    labels = [label for label, _ in INFO_LINES]
    assert labels[:3] == ["coordinates", "constraints", "flexible"] and labels[-1] == "derived in"
    assert len(set(labels)) == len(labels) and all(len(label) <= 12 for label in labels)


def test_an_element_of_a_new_kind_is_listed_without_a_change_to_the_command(tmp_path, capsys):
    model = tmp_path / "tagged.py"
    model.write_text(
        "import symbody as sb\n\n\n"
        "class Tag:\n"
        "    kind = 'tag'\n\n\n"
        "def build():\n"
        "    s = sb.System('tagged')\n"
        "    y = s.coordinate('y', 0.0)\n"
        "    s.particle('m', s.point('P', s.origin, (0, y, 0)), 1.0)\n"
        "    s.elements['marker'] = Tag()\n"
        "    return s\n"
    )
    assert main(["info", str(model)]) == 0
    assert "  elements     1 (tag marker)\n" in capsys.readouterr().out
