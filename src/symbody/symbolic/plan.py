"""Export planning: which atoms become temporaries, in which order.

This is the optimized export of Plaza Puértolas, 2015 (``opt_atom_list``, fig. 3.11): the
atoms reachable from the requested outputs are counted; atoms used once are
inlined into their single user, atoms used more than once become named
temporaries emitted in dependency order.  Negations are always inlined (they
fold into subtractions).  Blocks exported together (e.g. ``[M | delta]``) share
their temporaries.

Example:
    >>> from symbody.symbolic.expr import Context, sin
    >>> ctx = Context(); x = ctx.symbol("x")
    >>> s = sin(x)
    >>> plan = ExportPlan({"f": [s * s + 1, 2 * s]}, {x: "x"})
    >>> [plan.names[t] for t in plan.temps]
    ['t0']
    >>> plan.op_count()
    4
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .expr import NEG, NUM, SYM, Expr
from .opcount import rhs_op_count
from .optimize import expand_trig, optimize_outputs


class ExportPlan:
    """Temporaries and output expressions for a set of named blocks.

    Args:
        blocks: block name -> flat list of expressions (matrices row-major).
        symbol_names: names for the input symbols (printed as given).
        prefix: prefix of temporary names.
        optimize: extract pairs of terms shared by several sums or products first
            (:mod:`symbody.symbolic.optimize`).
        trig: ``"fold"`` keeps ``sin``/``cos`` of sums of angles (fewest operations, the
            size-optimal export whose counts :func:`symbody.codegen.counts.stats` reports);
            ``"expand"`` rewrites them with the addition formulas where that saves
            transcendental calls (fastest code, used by the C and Python emitters).
        hoist: names the nodes computed elsewhere (the parameter-only subexpressions of a constants block,
            :class:`symbody.codegen.constants.ConstantsBlock`): called on every node reached from the outputs
            (after the optimization), it returns the name the code reads the node's value by, or ``None``.  A
            hoisted node is a leaf of the plan, like a symbol: its arguments are not reached through it.

    Attributes:
        temps: nodes emitted as temporaries, in evaluation order.
        names: node -> printed name, for symbols and temporaries.
        outputs: block name -> list of expressions for its slots.
        hoisted: the nodes ``hoist`` named, in the order of their ids.
        inputs: the leaves the plan reads (symbols and hoisted nodes), in the order of their ids.
    """

    def __init__(
        self,
        blocks: Mapping[str, Sequence[Expr]],
        symbol_names: Mapping[Expr, str],
        prefix: str = "t",
        optimize: bool = True,
        trig: str = "fold",
        hoist: Callable[[Expr], str | None] | None = None,
    ):
        self.blocks = {k: list(v) for k, v in blocks.items()}
        if trig not in ("fold", "expand"):
            raise ValueError(f"trig must be 'fold' or 'expand', not {trig!r}")
        if optimize or trig == "expand":
            flat = [e for v in self.blocks.values() for e in v]
            if trig == "expand":
                flat = expand_trig(flat)
            opt = optimize_outputs(flat) if optimize else flat
            k = 0
            for name, v in self.blocks.items():
                self.blocks[name] = opt[k : k + len(v)]
                k += len(v)
        uses: dict[Expr, int] = {}
        nodes: dict[Expr, None] = {}
        hoisted: dict[Expr, str] = {}
        # reachable nodes, stopping at hoisted ones
        stack = [e for v in self.blocks.values() for e in v]
        while stack:
            e = stack.pop()
            if e in nodes:
                continue
            nodes[e] = None
            local = hoist(e) if hoist is not None and e.op not in (SYM, NUM) else None
            if local is not None:
                hoisted[e] = local
            else:
                stack.extend(e.args)
        order = sorted(nodes, key=lambda n: n.id)
        for v in self.blocks.values():
            for e in v:
                if e.op not in (SYM, NUM) and e not in hoisted:
                    uses[e] = uses.get(e, 0) + 1
        temps: list[Expr] = []
        is_temp: set[Expr] = set()
        # parents before children: reverse topological order
        for e in reversed(order):
            if e.op in (SYM, NUM) or e in hoisted:
                continue
            u = uses.get(e, 0)
            t = u >= 2 and e.op != NEG
            if t:
                is_temp.add(e)
                temps.append(e)
            w = 1 if t else u
            for a in e.args:
                if a.op not in (SYM, NUM) and a not in hoisted:
                    uses[a] = uses.get(a, 0) + w
        temps.reverse()
        self.temps = temps
        self.names: dict[Expr, str] = dict(symbol_names)
        self.names.update(hoisted)
        self.hoisted = [e for e in order if e in hoisted]
        self._hoisted_set = set(hoisted)
        self.inputs = [e for e in order if e.op == SYM or e in hoisted]
        for i, e in enumerate(temps):
            self.names[e] = f"{prefix}{i}"
        self.outputs = self.blocks

    @property
    def n_temps(self) -> int:
        return len(self.temps)

    def assignments(self):
        """Yield ``(name, rhs_node)`` for temporaries in evaluation order."""
        for e in self.temps:
            yield self.names[e], e

    def rhs_text(self, e: Expr, printer, top: bool = True) -> str:
        """Text of the right-hand side of node ``e`` (its children by name when temporaries)."""
        if top and e in self.names and e.op != SYM and e not in self._hoisted_set:
            name = self.names.pop(e)
            try:
                return printer.expr(e, self.names)
            finally:
                self.names[e] = name
        return printer.expr(e, self.names)

    # -- operation counts ----------------------------------------------------
    def op_counts(self) -> dict[str, int]:
        """``sympy.count_ops`` summed over emitted assignments, counted on the DAG.

        Returns a dict with ``"temps"`` (the shared temporaries) and one entry per
        block (its output assignments); ``"total"`` is their sum.  The count is taken by
        :mod:`symbody.symbolic.opcount` in time linear in the size of the code.
        """
        cache: dict = {}
        counts: dict[str, int] = {}
        counts["temps"] = sum(rhs_op_count(e, self.names, cache) for e in self.temps)
        for name, exprs in self.blocks.items():
            c = 0
            for e in exprs:
                if e.op in (SYM, NUM) or e in self.names:
                    continue  # a plain copy costs nothing
                c += rhs_op_count(e, self.names, cache)
            counts[name] = c
        counts["total"] = counts["temps"] + sum(counts[k] for k in self.blocks)
        return counts

    def op_count(self) -> int:
        """Total operation count of the plan (definition in docs/explanation/architecture.md)."""
        return self.op_counts()["total"]
