"""A Model Exchange state carried onto the other assembly branch is put back, in an event the FMU asks for.

The slider-crank whose rod is as long as its crank (``tests/models/equal_slider_crank.py``, started at
``a1 = 1.2`` with 3 rad/s) passes its dead point ``a1 = pi/2`` at t = 0.13, where its branch ``a2 = -a1``
(slider at ``x_c = 2 L cos a1``) crosses the branch ``a2 = a1 + pi`` (slider at rest at the pivot).  A master
whose step crosses the dead point with a drift as large as the distance between the branches lands on the other
one (fmpy's CVode at rtol 1e-3 did so).  Here one such step is made by hand, exactly: from the state accepted at
t = 0.05 the master evaluates the derivatives at the dead point and ends its step at t = 0.25 on the other
branch, with the crank angle and speed of the exact motion.  ``CompletedIntegratorStep`` then asks for an event
(``enterEventMode``); in the event the FMU carries the state it kept at 0.05 to 0.25 and re-assembles it: the
exact motion (energy conservation ``J(a1) a1'^2 / 2 = E``, ``test_singular_positions.slider_crank_reference``)
to the accuracy of its carrying steps, on the branch ``a2 = -a1`` to rounding.  A master that goes on without
the event gets an Error.  The kept state is part of the FMU state, and so are the largest norms the constraint rows
have met (which scale them): restored (also serialized) after the master went past the dead point and back, the
check compares with the state kept then, and the state is put back exactly as without the excursion.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import test_singular_positions as sp

from symbody.fmu.run import restore_fmi2_message_proxy
from symbody.fmu.testing import cached_fmu

from support.event_masters import ModelExchange, _ptr

A10 = 1.2
T_KEPT, T_STEP = 0.05, 0.25  # the accepted state kept before the dead point, the end of the step across it
H = 1e-3  # the master's rk4 steps before the jump
CARRY_TOL = 1e-6  # the FMU carries the kept state over 0.2 s by 32 rk4 steps of its own


def reference(t: float) -> tuple[float, float]:
    a, da, _ = sp.slider_crank_reference(np.array([0.0, t]), A10)
    return float(a[-1]), float(da[-1])


def dead_point_time() -> float:
    """The time the reference crosses a1 = pi/2 (bisection on the reference)."""
    lo, hi = T_KEPT, T_STEP
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if reference(mid)[0] < math.pi / 2 else (lo, mid)
    return 0.5 * (lo + hi)


class Hand(ModelExchange):
    """One Model Exchange instance driven by hand: rk4 steps of the master, then the step onto the other branch."""

    def __init__(self, version: int, redundant: bool = False, rod_turned: bool = False):
        options = (("a10", A10),) + ((("redundant", True),) if redundant else ()) + (
            (("rod_turned", True),) if rod_turned else ()
        )
        super().__init__(cached_fmu(sp.SLIDER_CRANK, version, "me", options=options), debug_logging=True)
        self.log: list[str] = []
        self.fmu = self._start(self.log)
        self._event_iteration(self.fmu)
        self.t, self.x, self.calls = 0.0, self._states(self.fmu), [0]

    def close(self) -> None:
        self.fmu.freeInstance()
        restore_fmi2_message_proxy()

    def rk4_to(self, t_end: float) -> None:
        while self.t < t_end - 1e-12:
            h = min(H, t_end - self.t)
            self.x = self._step(self.fmu, self.t, self.x, h, "rk4", self.calls)
            self.t += h
            entered, _ = self._completed(self.fmu)
            assert not entered, self.log[-3:]

    def set(self, t: float, a1: float, a2: float, da1: float, da2: float) -> None:
        """The state (a1, a2, da1, da2); a first-order state rod_turned follows the rod, a2 - a20, as a host
        integrating its rate da2 along this motion has it."""
        self.fmu.setTime(t)
        x = np.array([a1, a2, da1, da2] + [a2 + A10] * (self.nx - 4))
        self.fmu.setContinuousStates(_ptr(x), self.nx)

    def derivatives(self) -> np.ndarray:
        dx = np.zeros(self.nx)
        (self.fmu.getDerivatives if self.version == 2 else self.fmu.getContinuousStateDerivatives)(_ptr(dx), self.nx)
        return dx

    def jump(self) -> bool:
        """The master's step from the kept state to T_STEP: the derivatives at the dead point on the branch, the
        step's end on the other branch (``a2 = a1 + pi``, the rod turning with the crank); returns whether
        CompletedIntegratorStep asked for an event."""
        t_dead = dead_point_time()
        a, da = reference(t_dead)
        self.set(t_dead, a, -a, da, -da)
        self.derivatives()
        a, da = reference(T_STEP)
        self.set(T_STEP, a, a + math.pi, da, da)
        self.t = T_STEP
        return self._completed(self.fmu)[0]

    def event(self) -> tuple[bool, np.ndarray]:
        """The event mode the FMU asked for: whether the continuous states changed, and the states after it."""
        self.fmu.enterEventMode()
        if self.version == 2:
            res = self.fmu.newDiscreteStates()
        else:
            res = self.fmu.updateDiscreteStates()
        changed = bool(res[3])
        self.fmu.enterContinuousTimeMode()
        self.x = self._states(self.fmu)
        return changed, self.x.copy()

    def state(self):
        return self.fmu.getFMUState()

    def restore(self, state) -> None:
        self.fmu.setFMUState(state)

    def serialize(self, state) -> bytes:
        return bytes(self.fmu.serializeFMUState(state))

    def deserialize(self, blob: bytes):
        return self.fmu.deserializeFMUState(blob)


def check_on_the_exact_motion(x: np.ndarray, t: float) -> None:
    a, da = reference(t)
    assert abs(x[0] - a) < CARRY_TOL and abs(x[2] - da) < CARRY_TOL, (x, a, da)
    assert abs(x[1] + x[0]) < 1e-12 and abs(x[3] + x[2]) < 1e-9, x  # a2 = -a1: the slider at 2 L cos a1


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("redundant", [False, True], ids=["", "redundant-row"])
def test_a_state_on_the_other_branch_is_put_back_in_an_event(version, redundant):
    """Also with the guide's row given twice (a row always dependent on the other): the rows that hold clearly
    are counted against the most met (one), so the dependent row does not make every state one next to a
    singular position, which left the check inactive for the whole model."""
    run = Hand(version, redundant)
    try:
        run.rk4_to(T_KEPT)
        assert run.jump(), run.log[-3:]
        said = [m for m in run.log if "an event is requested to put the state back" in m]
        assert said and "constraint row 'guide'" in said[-1] and "between t = 0.05" in said[-1], run.log[-3:]
        changed, x = run.event()
        assert changed
        check_on_the_exact_motion(x, T_STEP)
        put_back = [m for m in run.log if "put back onto the branch of the motion" in m]
        assert put_back and "kept at t = 0.05" in put_back[-1], run.log[-3:]
        run.rk4_to(T_STEP + 0.5)  # and on from there, on the branch, without another event
        a, da = reference(run.t)
        assert abs(run.x[0] - a) < 10 * CARRY_TOL and abs(run.x[1] + run.x[0]) < 1e-9
        assert not any("Error" in m or "error" in m for m in run.log), run.log[-3:]
    finally:
        run.close()


@pytest.mark.parametrize("version", [2, 3])
def test_the_first_order_states_are_put_back_with_the_motion(version):
    """A first-order state integrating the rod's rate (rod_turned = a2 - a20 on the motion): the host's step onto
    the other branch turned the rod by pi + 2 a1 and its integral with it.  The state put back is carried with
    its first-order states from the state kept before the passage: rod_turned = -(a1 - a10) of the exact motion
    (held at the host's value, it was pi + 2 a1 = 6.2 rad off)."""
    run = Hand(version, rod_turned=True)
    try:
        assert run.nx == 5
        run.rk4_to(T_KEPT)
        assert abs(run.x[4] - (run.x[1] + A10)) < 1e-9  # (the host's integral on the branch)
        assert run.jump(), run.log[-3:]
        changed, x = run.event()
        assert changed
        check_on_the_exact_motion(x, T_STEP)
        a, _ = reference(T_STEP)
        assert abs(x[4] + (a - A10)) < CARRY_TOL, (x[4], -(a - A10))
        run.rk4_to(T_STEP + 0.5)  # and on, the integral following the rod
        assert abs(run.x[4] - (run.x[1] + A10)) < 10 * CARRY_TOL
    finally:
        run.close()


@pytest.mark.parametrize("version", [2, 3])
def test_a_master_that_goes_on_without_the_event_gets_an_error(version):
    run = Hand(version)
    try:
        run.rk4_to(T_KEPT)
        assert run.jump()
        with pytest.raises(Exception, match="status 3"):  # the next evaluation, at a later time
            a, da = reference(T_STEP)
            run.set(T_STEP + H, a, a + math.pi, da, da)
            run.derivatives()
        assert any("went on without the event" in m and "tighter tolerance" in m for m in run.log), run.log[-3:]
    finally:
        run.close()
    run = Hand(version)
    try:
        run.rk4_to(T_KEPT)
        assert run.jump()
        with pytest.raises(Exception, match="status 3"):  # another step completed without it
            run._completed(run.fmu)
        assert any("completed another step without the event" in m for m in run.log), run.log[-3:]
    finally:
        run.close()


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("how", ["state", "serialized"])
def test_the_kept_state_is_part_of_the_fmu_state(version, how):
    """Saved at the kept state, the master runs past the dead point on the branch (the check keeps a later state),
    restores and makes the step onto the other branch: the check compares with the state kept at 0.05, as without
    the excursion (before, it compared with the later one and let the other branch pass with OK), and the state
    put back is the same as without the excursion."""
    plain = Hand(version)
    try:
        plain.rk4_to(T_KEPT)
        assert plain.jump()
        _, x_plain = plain.event()
    finally:
        plain.close()
    run = Hand(version)
    other = None
    try:
        run.rk4_to(T_KEPT)
        saved = run.state()
        blob = run.serialize(saved) if how == "serialized" else b""
        run.rk4_to(T_KEPT + 0.4)  # past the dead point: the check keeps the state at 0.45
        if how == "serialized":  # into another instance
            other = Hand(version)
            other.restore(other.deserialize(blob))
            target = other
        else:
            run.restore(saved)
            target = run
        target.t, target.x = T_KEPT, target._states(target.fmu)
        assert target.jump(), target.log[-3:]
        changed, x = target.event()
        assert changed
        # exactly: the largest norms the constraint rows have met, which scale them, are part of the FMU state too
        np.testing.assert_array_equal(x, x_plain)
        check_on_the_exact_motion(x, T_STEP)
    finally:
        run.close()
        if other is not None:
            other.close()


@pytest.mark.parametrize("version", [2, 3])
def test_a_pending_event_request_is_part_of_the_fmu_state(version):
    """A state saved right after CompletedIntegratorStep asked for the event holds the request: restored, the
    event puts the state back as it would have; a master that goes on from it gets the Error."""
    run = Hand(version)
    try:
        run.rk4_to(T_KEPT)
        assert run.jump()
        pending = run.state()
        _, x_first = run.event()
        run.restore(pending)
        changed, x = run.event()
        assert changed
        np.testing.assert_allclose(x, x_first, rtol=0, atol=0)
        run.restore(pending)
        with pytest.raises(Exception, match="status 3"):
            run._completed(run.fmu)
    finally:
        run.close()


KEPT_HEAD = 11  # SB_KEPT_* of sb_runtime.h before q, dq, ddq of the kept state (the last block of this model's state)


#: a value of the serialized slider-crank state, by its offset from the start of the kept state's block (the last
#: block of this model's state), that the checks of a restored state refuse: (offset, value, the message)
CORRUPTIONS = {
    "kept state": (1, 0.5, "the memory of the branch check in the FMU state is invalid"),  # the 'near' mark
    "row norm": (-1, -1.0, "the largest norm -1 of constraint row"),  # the last of the rows' largest norms
}


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("what", CORRUPTIONS)
def test_a_serialized_state_with_an_invalid_memory_is_refused(version, what):
    """The memory of the branch checks and the largest norms the constraint rows have met (the block before it)
    pass the checks of a restored state: a 'near' mark that is neither 0 nor 1, a negative row norm, are refused
    with a message."""
    import struct

    from test_fmu_friction import fnv1a

    offset, value, message = CORRUPTIONS[what]
    run = Hand(version)
    try:
        run.rk4_to(T_KEPT)
        blob = bytearray(run.serialize(run.state()))
        kept = len(blob) - 8 - (KEPT_HEAD + 3 * 2) * 8
        assert struct.unpack_from("<d", blob, kept)[0] == pytest.approx(T_KEPT)  # the time of the kept state
        assert struct.unpack_from("<d", blob, kept + 8)[0] == 0.0  # (kept at 0.05, before the dead point)
        assert struct.unpack_from("<d", blob, kept - 8)[0] > 0.0  # (a squared row norm)
        struct.pack_into("<d", blob, kept + 8 * offset, value)
        struct.pack_into("<Q", blob, len(blob) - 8, fnv1a(bytes(blob[:-8])))  # a valid checksum
        with pytest.raises(Exception, match="error"):
            run.deserialize(bytes(blob))
        assert message in run.log[-1], run.log[-3:]
    finally:
        run.close()
