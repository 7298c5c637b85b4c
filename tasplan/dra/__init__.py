"""Dynamic Resource Allocation: model, CEL selectors, the structured allocator and the
DynamicResources plugin."""
