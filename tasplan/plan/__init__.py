"""The KEP-5732 pod-group cycle: generate placements, simulate each, score, select."""
