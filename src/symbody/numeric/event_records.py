"""What a simulation with events returns: each :class:`Event` and the :class:`EventResult` fields.

:mod:`symbody.numeric.events` finds and resolves the events; these are its records.

Example:
    >>> Event(0.451524, "floor", "impact")
    Event(time=0.451524, name='floor', kind='impact')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .results import TimeHistory


@dataclass(frozen=True)
class Event:
    """One event met by the simulation.

    Attributes:
        time: when it happened.
        name: the name of the contact, of the friction element or of the switching function.
        kind: ``"impact"``, ``"close"``, ``"open"`` (contacts), ``"stick"``, ``"slip"`` (friction) or
            ``"switch"`` (a switching function of the loads crossed zero).
        velocity: the gap (or slip) rate before the event (negative: approaching).
        impulse: the impulse the contact took (impacts).
    """

    time: float
    name: str
    kind: str
    velocity: float = field(default=0.0, compare=False)
    impulse: float = field(default=0.0, compare=False)

    def __repr__(self) -> str:
        return f"Event(time={self.time:.6g}, name={self.name!r}, kind={self.kind!r})"


@dataclass(repr=False)
class EventResult(TimeHistory):
    """Extra data of a simulation with events (mixed into the result of :func:`simulate_events`).

    Attributes:
        events: the :class:`Event` list, in time order.
        contact_force: contact forces (``nt x ncontacts``), zero while open; also ``res[name]``.
        closed: which contacts are closed at each output (``nt x ncontacts`` booleans).
        friction_force: stick-slip friction forces along their rates (``nt x nfrictions``); also ``res[name]``.
        slip: slip direction of each friction element at each output (+1, -1; 0 sticking).
    """

    events: list = field(default_factory=list)
    contact_force: np.ndarray | None = None
    closed: np.ndarray | None = None
    friction_force: np.ndarray | None = None
    slip: np.ndarray | None = None

    @property
    def contact_names(self) -> list[str]:
        return [c.name for c in self.eq.contacts]

    @property
    def friction_names(self) -> list[str]:
        return [f.name for f in self.eq.frictions]

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self.contact_names and self.contact_force is not None:
            return self.contact_force[:, self.contact_names.index(name)]
        if name in self.friction_names and self.friction_force is not None:
            return self.friction_force[:, self.friction_names.index(name)]
        return super().__getitem__(name)


__all__ = ["Event", "EventResult"]
