"""The flights of the contacts as the Model Exchange impact law sees them (the importer's steps in each flight,
``sb_error_free_rate``), FMI 2 and 3:

* a host that never calls ``CompletedIntegratorStep`` (the FMU declares it not needed) ends each of its steps at
  the time it advances to: an accumulation of impacts under explicit Euler ends as in a host that calls it;
* the records of the flights are part of the FMU state: a state taken in flight and set back (serialized) gives
  the same trajectory again.
"""

from __future__ import annotations

import struct
import sys

import numpy as np
import pytest
from fmpy.fmi1 import FMICallException

from symbody.fmu import export_fmu
from symbody.fmu.testing import FmuSession
from symbody.numeric.event_laws import FLIGHT_STEPS

from support.contact_models import G, ball_impacts, ball_rest, bouncing_ball
from support.event_masters import ModelExchange, Run

H0, M = 1.0, 2.0
VERSIONS = pytest.mark.parametrize("version", (2, 3))


@pytest.fixture(scope="module")
def ball(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ball_flights")
    return {v: export_fmu(bouncing_ball(H0, 0.8, M), folder / f"ball{v}.fmu", fmi_version=v) for v in (2, 3)}


def rest_time(run: Run) -> float:
    """The last time the ball moves or the contact is open."""
    moving = np.flatnonzero((run["N"] == 0.0) | (np.abs(run["dy"]) > 1e-9))
    return float(run.time[moving[-1]])


def check_rest(run: Run, e: float, step: float, located: bool) -> float:
    """At rest with the contact force m g after the exact end of the accumulation, to the master's accuracy:
    no earlier than the exact end less the tail of flights too short for it (located events: one step; events at
    step ends: FLIGHT_STEPS steps, those are plastic), no later than a step an impact after it (each flight
    ends up to a step late)."""
    t_exact, t_rest = ball_rest(H0, e), rest_time(run)
    shortest = step if located else FLIGHT_STEPS * step
    assert t_exact - shortest / (1 - e) <= t_rest <= t_exact + (len(run.events) + 1) * step, (t_rest, t_exact)
    rest = run.time > t_rest
    assert rest.any() and np.allclose(run["N"][rest], M * G, rtol=1e-9) and np.all(np.abs(run["y"][rest]) <= 1e-8)
    return t_rest


@VERSIONS
@pytest.mark.parametrize("method", ("euler", "euler_bisection"))
@pytest.mark.parametrize(
    "e, step", [(0.8, 1e-3), (0.8, 1e-2), (0.95, 1e-3), (0.95, 1e-2), pytest.param(0.99, 1e-3, marks=pytest.mark.slow)]
)
def test_an_accumulation_ends_in_a_host_without_completed_integrator_steps(ball, version, method, e, step):
    """Explicit Euler at 1 and 10 ms, events at step ends or located, and no CompletedIntegratorStep: Euler's gain
    of g^2 h^2 a step in v^2 is taken out of each impact from the spans of the times the host advances to (the
    ball bounced until the end of the run: e = 0.8 at 4.77 s, e = 0.95 at 19 s), the rebounds decay as e^k, and
    the ball rests with the contact force m g, as in a host that completes its steps."""
    t_exact = ball_rest(H0, e)
    stop = t_exact * 1.05 + 0.5
    run = ModelExchange(ball[version], {"e": e}, completed_steps=False).run(stop, method, step, ["y", "dy", "N"])
    located = method == "euler_bisection"
    check_rest(run, e, step, located)
    late = 2 if located else 3  # (events at step ends: each impact found up to a step late, and from there)
    assert all(
        0.0 <= te - exact <= late * (k + 1) * step
        for k, (te, exact) in enumerate(zip(run.events, ball_impacts(H0, e, 6)))
    )
    if located:
        rebounds = run["dy"][
            [i for i in range(1, run.time.size) if run.time[i] == run.time[i - 1] and run["dy"][i] > 0]
        ]
        assert len(rebounds) >= 10 and np.allclose(rebounds[1:] / rebounds[:-1], e, rtol=1e-9, atol=0)
    completing = ModelExchange(ball[version], {"e": e}).run(stop, method, step, ["y", "dy", "N"])
    assert np.array_equal(run.time, completing.time) and np.array_equal(run["dy"], completing["dy"])


@VERSIONS
@pytest.mark.parametrize("completed_steps", (True, False), ids=("completing", "not completing"))
@pytest.mark.parametrize("method", ("euler", "euler_bisection"))
def test_a_state_taken_in_flight_gives_the_same_flights_again(ball, version, method, completed_steps):
    """GetFMUState at 1.5 s, in the flight between the impacts at 1.174 and 1.752 s, serialized; the host runs on
    to 5 s, sets the state back and runs again: the same rows, events and rest time, bit for bit.  (Before the
    records of the flights were part of the FMU state, the impacts after the rewind read those the first pass
    left and kept Euler's gain: the second pass bounced on.)"""
    master = ModelExchange(ball[version], completed_steps=completed_steps)
    run = master.run(5.0, method, 1e-3, ["y", "dy", "N"], rewind_at=1.5)
    first = run.first
    assert first is not None and first.time[0] >= 1.5 and len(first.events) >= 5
    assert np.array_equal(first.time, run.time[-first.time.size :]) and first.events == run.events[-len(first.events) :]
    for name in ("y", "dy", "N"):
        assert np.array_equal(first[name], run[name][-first.time.size :]), name
    check_rest(run, 0.8, 1e-3, method == "euler_bisection")


def fnv1a(data: bytes) -> int:
    """The checksum of a serialized state (64-bit FNV-1a, as sb_snapshot.c)."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


@VERSIONS
def test_serialized_states_of_older_formats_or_with_invalid_flights_are_refused(ball, version):
    """Format version 5 carries the flights; bytes of version 4 are an Error that says so, and so are records
    of the importer's steps that no run leaves (a negative count of steps, under a valid checksum)."""
    log: list[str] = []
    s = FmuSession(ball[version], "ModelExchange", logger=lambda *a: log.append(str(a[-1])))
    try:
        s.initialize()
        state = s.get_state()
        data = bytearray(s.serialize(state))
        s.free_state(state)
        assert int.from_bytes(data[4:8], sys.byteorder) == 5
        old = bytearray(data)
        old[4:8] = (4).to_bytes(4, sys.byteorder)
        with pytest.raises(FMICallException):
            s.deserialize(bytes(old))
        assert "format version 4, this FMU reads version 5" in log[-1]
        n_values = (len(data) - 40) // 8  # (header 32 bytes, checksum 8)
        count = 32 + 8 * (n_values - 1 - 10 + 2)  # [..., flight (5 + 5 nk), closed (nk = 1)]: its step count
        assert struct.unpack_from("=d", data, count)[0] == 0.0
        bad = bytearray(data)
        struct.pack_into("=d", bad, count, -1.0)
        bad[-8:] = fnv1a(bytes(bad[:-8])).to_bytes(8, sys.byteorder)
        with pytest.raises(FMICallException):
            s.deserialize(bytes(bad))
        assert "records of the importer's steps in the FMU state are invalid" in log[-1]
        state = s.deserialize(bytes(data))
        s.set_state(state)
        s.free_state(state)
    finally:
        s.close()
