"""NodePorts filter.

Upstream: kubernetes/kubernetes
``pkg/scheduler/framework/plugins/nodeports/node_ports_test.go`` TestNodePorts and
TestFits (ports written "PROTOCOL/hostIP/hostPort" as upstream's ``newPod`` helper does).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tasplan.framework.status import Code, Status
from tasplan.framework.types import CycleState
from tasplan.model.pod import HostPort
from tasplan.plugins.node_ports import NodePorts, new
from tests.builders import make_node, make_pod, node_infos

REJECTED = Status(Code.UNSCHEDULABLE,
                  ("node(s) didn't have free ports for the requested pod ports",))


def _ports(*specs: str) -> tuple[HostPort, ...]:
    out = []
    for spec in specs:
        protocol, ip, port = spec.split("/")
        out.append(HostPort(int(port), protocol, ip))
    return tuple(out)


def _filter(pod_ports, existing_ports):
    node = make_node("m1")
    bound = [replace(make_pod("existing", node="m1"), host_ports=_ports(*existing_ports))]
    info = node_infos([node], bound)[0]
    pod = replace(make_pod("p"), host_ports=_ports(*pod_ports))
    return NodePorts().filter(CycleState(), pod, info)


# upstream: node_ports_test.go TestNodePorts and TestFits
@pytest.mark.parametrize(
    ("pod_ports", "existing", "want"),
    [
        pytest.param((), (), None, id="skip filter"),
        pytest.param(("UDP/127.0.0.1/8080",), ("UDP/127.0.0.1/9090",), None, id="other port"),
        pytest.param(("UDP/127.0.0.1/8080",), ("UDP/127.0.0.1/8080",), REJECTED,
                     id="same udp port"),
        pytest.param(("TCP/127.0.0.1/8080",), ("TCP/127.0.0.1/8080",), REJECTED,
                     id="same tcp port"),
        pytest.param(("TCP/127.0.0.1/8080",), ("TCP/127.0.0.2/8080",), None,
                     id="different host ip"),
        pytest.param(("UDP/127.0.0.1/8080",), ("TCP/127.0.0.1/8080",), None,
                     id="different protocol"),
        pytest.param(("UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"), ("UDP/127.0.0.1/8080",),
                     REJECTED, id="second udp port conflict"),
        pytest.param(("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
                     ("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"), REJECTED,
                     id="first tcp port conflict"),
        pytest.param(("TCP/0.0.0.0/8001",), ("TCP/127.0.0.1/8001",), REJECTED,
                     id="first tcp port conflict due to 0.0.0.0 hostIP"),
        pytest.param(("TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"), ("TCP/127.0.0.1/8001",),
                     REJECTED, id="TCP hostPort conflict due to 0.0.0.0 hostIP"),
        pytest.param(("TCP/127.0.0.1/8001",), ("TCP/0.0.0.0/8001",), REJECTED,
                     id="second tcp port conflict to 0.0.0.0 hostIP"),
        pytest.param(("UDP/127.0.0.1/8001",), ("TCP/0.0.0.0/8001",), None,
                     id="second different protocol"),
        pytest.param(("UDP/127.0.0.1/8001",), ("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"),
                     REJECTED, id="UDP hostPort conflict due to 0.0.0.0 hostIP"),
        # TestFits
        pytest.param(("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90",
                      "TCP/127.0.1.1/100"),
                     ("TCP/127.0.0.1/9090", "TCP/127.0.0.1/9191", "TCP/127.0.1.1/8080"), None,
                     id="multiple non-conflicting ports"),
        pytest.param(("TCP/127.0.0.1/80",), ("UDP/127.0.0.1/80",), None,
                     id="same ports on different protocols"),
        pytest.param(("TCP/127.0.0.1/80", "TCP/127.0.1.1/80", "TCP/127.0.1.1/90",
                      "TCP/127.0.1.1/100"),
                     ("TCP/127.0.0.1/9090", "TCP/127.0.1.1/90", "TCP/127.0.1.1/8080"),
                     REJECTED, id="multiple ports, some conflicting"),
        pytest.param(("SCTP/0.0.0.0/9000",), ("TCP/0.0.0.0/9000", "UDP/0.0.0.0/9000"), None,
                     id="SCTP does not conflict with TCP or UDP"),
        pytest.param(("TCP/0.0.0.0/8001",), (), None, id="node without used ports"),
    ],
)
def test_filter(pod_ports, existing, want):
    assert _filter(pod_ports, existing) == want


def test_default_host_port_is_tcp_on_every_address():
    # upstream sanitises an empty hostIP to 0.0.0.0 and an empty protocol to TCP
    assert HostPort(80) == HostPort(80, "TCP", "0.0.0.0")
    assert HostPort(80).conflicts(HostPort(80, "TCP", "10.1.2.3"))


def test_ports_of_assumed_pods_are_seen():
    info = node_infos([make_node("m1")])[0]
    pod = replace(make_pod("a"), host_ports=_ports("TCP/0.0.0.0/8080"))
    plugin = NodePorts()
    assert plugin.filter(CycleState(), pod, info) is None
    info.add_pod(pod)
    assert plugin.filter(CycleState(), pod, info) == REJECTED
    info.remove_pod(pod)
    assert plugin.filter(CycleState(), pod, info) is None


def test_factory_builds_the_plugin():
    plugin = new({})
    assert isinstance(plugin, NodePorts)
    assert plugin.name == "NodePorts"
