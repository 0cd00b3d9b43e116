"""The derivation: from a model to the blocks of its equations of motion.

Between the model (:mod:`symbody.model`) and the data object it feeds
(:class:`symbody.Equations`): the mass matrix and generalized forces by the
virtual-power loop (:mod:`symbody.derive.virtual_power`) or the recursions on trees
(:mod:`symbody.derive.recursive`), the choice between them (:mod:`symbody.derive.formulation`), the
constraint derivatives (:mod:`symbody.derive.constraints`), the energies (:mod:`symbody.derive.energy`),
the metadata records (:mod:`symbody.derive.records`) and the checks (:mod:`symbody.derive.checks`);
:func:`symbody.derive.build.derive_fields` runs them all.
"""
