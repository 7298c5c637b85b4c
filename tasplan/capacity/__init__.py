"""The capacity view: room per topology domain for pod shapes (``tasplan capacity``)."""

from tasplan.capacity.report import CapacityReport
from tasplan.capacity.shapes import Shape, parse_shape, workload_shapes
from tasplan.capacity.view import capacity

__all__ = ["CapacityReport", "Shape", "capacity", "parse_shape", "workload_shapes"]
