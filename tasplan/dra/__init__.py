"""Dynamic Resource Allocation: CEL selectors, the structured allocator and the device
ledger. The objects are in ``tasplan.model.dra``, their decoders in ``tasplan.load.dra``, the
DynamicResources plugin in ``tasplan.plugins.dynamic_resources`` and the notes in
``tasplan.plan.dra_notes``."""
