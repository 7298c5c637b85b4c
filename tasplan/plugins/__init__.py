"""In-tree plugins, one module per upstream plugin, named after it."""
