"""``tasplan explain``: why a group does not fit, per domain, and verified counterfactuals."""
