"""Where the smooth analyses stop: unilateral contacts and stick-slip friction outside the simulation.

Static equilibrium, linearization and modal analysis work on the smooth equations of motion: a
unilateral contact exerts nothing there and a stick-slip element is absent.  That is right while
every contact is open (its gap positive) and no stick-slip element is in the model; otherwise the
answer would silently ignore a force.  :func:`require_smooth` refuses those cases with a
:class:`~symbody.errors.ModelError` naming the contact or element:

- a state that penetrates a contact (gap below ``-tol``), for every analysis;
- a state at a contact (``|gap| <= tol``: it may carry a force), for linearization and modes;
- a stick-slip element, for linearization and modes (dry friction has no linearization).

A static equilibrium resting on a contact is found by holding the coordinate that closes it
(``fixed=...``): the holding force is the contact force.

Example:
    >>> import symbody as sb
    >>> from symbody.numeric import NumericModel
    >>> s = sb.System("ball"); y = s.coordinate("y", 0.0)
    >>> _ = s.particle("b", s.point("P", s.origin, (0, y, 0)), 1.0)
    >>> _ = s.unilateral("floor", y)
    >>> try:
    ...     require_smooth(NumericModel(s.derive()), [0.0], 0.0, "linearization")
    ... except sb.ModelError as e:
    ...     print(str(e).split(",")[0])
    linearization of 'ball': the state is at unilateral contact 'floor' (gap 0)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..codegen.evaluators import evaluator
from ..errors import ModelError
from ..model.contacts import contact_blocks
from .model import NumericModel

#: gaps within this distance of zero are at the contact
GAP_TOL = 1e-8


def require_smooth(nm: NumericModel, q: Any, t: float, analysis: str, at_contact: bool = False, u: Any = None) -> None:
    """Refuse an analysis whose smooth equations would ignore a contact or friction force (module docstring).

    Args:
        nm: the numeric model.
        q: the coordinates of the state analysed.
        t: its time.
        analysis: the analysis' name, for the message (``"linearization"``, ``"modal analysis"``, ...).
        at_contact: whether a state at a contact (``|gap| <= tol``) and stick-slip elements are accepted
            (static equilibrium: a found equilibrium at zero gap needs no contact force).
        u: the inputs (default: the model's), whose motion inputs may move the gaps.

    Raises:
        ModelError: the state penetrates a contact, or touches one, or the model has stick-slip friction
            (the last two unless ``at_contact``).
    """
    eq = nm.eq
    frictions = list(eq.frictions)
    if frictions and not at_contact:
        raise ModelError(
            f"{analysis} of {eq.name!r}: stick-slip friction {frictions[0].name!r} has no linear model (it sticks "
            "or slides); simulate the model"
        )
    contacts = list(eq.contacts)
    if not contacts:
        return
    qq = np.asarray(q, dtype=float).reshape(-1)
    gaps = evaluator(eq, "gap", extra={"gap": contact_blocks(contacts, eq.nq)["gap"]})(
        t, qq, np.zeros(eq.nq), eq.u0 if u is None else u, nm.p
    )[0]
    for c, g in zip(contacts, gaps):
        if g < -GAP_TOL:
            raise ModelError(
                f"{analysis} of {eq.name!r}: the state penetrates unilateral contact {c.name!r} (gap {g:.3g})"
            )
        if abs(g) <= GAP_TOL and not at_contact:
            raise ModelError(
                f"{analysis} of {eq.name!r}: the state is at unilateral contact {c.name!r} (gap {g:.3g}), whose force "
                f"the {analysis} does not hold; simulate the model"
            )


__all__ = ["require_smooth", "GAP_TOL"]
