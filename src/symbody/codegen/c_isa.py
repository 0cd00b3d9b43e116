"""AVX2 clones of the hot generated functions, chosen at run time.

The generated arithmetic of the dynamics is long straight-line scalar code.  Compiled for any x86-64
processor (SSE2), every operation overwrites one of its operands and the compiler adds register copies;
compiled for AVX2, the three-operand (VEX) encoding of the same scalar operations needs none, and the
articulated-body accelerations of the 3-D chain (n = 8) take about a sixth less time
(``benchmarks/bench_chain3d.py``).  An FMU runs on every x86-64 processor, so such a function is written
once, as a ``static inline`` body ``body_<name>``, and compiled twice: the plain function and its clone
``avx2_<name>``
(``target("avx2")``), which the caller takes where the processor has AVX2 (``sb_cpu_avx2()``).  The
macros ``SB_AVX2``, ``SB_INLINE`` and ``sb_cpu_avx2`` are those of ``fmu_templates/symbody_model.h``;
where it does not define ``SB_AVX2`` (compilers other than GCC, other processors or systems,
``-DSB_NO_AVX2``) only the plain function is compiled.

Both give the same values bit for bit: the same IEEE-754 double operations in the same order (AVX2 does
not include FMA, and the ISO C mode of the FMU build contracts no multiply-add; a vectorized statement
computes lane by lane what the scalar ones do).

Example:
    >>> print(avx2_wrappers("SB_MODEL_LOCAL void part1_f(const SbPoint *_in, double *_w)"))
    SB_MODEL_LOCAL void part1_f(const SbPoint *_in, double *_w)
    {
        body_part1_f(_in, _w);
    }
    #ifdef SB_AVX2
    SB_MODEL_LOCAL SB_AVX2 void avx2_part1_f(const SbPoint *_in, double *_w)
    {
        body_part1_f(_in, _w);
    }
    #endif
    <BLANKLINE>
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"[A-Za-z_]\w*")


def _split(signature: str) -> tuple[str, str, str, list[str]]:
    """``(qualifiers before the return type, function name, parameter text, argument names)`` of a
    declarator ``"[qualifiers] void name(params)"``."""
    head, params = signature.split("(", 1)
    params = params.rsplit(")", 1)[0]
    words = _WORD.findall(head)
    name = words[-1]
    qualifiers = head[: head.rindex("void")].strip()
    args = [_WORD.findall(p)[-1] for p in params.split(",") if p.strip() and p.strip() != "void"]
    return qualifiers, name, params, args


def avx2_body(signature: str) -> str:
    """The declarator of the body that the plain function and its clone inline.

    Example:
        >>> avx2_body("static void f(const double *_x, double *_y)")
        'static inline SB_INLINE void body_f(const double *_x, double *_y)'
    """
    _, name, params, _ = _split(signature)
    return f"static inline SB_INLINE void body_{name}({params})"


def _clone(signature: str) -> str:
    qualifiers, name, params, _ = _split(signature)
    return f"{qualifiers} SB_AVX2 void avx2_{name}({params})".lstrip()


def avx2_wrappers(signature: str) -> str:
    """The plain function of ``signature`` and its AVX2 clone, both calling the body."""
    _, name, _, args = _split(signature)
    call = f"{{\n    body_{name}({', '.join(args)});\n}}\n"
    return f"{signature}\n{call}#ifdef SB_AVX2\n{_clone(signature)}\n{call}#endif\n"


def avx2_calls(names: Sequence[str], args: str) -> list[str]:
    """The lines of a function body that call the functions ``names`` in order, their clones where the
    processor has AVX2."""
    out = ["#ifdef SB_AVX2", "    if (sb_cpu_avx2()) {"]
    out += [f"        avx2_{n}({args});" for n in names]
    out += ["    } else", "#endif", "    {"]
    out += [f"        {n}({args});" for n in names]
    return [*out, "    }"]


def avx2_whole(signature: str, doc: str, body: str) -> str:
    """One function of ``signature`` whose ``body`` (the text of :func:`avx2_body`'s function) is compiled
    twice: its AVX2 clone ``static``, the function itself calling the clone or the plain body."""
    from .c import c_comment

    _, name, params, args = _split(signature)
    call = ", ".join(args)
    clone = f"#ifdef SB_AVX2\nstatic SB_AVX2 void avx2_{name}({params})\n{{\n    body_{name}({call});\n}}\n#endif\n"
    head = f"/* {c_comment(doc)} */\n" if doc else ""
    dispatch = (
        f"{{\n#ifdef SB_AVX2\n    if (sb_cpu_avx2()) {{\n        avx2_{name}({call});\n        return;\n    }}\n"
        f"#endif\n    body_{name}({call});\n}}\n"
    )
    return f"{body}{clone}{head}{signature}\n{dispatch}"


__all__ = ["avx2_body", "avx2_calls", "avx2_whole", "avx2_wrappers"]
