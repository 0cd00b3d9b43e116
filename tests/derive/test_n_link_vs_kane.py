"""n-link pendulum on a cart: symbody's M and delta against sympy.physics.mechanics' KanesMethod."""

import numpy as np
import pytest
import sympy as sm

from symbody.loader import load_module
from symbody.numeric import NumericModel

from support import EXAMPLES, example


def kane_n_link(n):
    """KanesMethod of the same model (``kane_reference`` in the example file)."""
    return load_module(EXAMPLES / "n_link_pendulum_on_cart.py").kane_reference(n)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_mass_matrix_and_forcing_match_kane(n):
    kane, S = kane_n_link(n)
    args = [S["q"], S["u"], list(S["m"]), list(S["l"]), S["g"], S["T"], S["F"]]
    f = sm.lambdify(args, [kane.mass_matrix, kane.forcing])
    eq = example("n_link_pendulum_on_cart", n=n).derive()
    rng = np.random.default_rng(n)
    for _ in range(20):
        qv, uv = rng.uniform(-3, 3, n + 1), rng.uniform(-2, 2, n + 1)
        mv, lv, gv = rng.uniform(0.5, 2, n + 1), rng.uniform(0.5, 2, n), rng.uniform(5, 15)
        Tv, Fv = rng.uniform(-3, 3, n), rng.uniform(-3, 3)
        Mk, fk = f(qv, uv, mv, lv, gv, Tv, Fv)
        p = {f"m{i}": mv[i] for i in range(n + 1)} | {f"l{i}": lv[i] for i in range(n)} | {"g": gv}
        u = {"F": Fv} | {f"T{i + 1}": Tv[i] for i in range(n)}
        nm = NumericModel(eq, p)
        M, d = nm.M_delta(qv, uv, t=0.0, u=[u[x.name] for x in eq.inputs])
        np.testing.assert_allclose(M, np.asarray(Mk, float), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(d, np.asarray(fk, float).ravel(), rtol=1e-9, atol=1e-9)
