"""Generated C against numpy, block by block, and the exact Jacobians against finite differences."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import symbody as sb
from symbody.codegen.c import C_RESERVED, is_safe_c_name
from symbody.codegen.c_eval import CEvaluator, compile_evaluator
from symbody.codegen.evaluators import evaluator, layout_of
from symbody.fmu.build import template_dir
from symbody.fmu.jacobians import ResidualJacobians
from symbody.fmu.sources import ModelSource
from symbody.fmu.testing import cached_equations

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(str(p) for p in (ROOT / "examples").glob("*.py") if "def build" in p.read_text())


def random_point(eq, seed: int = 0):
    rng = np.random.default_rng(seed)
    q = eq.q0 + 0.3 * rng.normal(size=eq.nq)
    dq = rng.normal(size=eq.nq)
    u = rng.normal(size=eq.nu)
    p = eq.p0 * (1 + 0.1 * rng.normal(size=len(eq.parameters)))
    ddq = rng.normal(size=eq.nq)
    lam = rng.normal(size=len(layout_of(eq).lam))  # the multipliers, then contact forces (outputs use them)
    return 0.37, q, dq, u, p, ddq, lam


@pytest.mark.parametrize("model", EXAMPLES, ids=lambda p: Path(p).stem)
def test_c_blocks_match_numpy(model):
    eq = cached_equations(model)
    names = list(eq.blocks())
    c = compile_evaluator(eq, *names)
    py = evaluator(eq, *names)
    for seed in range(3):
        args = random_point(eq, seed)
        for name, a, b in zip(names, c(*args), py(*args)):
            assert a.shape == b.shape, name
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * (1 + np.abs(b).max(initial=0)), err_msg=name)


def _residual(eq, args):
    t, q, dq, u, p, ddq, lam = args
    M, delta, D, gamma = evaluator(eq, "M", "delta", "D", "gamma")(t, q, dq, u, p)
    return np.concatenate([M @ ddq + D.T @ lam[: eq.nc] - delta, D @ ddq - gamma])


@pytest.mark.parametrize("model", EXAMPLES, ids=lambda p: Path(p).stem)
def test_residual_jacobians_match_finite_differences(model):
    """dR/dq, dR/ddq, dR/du, dR/dt of R = [M ddq + D^T lam - delta; D ddq - gamma], evaluated in C."""
    eq = cached_equations(model)
    jac = ResidualJacobians(eq)
    n, nc, nu = eq.nq, eq.nc, eq.nu
    blocks = {
        "R_q": (jac.flat(jac.R_q), (n + nc, n)),
        "R_dq": (jac.flat(jac.R_dq), (n + nc, n)),
        "R_u": (jac.flat(jac.R_u), (n + nc, nu)),
        "R_t": (list(jac.R_t), (n + nc,)),
    }
    R_q, R_dq, R_u, R_t = CEvaluator(blocks, layout_of(eq))(*random_point(eq, 5))
    args = list(random_point(eq, 5))
    h = 1e-6

    def fd(slot: int, size: int) -> np.ndarray:
        cols = []
        for j in range(size):
            plus = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            minus = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
            if slot == 0:
                plus[0] += h
                minus[0] -= h
            else:
                plus[slot][j] += h
                minus[slot][j] -= h
            cols.append((_residual(eq, plus) - _residual(eq, minus)) / (2 * h))
        return np.array(cols).T.reshape(n + nc, size)

    noise = 1e-14 * np.abs(_residual(eq, args)).max(initial=1.0) / h  # rounding of the differences
    for name, got, want in (
        ("R_q", R_q, fd(1, n)),
        ("R_dq", R_dq, fd(2, n)),
        ("R_u", R_u, fd(3, nu)),
        ("R_t", R_t, fd(0, 1)[:, 0]),
    ):
        scale = 1 + np.abs(want).max(initial=0)
        np.testing.assert_allclose(got, want, atol=1e-6 * scale + noise, err_msg=name)


def test_reserved_names_are_mangled_and_compile():
    """Model names that are C or math.h names (gamma, y1, j0) become private locals; values unchanged."""
    assert not is_safe_c_name("gamma") and not is_safe_c_name("y1") and is_safe_c_name("theta")
    assert {"double", "gamma", "y0", "memset"} <= C_RESERVED
    s = sb.System("mangled")
    gamma = s.parameter("gamma", 2.0)
    y1 = s.parameter("y1", 0.5)
    th = s.coordinate("j0", 0.3)
    B = s.base("B", s.ground_base, sb.Rz(th))
    s.particle("bob", s.point("P", s.origin, (0, -y1, 0), base=B), gamma)
    s.gravity((0, -9.81, 0))
    s.output("double_", gamma * sb.sin(th))
    eq = s.derive()
    src = ModelSource(eq, "both").text
    assert "const double gamma" not in src and "const double y1" not in src
    assert "const double s_gamma" in src and "const double s_y1" in src
    c = compile_evaluator(eq, "M", "delta", "outputs")
    py = evaluator(eq, "M", "delta", "outputs")
    args = (0.0, [0.3], [0.2], [], [2.0, 0.5])
    for a, b in zip(c(*args), py(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-14)


def test_model_source_is_readable_and_warning_free(tmp_path):
    """model.c names blocks and entries after the model and compiles with -Wall -Wextra -pedantic -Werror."""
    eq = cached_equations(str(ROOT / "examples" / "four_bar.py"))
    src = ModelSource(eq, "both").text
    for text in (
        "void sb_M_delta(",
        "M(theta1, theta2)",
        "/* loop_x */",
        "const double s_theta1 = _in->q[0]; /* coordinate theta1 */",
        "mass matrix",
        "[Phi_q | Phi]",
    ):
        assert text in src, text
    (tmp_path / "model.c").write_text(src)
    cmd = ["gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", f"-I{template_dir()}"]
    cmd += ["-c", str(tmp_path / "model.c"), "-o", str(tmp_path / "model.o")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_mass_matrix_is_emitted_once_per_symmetric_pair():
    eq = cached_equations(str(ROOT / "examples" / "n_link_pendulum_on_cart.py"))
    src = ModelSource(eq, "cs").text
    head = "void body_sb_M_delta(" if "void body_sb_M_delta(" in src else "void sb_M_delta("  # with AVX2 clone: its body
    body = src[src.index(head) :]
    body = body[: body.index("\n}\n")]
    n = eq.nq
    assignments = [line for line in body.splitlines() if line.strip().startswith("_M[")]
    assert len(assignments) <= n * (n + 1) // 2
    assert any("_M[1] = _M[4]" in line for line in assignments)
