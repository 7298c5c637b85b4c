"""Which groups explain looks at: the pending ones of a snapshot, named ones, and those
defined in workload inputs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from tasplan.errors import UsageError
from tasplan.model.snapshot import ClusterSnapshot

UNSCHEDULABLE = "unschedulable"


def pending_groups(snapshot: ClusterSnapshot) -> list[str]:
    """Groups the snapshot shows as waiting: a pod without a node (and not finished) that
    exists in the inputs, or a PodGroup whose PodGroupScheduled / PodGroupInitiallyScheduled
    condition is False. Pods tasplan synthesised for a Job's missing replicas do not count:
    they are not in the cluster yet."""
    waiting = {p.group for p in snapshot.pods
               if p.group is not None and not p.node_name and not p.terminal
               and not p.synthesised}
    return [g.key for g in snapshot.groups
            if g.key in waiting or g.scheduled_condition is False]


def select(snapshot: ClusterSnapshot, names: Iterable[str], *,
           unschedulable: bool, namespace: str | None = None) -> ClusterSnapshot:
    """The snapshot with exactly the selected groups marked for planning: the groups of the
    workload inputs, the named ones (``ns/name``) and, with ``unschedulable``, the pending
    ones (of ``namespace`` only, when given, as ``kubectl get -n``). A name that matches no
    group is a usage error."""
    chosen = {g.key for g in snapshot.groups if g.planned}
    known = snapshot.group_index
    for name in names:
        if name not in known:
            near = sorted(k for k in known if k.endswith("/" + name.rsplit("/", 1)[-1]))
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise UsageError(f"no pod group named {name!r} in the inputs{hint}")
        chosen.add(name)
    if unschedulable:
        chosen.update(key for key in pending_groups(snapshot)
                      if namespace is None or known[key].namespace == namespace)
    groups = tuple(replace(g, planned=g.key in chosen) for g in snapshot.groups)
    return replace(snapshot, groups=groups)
