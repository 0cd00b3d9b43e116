"""The derivation of a system: every field of its :class:`symbody.Equations`.

:func:`derive_fields` runs the model checks, derives ``M`` and ``delta`` (:mod:`symbody.derive.formulation`),
the constraint rows (:mod:`symbody.derive.constraints`), the energies (:mod:`symbody.derive.energy`) and copies the
metadata (:mod:`symbody.derive.records`); :func:`symbody.equations.derive_equations` builds the
``Equations`` from them and runs :func:`symbody.derive.checks.check_equations`.

Example:
    >>> from symbody.models import pendulum
    >>> fields = derive_fields(pendulum())
    >>> fields["M"], fields["formulation"]
    ([[1]], 'virtual_power')
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..model.contacts import contact_equations
from ..model.friction import friction_equations
from ..model.shapes import describe_geometry
from ..symbolic.nonsmooth import switching_functions
from .checks import check_system
from .constraints import constraint_rows
from .energy import kinetic_energy, potential_energy
from .formulation import mass_and_forces
from .progress import Progress, progress_reporter
from .records import (
    coordinate_records,
    input_records,
    joint_records,
    output_records,
    parameter_records,
    state_records,
)

if TYPE_CHECKING:
    from ..model.system import System


def derive_fields(
    system: System, progress: bool | Progress | None = None, check: bool = True, formulation: str = "auto"
) -> dict[str, Any]:
    """The fields of the :class:`symbody.Equations` of ``system``, by name.

    ``formulation``: ``"recursive"``, ``"virtual_power"``, ``"articulated"`` or ``"auto"`` (see
    :mod:`symbody.derive.formulation`); ``check=False`` skips the model checks.
    """
    t0 = time.perf_counter()
    if check:
        check_system(system)
    report, close = progress_reporter(progress)
    try:
        dyn = mass_and_forces(system, report, formulation)
    finally:
        close()
    M, delta = dyn.M, dyn.delta
    rows = constraint_rows(system)
    n_atoms = system.ctx.n_atoms  # the equations of motion only: energies and plans add atoms later
    V, Q_np, np_loads = potential_energy(system)
    fields: dict[str, Any] = {
        "name": system.name,
        "description": system.description,
        "formulation": dyn.used,
        "ctx": system.ctx,
        "t": system.t,
        "q": [c.q for c in system.coordinates],
        "dq": [c.dq for c in system.coordinates],
        "ddq": [c.ddq for c in system.coordinates],
        "parameters": parameter_records(system),
        "coordinates": coordinate_records(system),
        "inputs": input_records(system),
        "states": state_records(system),
        "rates": [x.rate for x in system.states.values()],
        "outputs": output_records(system),
        "joints": joint_records(system),
        "M": M,
        "delta": delta,
        "accelerations": dyn.accelerations,
        "pivots": dyn.pivots,
        "accelerations_method": dyn.direct,
        **vars(rows),
        "n_atoms": n_atoms,
        "kinetic_energy": kinetic_energy(system, M),
        "potential_energy": V,
        "nonpotential_forces": Q_np,
        "nonpotential_loads": np_loads,
        "contacts": contact_equations(system),  # the events of a simulation: contacts, friction, switching loads
        "frictions": friction_equations(system),
        # (a kink in a constraint is one of the motion: its acceleration-level rows switch with the loads)
        "switches": switching_functions([*delta, *rows.Phi, *rows.beta, *rows.gamma, *(e for r in rows.D for e in r)]),
        "elements": [(getattr(e, "kind", type(e).__name__.lower()), name) for name, e in system.elements.items()],
    }
    fields["derive_seconds"] = time.perf_counter() - t0
    fields["geometry"] = describe_geometry(system)  # drawing only: not part of the equations nor of their timing
    return fields


__all__ = ["derive_fields"]
