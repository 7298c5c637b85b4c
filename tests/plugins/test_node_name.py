"""NodeName filter.

Upstream: kubernetes/kubernetes
``pkg/scheduler/framework/plugins/nodename/node_name_test.go`` TestNodeName.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.framework.status import Code, Status
from tasplan.framework.types import CycleState
from tasplan.plugins.node_name import NodeName, new
from tests.builders import make_node, make_pod, node_infos

REJECTED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                  ("node(s) didn't match the requested node name",))


# upstream: node_name_test.go TestNodeName
@pytest.mark.parametrize(
    ("pod_node_name", "node", "want"),
    [
        pytest.param("", "foo", None, id="no host specified"),
        pytest.param("foo", "foo", None, id="host matches"),
        pytest.param("bar", "foo", REJECTED, id="host doesn't match"),
    ],
)
def test_filter(pod_node_name, node, want):
    info = node_infos([make_node(node)])[0]
    pod = replace(make_pod("p"), node_name=pod_node_name)
    assert NodeName().filter(CycleState(), pod, info) == want


def test_factory_builds_the_plugin():
    plugin = new({})
    assert isinstance(plugin, NodeName)
    assert plugin.name == "NodeName"
