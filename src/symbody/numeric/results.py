"""Named time histories shared by the kinematic, dynamic and inverse-dynamic results.

Every result stores arrays with one row per time and one column per
coordinate, multiplier, input or output, and can be indexed by name::

    res["theta"], res["dtheta"], res["ddtheta"]   # coordinate, velocity, acceleration
    res["F"]                                      # an input
    res["i"], res["der(i)"]                       # a first-order state and its rate
    res["C_x"]                                    # an output
    res["lambda_loop_x"] or res["loop_x"]         # a multiplier (by symbol or row name)

Example:
    >>> import numpy as np
    >>> import symbody as sb
    >>> s = sb.System("m"); x = s.coordinate("x"); _ = s.particle("p", s.point("P", s.origin, (x, 0, 0)), 1.0)
    >>> eq = s.derive()
    >>> h = TimeHistory(eq, np.array([0.0, 1.0]), np.array([[0.0], [2.0]]), np.array([[2.0], [2.0]]))
    >>> h["x"], h["dx"]
    (array([0., 2.]), array([2., 2.]))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..equations import Equations


@dataclass
class TimeHistory:
    """Time, coordinates, velocities and (optionally) accelerations, multipliers, inputs and outputs.

    Attributes:
        eq: the model's equations (for names and metadata).
        t: times (``nt``).
        q, dq, ddq: coordinates, velocities, accelerations (``nt x nq``).
        lam: multipliers (``nt x nc``), one per row of ``D``.
        u: inputs (``nt x nu``).
        y: model outputs (``nt x ny``); NaN where an output could not be evaluated.
        x, dx: first-order states and their rates (``nt x nx``; ``None`` where not recorded).
    """

    eq: Equations = field(repr=False)
    t: np.ndarray
    q: np.ndarray
    dq: np.ndarray
    ddq: np.ndarray | None = None
    lam: np.ndarray | None = None
    u: np.ndarray | None = None
    y: np.ndarray | None = None
    x: np.ndarray | None = None
    dx: np.ndarray | None = None

    @property
    def coordinate_names(self) -> list[str]:
        return [c.name for c in self.eq.coordinates]

    @property
    def input_names(self) -> list[str]:
        return [u.name for u in self.eq.inputs]

    @property
    def state_names(self) -> list[str]:
        """Names of the first-order states."""
        return [x.name for x in self.eq.states]

    @property
    def output_names(self) -> list[str]:
        return [o.name for o in self.eq.outputs]

    @property
    def multiplier_names(self) -> list[str]:
        return [r.name for r in self.eq.constraint_rows]

    def __len__(self) -> int:
        return len(self.t)

    def __repr__(self) -> str:
        kept = [
            nm for nm, arr in (("ddq", self.ddq), ("lam", self.lam), ("u", self.u), ("y", self.y)) if arr is not None
        ]
        span = f"t = {self.t[0]:g} .. {self.t[-1]:g}" if len(self.t) else "empty"
        return (
            f"{type(self).__name__}({self.eq.name!r}: {len(self.t)} samples, {span}; "
            f"q, dq{''.join(', ' + k for k in kept)}; index by name, e.g. res[{self.coordinate_names[0]!r}])"
        )

    def __getitem__(self, name: str) -> np.ndarray:
        where, i = self.eq.index(name)
        arr = {
            "q": self.q, "dq": self.dq, "ddq": self.ddq, "lam": self.lam, "u": self.u, "y": self.y, "x": self.x,
            "dx": self.dx,
        }.get(where)  # fmt: skip
        if arr is None:
            raise KeyError(f"{name!r} ({where}) is not recorded in this result")
        return arr[:, i]

    def at(self, time: float) -> dict[str, np.ndarray]:
        """The sample nearest to ``time`` as a dict of arrays (``t``, ``q``, ``dq``, ...)."""
        k = int(np.argmin(np.abs(self.t - time)))
        out = {"t": self.t[k], "q": self.q[k], "dq": self.dq[k]}
        for nm in ("ddq", "lam", "u", "y", "x", "dx"):
            a = getattr(self, nm)
            if a is not None:
                out[nm] = a[k]
        return out


__all__ = ["TimeHistory"]
