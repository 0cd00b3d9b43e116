"""``symbody simulate`` runs FMUs through fmpy, whose FMI 2 message proxy is process-wide.

A run that handed fmpy its own logger left the proxy pointing at a callback freed with the run:
the next FMI 2 instance of the process that logged a message crashed the process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import gc, math
    import fmpy
    from fmpy import instantiate_fmu, read_model_description, extract
    from symbody.fmu.run import simulate
    from symbody.fmu.testing import cached_fmu, fmu_simulation

    fmu = cached_fmu(r"{model}", 2, "cs")
    for _ in range(2):
        {run}   # a run that hands fmpy a logger
    gc.collect()
    md = read_model_description(str(fmu))
    inst = instantiate_fmu(extract(str(fmu)), md, "CoSimulation")  # fmpy's default callbacks
    vr = {{v.name: v.valueReference for v in md.modelVariables}}
    inst.setupExperiment(startTime=0.0)
    inst.enterInitializationMode()
    try:
        inst.setReal([vr["solver.step"]], [math.nan])  # refused: the FMU logs an error message
    except Exception as e:
        print("refused:", type(e).__name__)
    print("alive")
    """
)


RUNS = {
    "symbody simulate": "simulate(fmu, stop_time=0.05, interval=0.01)",
    "fmu_simulation": "fmu_simulation(fmu, 0.05, 0.01, logger=lambda *a: None)",
}


@pytest.mark.parametrize("run", RUNS)
def test_fmi2_messages_after_a_run_with_a_logger_do_not_crash_the_process(run):
    script = SCRIPT.format(model=ROOT / "examples" / "simple_pendulum.py", run=RUNS[run])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "alive" in done.stdout
    assert "refused" in done.stdout
