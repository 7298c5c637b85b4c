"""``--scheduler volcano`` on a benchmark cluster: the 1,024-pod gang of ``generate.py
--gang-out`` as a Volcano PodGroup with ``networkTopology`` hard, ``highestTierAllowed: 1``
(one rack) and the ``minResources`` a vcjob's PodGroup would carry, over HyperNodes made from
the rack and block labels (tier 1 racks by label, tier 2 blocks by name). Planned through
``tasplan.schedulers.planner.plan`` as ``check`` plans it; prints the load time and the
planning wall and CPU time (HyperNode tree, tier walk, a dry run in every eligible rack,
commit).

    python benchmarks/volcano.py CLUSTER GANG [--no-min-resources]

``--no-min-resources``: a bare PodGroup without ``minResources`` (every rack is dry-run).
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

from tasplan.load.loader import load_inputs
from tasplan.model.pod_affinity import LabelSelector, Requirement
from tasplan.model.volcano import (
    MEMBER_HYPERNODE,
    MEMBER_NODE,
    HyperNode,
    Member,
    NetworkTopology,
    VolcanoInputs,
    VolcanoPodGroup,
)
from tasplan.schedulers.planner import plan

RACK, BLOCK = "topology.example.com/rack", "topology.example.com/block"
GANG = "bench/gang"


def hypernodes(snapshot) -> list[HyperNode]:
    racks: dict[str, str] = {}
    for n in snapshot.nodes:
        if RACK in n.labels:
            racks.setdefault(n.labels[RACK], n.labels.get(BLOCK, ""))
    blocks: dict[str, list[str]] = {}
    for r, b in racks.items():
        blocks.setdefault(b, []).append(r)
    return ([HyperNode(r, 1, (Member(MEMBER_NODE, labels=LabelSelector(
                (Requirement(RACK, "In", (r,)),))),)) for r in sorted(racks)]
            + [HyperNode(b, 2, tuple(Member(MEMBER_HYPERNODE, exact=r) for r in sorted(rs)))
               for b, rs in sorted(blocks.items())])


def main(cluster: str, gang: str, min_resources: bool) -> None:
    t0 = time.perf_counter()
    snapshot = load_inputs([gang], [cluster])
    t1 = time.perf_counter()
    pods = snapshot.pods_by_group[GANG]
    total: dict[str, int] = {}
    for p in pods:
        for k, v in p.requests.items():
            total[k] = total.get(k, 0) + v
    spec = VolcanoPodGroup(GANG, len(pods), min_resources=total if min_resources else None,
                           network_topology=NetworkTopology("hard", 1))
    snapshot = replace(snapshot, volcano=VolcanoInputs(
        {h.name: h for h in hypernodes(snapshot)}, {GANG: spec}))
    cpu0, t2 = time.process_time(), time.perf_counter()
    result = plan(snapshot, scheduler="volcano")
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - t2
    (group,) = [g for g in result.groups if g.group.key == GANG]
    placed = group.selected_placement.placed if group.selected_placement else 0
    print(f"load {t1 - t0:.2f}s; plan wall {wall:.2f}s cpu {cpu:.2f}s; "
          f"minResources={'yes' if min_resources else 'no'}; schedulable={group.schedulable} "
          f"hypernode={group.selected} placed={placed} placements={len(group.placements)}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--no-min-resources" not in sys.argv[3:])
