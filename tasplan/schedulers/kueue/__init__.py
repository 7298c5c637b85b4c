"""Kueue Topology-Aware Scheduling (``--scheduler kueue``)."""
