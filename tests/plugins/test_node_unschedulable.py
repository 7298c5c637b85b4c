"""NodeUnschedulable filter.

Upstream: kubernetes/kubernetes
``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable_test.go``
TestNodeUnschedulable.
"""

from __future__ import annotations

import pytest

from tasplan.framework.status import Code, Status
from tasplan.framework.types import CycleState
from tasplan.model.taints import Toleration
from tasplan.plugins.node_unschedulable import NodeUnschedulable, new
from tests.builders import make_node, make_pod, node_infos

REJECTED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",))
KEY = "node.kubernetes.io/unschedulable"


# upstream: node_unschedulable_test.go TestNodeUnschedulable
@pytest.mark.parametrize(
    ("unschedulable", "tolerations", "want"),
    [
        pytest.param(True, (), REJECTED,
                     id="Does not schedule pod to unschedulable node "
                        "(node.Spec.Unschedulable==true)"),
        pytest.param(False, (), None, id="Schedule pod to normal node"),
        pytest.param(True, (Toleration(KEY, "Equal", "", "NoSchedule"),), None,
                     id="Schedule pod with toleration to unschedulable node "
                        "(node.Spec.Unschedulable==true)"),
        # toleration matching follows ToleratesTaint against the synthetic taint
        # {node.kubernetes.io/unschedulable, NoSchedule}
        pytest.param(True, (Toleration("", "Exists"),), None,
                     id="a toleration of every taint also tolerates the cordon"),
        pytest.param(True, (Toleration(KEY, "Exists"),), None,
                     id="Exists on the unschedulable key with any effect"),
        pytest.param(True, (Toleration(KEY, "Exists", "", "NoExecute"),), REJECTED,
                     id="a toleration of another effect does not help"),
        pytest.param(True, (Toleration("other", "Exists"),), REJECTED,
                     id="a toleration of another key does not help"),
    ],
)
def test_filter(unschedulable, tolerations, want):
    info = node_infos([make_node("n", unschedulable=unschedulable)])[0]
    pod = make_pod("p", tolerations=tolerations)
    assert NodeUnschedulable().filter(CycleState(), pod, info) == want


def test_factory_builds_the_plugin():
    plugin = new({})
    assert isinstance(plugin, NodeUnschedulable)
    assert plugin.name == "NodeUnschedulable"
