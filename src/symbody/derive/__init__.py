"""The derivation: from a model to the blocks of its equations of motion.

Between the model (:mod:`symbody.model`) and the data object it feeds
(:class:`symbody.Equations`): the mass matrix and generalized forces by the
virtual-power loop (:mod:`.virtual_power`) or the recursions on trees
(:mod:`.recursive`), the choice between them (:mod:`.formulation`), the
constraint derivatives (:mod:`.constraints`), the energies (:mod:`.energy`),
the metadata records (:mod:`.records`) and the checks (:mod:`.checks`);
:func:`.build.derive_fields` runs them all.
"""
