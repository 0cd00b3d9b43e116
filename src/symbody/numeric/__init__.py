"""Numerical analyses on derived equations (the numeric templates of 3D_MEC_MATLAB).

Every analysis takes an :class:`~symbody.Equations` (bound to its default
parameters, or to ``p=``) or a :class:`NumericModel`, returns a structured
result and raises :class:`symbody.NumericalError` when it fails.

=============================  ==========================================================
kinematics                     :func:`assemble`, :func:`solve_velocities`,
                               :func:`solve_accelerations`, :func:`kinematic_simulation`
forward dynamics               :func:`simulate` (Baumgarte, projection, independent
                               coordinates; scipy methods and fixed-step RK4)
energy                         :func:`energy`, :func:`kinetic_energy`, :func:`potential_energy`,
                               :func:`exact_potential_energy`
inverse dynamics, reactions    :func:`inverse_dynamics`, :func:`joint_reactions`
static equilibrium             :func:`static_equilibrium`
linearization                  :func:`linearize` (``M, C, K, B`` and state space ``A, B, C, D``)
modes                          :func:`modal_analysis`
=============================  ==========================================================
"""

from .assembly import AssemblyResult, HeldCoordinateWarning, assemble
from .dynamics import FORMULATIONS, SimulationResult, simulate
from .energy import EnergyResult, energy, exact_potential_energy, is_conservative, kinetic_energy, potential_energy
from .equilibrium import EquilibriumResult, NonIsolatedEquilibriumWarning, static_equilibrium
from .event_records import Event
from .event_simulation import ContactSimulationResult, simulate_events
from .inputs import Sampled
from .inverse import InverseDynamicsResult, JointReaction, inverse_dynamics, joint_reactions
from .kinematics import (
    KinematicResult,
    LinearKinematicsResult,
    kinematic_simulation,
    solve_accelerations,
    solve_velocities,
)
from .linearize import LinearModel, SecondOrder, StateSpace, linearize
from .model import NumericModel
from .modes import ModalResult, modal_analysis
from .results import TimeHistory

__all__ = [
    "NumericModel",
    "assemble",
    "AssemblyResult",
    "HeldCoordinateWarning",
    "solve_velocities",
    "solve_accelerations",
    "LinearKinematicsResult",
    "kinematic_simulation",
    "KinematicResult",
    "simulate",
    "SimulationResult",
    "simulate_events",
    "ContactSimulationResult",
    "Event",
    "FORMULATIONS",
    "Sampled",
    "energy",
    "EnergyResult",
    "kinetic_energy",
    "potential_energy",
    "exact_potential_energy",
    "is_conservative",
    "TimeHistory",
    "inverse_dynamics",
    "InverseDynamicsResult",
    "joint_reactions",
    "JointReaction",
    "static_equilibrium",
    "EquilibriumResult",
    "NonIsolatedEquilibriumWarning",
    "linearize",
    "LinearModel",
    "StateSpace",
    "SecondOrder",
    "modal_analysis",
    "ModalResult",
]
