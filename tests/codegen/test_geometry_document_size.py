"""The geometry document of a long chain stays small and exact (issue 13, "Scale").

The document's expressions are printed from the optimized plan they share
temporaries with; printing the unoptimized expressions against those
temporaries repeated every shared sub-expression the optimizer had rewritten,
so that the document of a 3-D chain grew about 2.7-fold per body (the FMU
export of 16 bodies spent 13 minutes and 2.4 GB on it).

Truth: forward kinematics of the chain by rotation matrices
(``scipy.spatial.transform.Rotation``, intrinsic Z-Y-X angles), independent of
symbody.
"""

from __future__ import annotations

import json

import numpy as np
from scipy.spatial.transform import Rotation

import symbody as sb
from symbody.codegen.geometry import geometry_document
from symbody.viz.poses import evaluate_poses

LENGTHS = (1.0, 0.8, 1.3, 0.6, 1.1, 0.9, 0.7, 1.2)


def chain(n: int) -> sb.System:
    """``n`` solids joined by Z-Y-X spherical joints, link ``k`` of length ``LENGTHS[k]`` along its x axis."""
    s = sb.System(f"chain{n}")
    base, point = s.ground_base, s.origin
    for k in range(n):
        angles = [s.coordinate(f"q{k}_{a}", 0.0) for a in "zyx"]
        if k > 0:
            point = s.point(f"P{k}", point, sb.Vector(base, s.parameter(f"l{k - 1}", LENGTHS[k - 1]), 0, 0))
        base = s.base(f"B{k}", base, sb.EulerAngles("zyx", angles))
        s.solid(
            f"link{k}", point, base, mass=1.0, com=(0.5, 0.05, -0.03), inertia=sb.inertia(0.1, 0.3, 0.35, 0.01, 0, 0)
        )
    return s


def _size(n: int) -> int:
    return len(json.dumps(geometry_document(chain(n).derive())))


def test_document_grows_polynomially_with_the_chain():
    small, large = _size(6), _size(8)
    # the positions of a chain of n bodies sum up to n rotated links: quadratic at most, (8/6)^2 = 1.8;
    # the exponential printing grew 4.2-fold here
    assert large < 2.2 * small, (small, large)


def test_poses_of_a_long_chain_match_rotation_matrices():
    n = 8
    doc = geometry_document(chain(n).derive())
    rng = np.random.default_rng(7)
    angles = rng.uniform(-np.pi, np.pi, size=(5, n, 3))
    columns = {"time": np.zeros(5)}
    for k in range(n):
        for i, a in enumerate("zyx"):
            columns[f"q{k}_{a}"] = angles[:, k, i]
    poses = evaluate_poses(doc, columns)
    for j in range(5):
        R = np.eye(3)
        p = np.zeros(3)
        for k in range(n):
            if k > 0:
                p = p + R @ np.array([LENGTHS[k - 1], 0.0, 0.0])
            R = R @ Rotation.from_euler("ZYX", angles[j, k]).as_matrix()
            key = f"P{k}@B{k}" if k > 0 else "O@B0"
            np.testing.assert_allclose(poses.anchors[key][0][j], p, atol=1e-12)
            np.testing.assert_allclose(poses.anchors[key][1][j], R, atol=1e-12)
