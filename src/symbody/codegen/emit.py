"""The export plan the code generators print: :class:`~symbody.symbolic.plan.ExportPlan`.

Planning which atoms become temporaries (and counting the operations of the result) is
algebra on the expression DAG, so it lives in the algebra core where the derivation can use it
to choose a formulation by the code it produces; the C and Python generators import it from here.
"""

from __future__ import annotations

from ..symbolic.plan import ExportPlan

__all__ = ["ExportPlan"]
