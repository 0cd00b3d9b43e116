"""Controllers that become native FMUs: what :func:`symbody.controller_fmu` accepts, and their laws.

The crane workflow's controllers, each turned into a :class:`ControlLaw` (the coefficients and
variables of ``fmu_templates/sbc_controller.h``):

* a state-feedback gain ``u = u_ref - K (x - x_ref)``: a :class:`StateFeedback`, or the gain
  matrix itself (``control.lqr``'s ``K``);
* a python-control ``StateSpace`` or ``TransferFunction``, continuous (integrated exactly over each
  communication step with the input held: the zero-order hold) or discrete (sampled at its own
  ``dt`` inside ``doStep``), acting on deviations from an operating point:
  ``y = y_ref + C x + D (u - u_ref)``;
* a discrete :class:`PID` with a derivative filter, output limits and back-calculation
  anti-windup;
* an :class:`InputShaper` (zero vibration, ZV, and its robust ZVD variant, or any impulse train).

Every coefficient the law uses becomes an FMU parameter, except the entries of ``A``, ``B``, ``C``,
``D`` (and ``K``) that are zero at export: they are structural zeros, so that the feedthrough the FMU
declares (``ModelStructure``) stays true whatever the parameters are set to.  The references
(``x_ref``, ``u_ref``, a PID's set point) are parameters named ``<variable>_ref``, or inputs of the
same names with ``references="inputs"``.

Example:
    >>> import numpy as np
    >>> law = control_law(np.array([[2.0, 0.5]]), ["x", "dx"], ["F"])
    >>> [p.name for p in law.parameters]
    ['K[F,x]', 'K[F,dx]', 'x_ref', 'dx_ref', 'F_ref']
    >>> law.feedthrough
    [[True, True]]
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import ExportError

#: Most states, inputs or outputs a controller FMU's runtime takes (fixed-size work arrays).
MAX_SIGNALS = 64
REFERENCES = ("parameters", "inputs")


@dataclass(frozen=True)
class StateFeedback:
    """The state-feedback law ``u = u_ref - K (x - x_ref)``.

    Args:
        K: gain matrix, one row per commanded variable, one column per measured one.
        x_ref, u_ref: the operating point (default zero): parameters of the FMU, or inputs with
            ``controller_fmu(..., references="inputs")``.

    Example:
        >>> StateFeedback([[1.0, 2.0]], x_ref=[0.5, 0.0]).x_ref
        (0.5, 0.0)
    """

    K: Sequence[Sequence[float]] | np.ndarray
    x_ref: Sequence[float] | None = None
    u_ref: Sequence[float] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "x_ref", None if self.x_ref is None else tuple(float(v) for v in self.x_ref))
        object.__setattr__(self, "u_ref", None if self.u_ref is None else tuple(float(v) for v in self.u_ref))


@dataclass(frozen=True)
class PID:
    """A discrete PID controller sampling every ``sample_time`` seconds, ``e = reference - measurement``.

    At each sample ``k``: ``D_k = (tf D_k-1 + kd (e_k - e_k-1)) / (tf + Ts)`` (backward Euler of
    ``kd s / (tf s + 1)``, no derivative kick at the first sample), ``v_k = kp e_k + I_k + D_k``,
    the output ``u_k = min(max(v_k, u_min), u_max)`` held until the next sample, and
    ``I_k+1 = I_k + Ts (ki e_k + kt (u_k - v_k))`` (forward Euler with back-calculation
    anti-windup: K. J. Astrom and T. Hagglund, "Advanced PID Control", ISA, 2006, section 3.5).

    Args:
        kp, ki, kd: proportional, integral and derivative gains.
        sample_time: the sampling period ``Ts`` (s).
        tf: time constant of the derivative filter (s, default 0: no filter).
        kt: anti-windup gain (1/s); default ``1 / sqrt(Ti Td)`` with ``Ti = kp / ki``, ``Td = kd / kp``
            (``1 / Ti`` without derivative action; Astrom and Hagglund's rule), 0 without integral action.
        u_min, u_max: output limits (infinite: none; exported as the largest double, which XML can hold).
        reference: the set point (a parameter, or an input with ``references="inputs"``).

    Example:
        >>> PID(2.0, 1.0, 0.5, sample_time=0.01).anti_windup_gain  # 1 / sqrt(2 * 0.25)
        1.414213562373095
    """

    kp: float
    ki: float = 0.0
    kd: float = 0.0
    sample_time: float = 0.0
    tf: float = 0.0
    kt: float | None = None
    u_min: float = -math.inf
    u_max: float = math.inf
    reference: float = 0.0

    @property
    def anti_windup_gain(self) -> float:
        if self.kt is not None:
            return float(self.kt)
        if self.ki == 0 or self.kp == 0:
            return 0.0
        ti = self.kp / self.ki
        td = self.kd / self.kp
        return 1.0 / math.sqrt(abs(ti * td)) if td != 0 else 1.0 / abs(ti)


@dataclass(frozen=True)
class InputShaper:
    """An input shaper: ``y(t) = sum_i amplitudes[i] u(t - times[i])``.

    ``initial`` is the input before the start time (a command already at its target at the start is
    shaped as a step from ``initial``).  :meth:`zv` and :meth:`zvd` give the zero-vibration shapers of
    a mode (N. C. Singer and W. P. Seering, "Preshaping command inputs to reduce system vibration",
    J. Dyn. Sys., Meas., Control 112, 1990).

    Example:
        >>> s = InputShaper.zv(2 * math.pi / 3.6)
        >>> [round(t, 12) for t in s.times], s.amplitudes
        ([0.0, 1.8], (0.5, 0.5))
    """

    times: Sequence[float]
    amplitudes: Sequence[float]
    initial: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "times", tuple(float(t) for t in self.times))
        object.__setattr__(self, "amplitudes", tuple(float(a) for a in self.amplitudes))

    @classmethod
    def zv(cls, omega: float, zeta: float = 0.0, initial: float = 0.0) -> InputShaper:
        """The ZV shaper of a mode of natural frequency ``omega`` (rad/s) and damping ratio ``zeta``."""
        k, half = _mode(omega, zeta)
        return cls((0.0, half), (1 / (1 + k), k / (1 + k)), initial)

    @classmethod
    def zvd(cls, omega: float, zeta: float = 0.0, initial: float = 0.0) -> InputShaper:
        """The ZVD shaper (also zero derivative of the residual vibration with respect to ``omega``)."""
        k, half = _mode(omega, zeta)
        s = (1 + k) ** 2
        return cls((0.0, half, 2 * half), (1 / s, 2 * k / s, k * k / s), initial)


def _mode(omega: float, zeta: float) -> tuple[float, float]:
    if not (omega > 0 and math.isfinite(omega)) or not (0 <= zeta < 1):
        raise ExportError(f"an input shaper needs omega > 0 and 0 <= zeta < 1, got omega={omega}, zeta={zeta}")
    root = math.sqrt(1 - zeta * zeta)
    return math.exp(-zeta * math.pi / root), math.pi / (omega * root)


# ------------------------------------------------------------------------------------------- the law


@dataclass
class LawParameter:
    """A parameter of a controller FMU: the coefficient ``slot`` it sets (times ``scale``)."""

    name: str
    slot: int
    value: float
    description: str
    unit: str | None = None
    fixed: bool = False
    min: float = -math.inf
    max: float = math.inf
    scale: float = 1.0


@dataclass
class ControlLaw:
    """A controller as the runtime sees it (see ``fmu_templates/sbc_controller.h``).

    ``inputs`` and ``outputs`` are the measured and commanded variables; ``references`` the
    parameters that become inputs with ``references="inputs"``; ``feedthrough[i][j]`` whether output
    ``i`` depends on input ``j`` at the same instant (references follow the input they offset).
    """

    kind: str  # "linear", "pid" or "shaper"
    name: str
    description: str
    inputs: list[str]
    outputs: list[str]
    nx: int
    sample_time: float
    coefficients: list[float]
    parameters: list[LawParameter]
    feedthrough: list[list[bool]]
    reference_of: dict[str, int] = field(default_factory=dict)  # reference name -> input k (>= 0) or output -1-k
    units: dict[str, str | None] = field(default_factory=dict)  # units of the inputs and outputs


def _matrix(value, rows: int | None, cols: int | None, what: str) -> np.ndarray:
    try:
        m = np.atleast_2d(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise ExportError(f"{what} is not a matrix of numbers") from None
    if m.ndim != 2 or (rows is not None and m.shape[0] != rows) or (cols is not None and m.shape[1] != cols):
        raise ExportError(f"{what} has shape {m.shape}, expected ({rows}, {cols})")
    if not np.all(np.isfinite(m)):
        raise ExportError(f"{what} has entries that are not finite")
    return m


def _vector(value, n: int, what: str) -> list[float]:
    if value is None:
        return [0.0] * n
    v = np.asarray(value, dtype=float).reshape(-1)
    if v.size != n or not np.all(np.isfinite(v)):
        raise ExportError(f"{what} must be {n} finite numbers, got {list(v)}")
    return [float(x) for x in v]


def quotient_unit(numerator: str | None, denominator: str | None) -> str | None:
    """The unit ``numerator / denominator`` in symbody's unit syntax, or None where either is unknown.

    Example:
        >>> quotient_unit("N", "m/s"), quotient_unit("N", "rad"), quotient_unit("N", None)
        ('N/m.s', 'N/rad', None)
    """
    if not numerator or not denominator:
        return None
    if denominator == "1":
        return numerator
    flipped = "".join({"/": ".", ".": "/", "*": "/"}.get(ch, ch) for ch in denominator)
    return f"{'1' if numerator == '1' else numerator}/{flipped}"


def _linear(A, B, C, D, dt: float, inputs, outputs, units, gain_names: str, u_ref=None, y_ref=None) -> ControlLaw:
    """The linear law ``y = y_ref + C x + D (u - u_ref)``; ``gain_names="K"`` names ``-D`` as ``K[out,in]``."""
    nx, nu, ny = A.shape[0], len(inputs), len(outputs)
    coefficients: list[float] = []
    parameters: list[LawParameter] = []

    def block(M: np.ndarray, label: str, row_names, col_names, row_units, col_units, scale: float = 1.0) -> None:
        for i in range(M.shape[0]):
            for j in range(M.shape[1]):
                value = float(M[i, j])
                if value != 0.0:
                    name = f"{label}[{row_names[i]},{col_names[j]}]"
                    unit = quotient_unit(row_units[i], col_units[j])
                    what = f"{'gain' if label == 'K' else label + ' entry'} of {row_names[i]} on {col_names[j]}"
                    parameters.append(LawParameter(name, len(coefficients), value / scale, what, unit, scale=scale))
                coefficients.append(value)

    states = [str(k + 1) for k in range(nx)]
    in_units = [units.get(n) for n in inputs]
    out_units = [units.get(n) for n in outputs]
    none = [None] * nx
    block(A, "A", states, states, none, none)
    block(B, "B", states, inputs, none, in_units)
    block(C, "C", outputs, states, out_units, none)
    if gain_names == "K":
        block(D, "K", outputs, inputs, out_units, in_units, scale=-1.0)
    else:
        block(D, "D", outputs, inputs, out_units, in_units)
    reference_of = {}
    points = ((inputs, _vector(u_ref, nu, "u_ref"), True), (outputs, _vector(y_ref, ny, "y_ref"), False))
    for names, start, offsets in points:
        for k, n in enumerate(names):
            ref = f"{n}_ref"
            what = "operating point of input " if offsets else "operating point of output "
            parameters.append(LawParameter(ref, len(coefficients), start[k], what + n, units.get(n)))
            reference_of[ref] = k if offsets else -1 - k
            coefficients.append(start[k])
    feedthrough = [[bool(D[i, j] != 0.0) for j in range(nu)] for i in range(ny)]
    return ControlLaw("linear", "", "", list(inputs), list(outputs), nx, dt, coefficients, parameters, feedthrough,
                      reference_of)


def _state_space(sys) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """``(A, B, C, D, dt)`` of a python-control StateSpace or TransferFunction (converted with control.ss)."""
    if not all(hasattr(sys, a) for a in ("A", "B", "C", "D")):
        try:
            import control

            sys = control.ss(sys)
        except Exception as e:  # noqa: BLE001 - python-control raises several types for what it cannot realize
            raise ExportError(f"cannot realize the transfer function as a state space: {e}") from None
    dt = getattr(sys, "dt", 0)
    if dt is True:
        raise ExportError("the discrete system has no sample time (dt=True): give it one, e.g. control.c2d(sys, 0.01)")
    dt = 0.0 if dt is None else float(dt)
    if not (dt >= 0 and math.isfinite(dt)):
        raise ExportError(f"the system's sample time {dt} must be a positive number (or 0: continuous)")
    A = _matrix(sys.A, None, None, "A")
    nx = A.shape[0] if A.size else 0
    A = A.reshape(nx, nx)
    B, C, D = (np.atleast_2d(np.asarray(M, dtype=float)) for M in (sys.B, sys.C, sys.D))
    nu, ny = D.shape[1], D.shape[0]
    return A, B.reshape(nx, nu), C.reshape(ny, nx), _matrix(D, ny, nu, "D"), dt


def _pid(pid: PID, inputs, outputs, units) -> ControlLaw:
    if len(inputs) != 1 or len(outputs) != 1:
        raise ExportError(f"a PID has one input and one output, got inputs={inputs}, outputs={outputs}")
    if not (pid.sample_time > 0 and math.isfinite(pid.sample_time)):
        raise ExportError(f"a PID needs a positive sample_time, got {pid.sample_time}")
    if not pid.u_min <= pid.u_max:
        raise ExportError(f"the PID's output limits are crossed: u_min = {pid.u_min} > u_max = {pid.u_max}")
    u, y = inputs[0], outputs[0]
    uu, yu = units.get(u), units.get(y)
    table = [
        ("kp", pid.kp, "proportional gain", quotient_unit(yu, uu), 0.0),
        ("ki", pid.ki, "integral gain", quotient_unit(yu, f"{uu}.s") if uu else None, -math.inf),
        ("kd", pid.kd, "derivative gain", quotient_unit(f"{yu}.s", uu) if yu else None, -math.inf),
        ("tf", pid.tf, "time constant of the derivative filter", "s", 0.0),
        ("kt", pid.anti_windup_gain, "anti-windup (back-calculation) gain", "1/s", 0.0),
        ("u_min", pid.u_min, "lower output limit", yu, -math.inf),
        ("u_max", pid.u_max, "upper output limit", yu, -math.inf),
        (f"{u}_ref", pid.reference, f"set point of {u}", uu, -math.inf),
    ]
    parameters = []
    for slot, (name, value, what, unit, low) in enumerate(table):
        value = float(value)
        if name in ("u_min", "u_max") and math.isinf(value):  # no limit: the largest double (XML has no inf)
            value = math.copysign(sys.float_info.max, value)
        if not math.isfinite(value):
            raise ExportError(f"the PID's {name} = {value} is not finite")
        if value < low:
            raise ExportError(f"the PID's {name} = {value} must be at least {low}")
        parameters.append(LawParameter(name, slot, value, what, unit, min=-math.inf if name == "kp" else low))
    law = ControlLaw("pid", "", "", [u], [y], 0, float(pid.sample_time), [p.value for p in parameters], parameters,
                     [[True]], {f"{u}_ref": 0})
    return law


def _shaper(shaper, inputs, outputs, units) -> ControlLaw:
    if len(inputs) != 1 or len(outputs) != 1:
        raise ExportError(f"an input shaper has one input and one output, got inputs={inputs}, outputs={outputs}")
    times = [float(t) for t in shaper.times]
    amplitudes = [float(a) for a in shaper.amplitudes]
    if not times or len(times) != len(amplitudes):
        raise ExportError(f"an input shaper needs as many impulse times as amplitudes, got {times}, {amplitudes}")
    if not all(math.isfinite(t) and t >= 0 for t in times) or not all(math.isfinite(a) for a in amplitudes):
        raise ExportError(f"the shaper's impulse times must be finite and >= 0, its amplitudes finite: {times}")
    n = len(times)
    unit = units.get(inputs[0])
    params = [LawParameter(f"a[{i + 1}]", i, a, f"amplitude of impulse {i + 1}") for i, a in enumerate(amplitudes)]
    params += [
        LawParameter(f"t[{i + 1}]", n + i, t, f"delay of impulse {i + 1}", "s", fixed=True, min=0.0)
        for i, t in enumerate(times)
    ]
    initial = float(getattr(shaper, "initial", 0.0))
    params.append(LawParameter("initial", 2 * n, initial, f"{inputs[0]} before the start time", unit, fixed=True))
    coefficients = [*amplitudes, *times, initial]
    return ControlLaw("shaper", "", "", list(inputs), list(outputs), 0, 0.0, coefficients, params, [[True]])


def control_law(
    controller,
    inputs: Sequence[str],
    outputs: Sequence[str],
    units: dict[str, str | None] | None = None,
) -> ControlLaw:
    """The :class:`ControlLaw` of a controller (see the module docstring for what is accepted).

    Raises:
        ExportError: an unknown controller, sizes that do not match ``inputs`` and ``outputs``,
            non-finite coefficients, or more than :data:`MAX_SIGNALS` states, inputs or outputs.
    """
    inputs, outputs, units = list(inputs), list(outputs), dict(units or {})
    if isinstance(controller, PID):
        law = _pid(controller, inputs, outputs, units)
    elif isinstance(controller, InputShaper) or (hasattr(controller, "times") and hasattr(controller, "amplitudes")):
        law = _shaper(controller, inputs, outputs, units)
    elif isinstance(controller, StateFeedback) or isinstance(controller, (np.ndarray, list, tuple)):
        fb = controller if isinstance(controller, StateFeedback) else StateFeedback(controller)
        K = _matrix(fb.K, len(outputs), len(inputs), "the gain K (rows: outputs, columns: inputs)")
        empty = np.zeros((0, 0))
        law = _linear(
            empty, np.zeros((0, len(inputs))), np.zeros((len(outputs), 0)), -K, 0.0, inputs, outputs, units, "K",
            fb.x_ref, fb.u_ref,
        )
    elif hasattr(controller, "A") or hasattr(controller, "num"):
        A, B, C, D, dt = _state_space(controller)
        if D.shape != (len(outputs), len(inputs)):
            raise ExportError(
                f"the system has {D.shape[1]} inputs and {D.shape[0]} outputs; {len(inputs)} inputs and "
                f"{len(outputs)} outputs were named"
            )
        law = _linear(A, B, C, D, dt, inputs, outputs, units, "D")
    else:
        raise ExportError(
            f"cannot export a controller of type {type(controller).__name__}: use a gain matrix, "
            "symbody.StateFeedback, a python-control StateSpace or TransferFunction, symbody.PID or "
            "symbody.InputShaper"
        )
    law.units = {n: units.get(n) for n in [*law.inputs, *law.outputs]}
    too_many = max(law.nx, len(law.inputs), len(law.outputs))
    if too_many > MAX_SIGNALS:
        raise ExportError(f"a controller FMU takes at most {MAX_SIGNALS} states, inputs and outputs, not {too_many}")
    return law
