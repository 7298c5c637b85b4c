"""Kueue's run: each workload admitted by Topology-Aware Scheduling on a TAS ResourceFlavor
(``KueueScheduler.start`` imports this module: runs without Kueue workloads never do)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tasplan.framework.diagnosis import nodes_message
from tasplan.model import kueue as k
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod
from tasplan.plan.fidelity import Note
from tasplan.plan.pod_fit import PodFit
from tasplan.plan.result import GroupResult, PlacementResult, PodSetView, WorkloadView
from tasplan.plan.state import PlanState
from tasplan.schedulers.interface import UnitResult
from tasplan.schedulers.kueue import gates as g
from tasplan.schedulers.kueue.admission import (
    Admission,
    build_requests,
    flavor_tree,
    has_levels,
    quota,
    slots,
)
from tasplan.schedulers.kueue.tas import Assignment, FlavorSnapshot, PodSetRequest, Trace
from tasplan.schedulers.kueue.workload import (
    KueuePodSet,
    cluster_queue,
    pod_sets,
    queue_name,
    tas_only,
)

NO_TAS = ("Kueue admits it by quota alone: no PodSet asks for Topology-Aware Scheduling "
          "(no kueue.x-k8s.io/podset-* annotation) and its ClusterQueue is not TAS-only; "
          "kube-scheduler places the pods (plan it with --scheduler auto or kube-scheduler)")
OFFLINE = ("Kueue admits in queue order (StrictFIFO/BestEffortFIFO) against live quota "
           "usage, cohort borrowing, admission checks (ProvisioningRequest, MultiKueue) and "
           "workloads being admitted right now; a plan from files knows only what the inputs "
           "hold")


@dataclass(frozen=True)
class Workload:
    """One queue unit: a group and its pods."""

    group: PodGroup
    pods: tuple[Pod, ...]
    priority: int

    @property
    def order(self) -> int:
        return self.group.order


class KueueRun:
    def __init__(self, state: PlanState, groups: Sequence[PodGroup], gates: g.Gates,
                 records: dict[str, Admission]) -> None:
        self.state, self.groups, self.gates, self.records = state, groups, gates, records

    def units(self) -> list[Workload]:
        by_group = self.state.snapshot.pods_by_group
        out = []
        for group in self.groups:
            pods = tuple(by_group.get(group.key, ()))
            priority = group.priority if group.priority is not None else max(
                (p.priority for p in pods), default=0)
            out.append(Workload(group, pods, priority))
        return out

    def schedule(self, unit: Workload) -> UnitResult:
        state = self.state
        group, pods = unit.group, unit.pods
        sets = pod_sets(group, pods)
        pending = sum(len(ps.pods) for ps in sets)
        scheduled = sum(1 for p in pods if p.node_name and not p.terminal)
        base = GroupResult(group, pending, scheduled, False, "",
                           scheduler_name=pods[0].scheduler_name if pods else
                           "default-scheduler")
        if not sets:
            return UnitResult((replace(base, schedulable=True,
                                       message="no pending pods: nothing for Kueue to admit"),))
        admission = self._admit(group, pods, sets)
        admission.gates = self.gates
        self.records[group.key] = admission
        base = replace(base, workload=self._view(group, pods, sets, admission))
        notes = [*admission.notes, Note("kueue-offline", OFFLINE)]
        if self.gates.overridden:
            notes.append(Note("kueue-gates", f"Kueue {self.gates.release} with " + ", ".join(
                f"{name}={str(on).lower()}" for name, on in self.gates.overridden)))
        if self.gates.release != g.MODELLED_CODE and self.gates.release != g.NEWEST:
            notes.append(Note("kueue-version", (
                f"Kueue {self.gates.release}: its feature gates' defaults are applied; the "
                f"placement code is Kueue {g.MODELLED_CODE}'s (tie-breaks and leader/worker "
                "capacity may differ in older releases)")))
        if admission.message == NO_TAS:
            return UnitResult((replace(base, planned=False, message=NO_TAS,
                                       notes=tuple(notes)),))
        placements, selected, assignments, unplaced = self._placements(admission, sets)
        schedulable = admission.admitted and not unplaced
        message = admission.message
        if admission.admitted and selected is not None:
            message = _admitted_message(admission, sets, selected, assignments)
        if admission.admitted and unplaced:
            message += (f"; kube-scheduler cannot bind {len(unplaced)} of its pod(s) where "
                        "Kueue sends them (they stay Pending)")
        if assignments and schedulable:
            statement = state.statement
            index = state.snapshot.node_index
            by_key = {p.key: p for ps in sets for p in ps.pods}
            for key, node in assignments.items():
                statement.assume(by_key[key], state.nodes[index[node]])
            statement.commit()
        return UnitResult((replace(base, schedulable=schedulable, message=message,
                                   placements=placements, selected=selected,
                                   notes=tuple(notes)),))

    def _view(self, group: PodGroup, pods: Sequence[Pod], sets: list[KueuePodSet],
              admission: Admission) -> WorkloadView:
        """The workload as Kueue admits it, for the report's group line."""
        kueue = self.state.snapshot.kueue
        queue = queue_name(group, pods)
        cq = cluster_queue(group.namespace, queue, kueue)
        views = []
        for ps in sets:
            request = admission.requests.get(ps.name)
            views.append(pod_set_view(ps, request))
        return WorkloadView(tuple(views), queue, cq.name if cq is not None else None,
                            admission.flavor.name if admission.flavor is not None else None)

    # -- flavor, quota and TAS ----------------------------------------------------------

    def _admit(self, group: PodGroup, pods: Sequence[Pod], sets: list[KueuePodSet]
               ) -> Admission:
        kueue = self.state.snapshot.kueue
        out = Admission()
        queue = queue_name(group, pods)
        cq = self._cluster_queue(group.namespace, queue, kueue, out)
        implied = tas_only(cq, kueue)
        requests, refused = build_requests(sets, self.gates, implied)
        out.requests = {ps.name: ps for ps in requests}
        if refused:
            out.message = refused
            return out
        if not requests:
            out.message = NO_TAS
            return out
        candidates = self._flavors(cq, kueue, requests, out)
        if not candidates:
            if out.quota_refused and cq is not None:
                self._topology_without_quota(cq, kueue, requests, out)
            return out
        first: Admission | None = None
        for flavor, verdict in candidates:
            topology = kueue.topologies.get(flavor.topology_name or "")
            if topology is None:
                out.notes.append(Note("kueue-flavor", f"ResourceFlavor {flavor.name} names "
                                      f"Topology {flavor.topology_name}, which is not in the "
                                      "inputs"))
                continue
            trial = self._place(flavor, topology, requests, kueue)
            trial.notes = [*out.notes, *trial.notes]
            if verdict is not None and verdict.needs_more:
                trial.notes.append(Note("kueue-quota", verdict.message + " (Kueue admits only "
                                        "by borrowing or after preempting within its "
                                        "ClusterQueue or cohort)"))
            if trial.admitted:
                return trial
            first = first or trial
        return first or out

    def _topology_without_quota(self, cq: k.ClusterQueue, kueue: k.KueueInputs, requests,
                                out: Admission) -> None:
        """A workload the quota refuses: say whether the topology would hold it."""
        for name in dict.fromkeys(cq.flavor_names()):
            flavor = kueue.flavors.get(name)
            topology = kueue.topologies.get(flavor.topology_name or "") if flavor else None
            if topology is None or not all(has_levels(topology, ps) for ps in requests):
                continue
            trial = self._place(flavor, topology, requests, kueue)
            if trial.admitted:
                out.message += (f"; the topology of flavor {name} would hold it: only the "
                                "quota stops it")
                out.cluster_queue, out.without_quota = cq, trial
                return
        out.message += "; no TAS flavor's topology would hold it either"

    def _place(self, flavor: k.ResourceFlavor, topology: k.Topology, requests,
               kueue: k.KueueInputs) -> Admission:
        out = Admission(flavor=flavor, topology=topology)
        tree, notes = flavor_tree(self.state.nodes, topology, flavor, kueue.workloads)
        out.tree, out.notes = tree, notes
        snapshot = FlavorSnapshot(topology.name, tree, flavor.tolerations, self.gates)
        out.requests = {ps.name: ps for ps in requests}
        out.results = snapshot.find_assignments(requests)
        failure = next((res for res in out.results.values() if res.reason), None)
        if failure is None:
            out.admitted = True
            out.message = f"Kueue admits the workload on flavor {flavor.name}"
            return out
        out.message = failure.reason
        empty = FlavorSnapshot(topology.name, tree, flavor.tolerations, self.gates)
        out.fits_empty = not any(res.reason for res in empty.find_assignments(
            requests, simulate_empty=True).values())
        if out.fits_empty:
            out.notes.append(Note("kueue-preemption", "it would fit if the admitted TAS "
                                  "workloads on this flavor were preempted: Kueue preempts only "
                                  "where the ClusterQueue's preemption policy allows it"))
        return out

    def _cluster_queue(self, namespace: str, queue: str | None, kueue: k.KueueInputs,
                       out: Admission) -> k.ClusterQueue | None:
        if queue is None:
            out.notes.append(Note("kueue-queue", "no kueue.x-k8s.io/queue-name: Kueue admits "
                                  "only workloads submitted to a LocalQueue"))
            return None
        lq = kueue.local_queues.get(f"{namespace}/{queue}")
        if lq is None:
            if kueue.local_queues or kueue.cluster_queues:
                out.notes.append(Note("kueue-queue", f"LocalQueue {namespace}/{queue} is not in "
                                      "the inputs; no quota was checked"))
            return None
        cq = kueue.cluster_queues.get(lq.cluster_queue)
        if cq is None:
            out.notes.append(Note("kueue-queue", f"ClusterQueue {lq.cluster_queue} (of "
                                  f"LocalQueue {namespace}/{queue}) is not in the inputs; no "
                                  "quota was checked"))
        return cq

    def _flavors(self, cq: k.ClusterQueue | None, kueue: k.KueueInputs, requests,
                 out: Admission) -> list[tuple[k.ResourceFlavor, object]]:
        """The TAS flavors to try, in order, with their quota verdicts: the ClusterQueue's
        (in its order, those whose quota the workload fits), or every TAS flavor whose
        Topology has the requested levels."""
        if cq is None:
            flavors = [f for f in kueue.tas_flavors()
                       if all(has_levels(kueue.topologies[f.topology_name], ps)
                              for ps in requests if f.topology_name in kueue.topologies)]
            if not flavors:
                out.message = ("no TAS ResourceFlavor (spec.topologyName) whose Topology has "
                               "the requested levels is in the inputs")
                return []
            if len(flavors) > 1:
                out.notes.append(Note("kueue-flavor", "no ClusterQueue for the workload in the "
                                      "inputs: TAS flavors tried by name ("
                                      + ", ".join(f.name for f in flavors) + "); Kueue picks "
                                      "the flavor by its ClusterQueue's order and quota"))
            return [(f, None) for f in flavors]
        candidates, reasons = [], []
        for name in dict.fromkeys(cq.flavor_names()):
            flavor = kueue.flavors.get(name)
            if flavor is None:
                reasons.append(f"flavor {name} is not in the inputs")
                continue
            if flavor.topology_name is None:
                reasons.append(f'Flavor "{name}" does not support TopologyAwareScheduling')
                continue
            topology = kueue.topologies.get(flavor.topology_name)
            if topology is not None and not all(has_levels(topology, ps) for ps in requests):
                reasons.append(f'Flavor "{name}" does not contain the requested level')
                continue
            verdict = quota(cq, name, requests, kueue.workloads)
            if not verdict.fits:
                reasons.append(verdict.message)
                continue
            candidates.append((flavor, verdict))
        if not candidates:
            out.message = "; ".join(reasons) or (f"ClusterQueue {cq.name} has no TAS flavor")
            out.quota_refused = any(r.startswith("insufficient quota") for r in reasons)
            out.requests = {ps.name: ps for ps in requests}
        if cq.cohort:
            out.notes.append(Note("kueue-quota", f"ClusterQueue {cq.name} is in cohort "
                                  f"{cq.cohort}: what it may borrow depends on the cohort's "
                                  "live usage"))
        return candidates

    # -- the report ---------------------------------------------------------------------

    def _placements(self, admission: Admission, sets: list[KueuePodSet]
                    ) -> tuple[tuple[PlacementResult, ...], str | None, dict[str, str],
                               dict[str, str]]:
        tree = admission.tree
        if tree is None or not admission.results:
            return (), None, {}, {}
        main = max(admission.requests.values(), key=lambda ps: ps.count)
        result = admission.results.get(main.name) or next(iter(admission.results.values()))
        trace = result.trace or Trace()
        assignments, unplaced = {}, {}
        if admission.admitted:
            assignments, unplaced = self._bind(admission, sets)
        level, domains = trace.levels[-1] if trace.levels else (len(tree.levels) - 1, [])
        chosen = _chosen_domains(result.assignment, level, tree)
        names = _names(domains)
        members = _nodes_by_domain(tree, level)
        placements = []
        selected = None
        if admission.admitted and chosen:
            label = "+".join(names.get(v, "/".join(v)) for v in chosen)
            selected = label
            placements.append(PlacementResult(
                label, tuple(sorted(n for c in chosen for n in members.get(c, ()))),
                not unplaced,
                admission.message, len(assignments), assignments, unplaced))
        size = _slice_size(main)
        for dom in domains:
            if admission.admitted and len(chosen) == 1 and dom.values == chosen[0]:
                continue
            fits = dom.slice_count * size
            status = (f"holds {fits} of {main.count} pod(s)" if size == 1 else
                      f"holds {dom.slice_count} of {main.count // size} slice(s) of {size}")
            placements.append(PlacementResult(
                names[dom.values], tuple(members.get(dom.values, ())), fits >= main.count,
                status, min(fits, main.count), {}, {}, simulated=False))
        return tuple(placements), selected, assignments, unplaced

    def _bind(self, admission: Admission, sets: list[KueuePodSet]
              ) -> tuple[dict[str, str], dict[str, str]]:
        """Each pod, by rank, to its slot's domain: the node itself for hostname leaves;
        else the node kube-scheduler picks among the leaf's nodes (Kueue only pins the
        pod to the domain's labels). kube-scheduler checks each pod as Kueue starts it:
        with the flavor's nodeLabels in its nodeSelector and the flavor's tolerations.
        One PodFit per class of identical pods and leaf set, not per pod."""
        state, tree, flavor = self.state, admission.tree, admission.flavor
        index = state.snapshot.node_index
        fw = state.framework("default-scheduler")
        statement = state.statement
        checkpoint = statement.checkpoint()
        assignments: dict[str, str] = {}
        unplaced: dict[str, str] = {}
        for ps in sets:
            res = admission.results.get(ps.name)
            if res is None or res.assignment is None:
                continue
            pairs = []
            for pod, values in zip(ps.pods, slots(res.assignment), strict=False):
                leaf = tree.leaves.get(values[-1] if tree.hostname_leaves else ",".join(values))
                pairs.append((pod, leaf))
            if fw is None:
                for pod, leaf in pairs:
                    assignments[pod.key] = leaf.nodes[0].name
                continue
            started = {}
            for pod, _ in pairs:
                sig = pod.signature()
                if sig not in started:
                    started[sig] = replace(
                        pod, tolerations=(*pod.tolerations, *flavor.tolerations),
                        node_selector={**pod.node_selector, **flavor.node_labels})
            if tree.hostname_leaves:
                self._bind_nodes(fw, pairs, started, index, assignments, unplaced)
            else:
                self._bind_leaves(fw, pairs, started, index, assignments, unplaced)
        statement.rollback(checkpoint)
        return assignments, unplaced

    def _bind_nodes(self, fw, pairs, started, index, assignments, unplaced) -> None:
        """Hostname leaves: the slot is the node; kube-scheduler's filters only confirm."""
        state, statement = self.state, self.state.statement
        by_class: dict[tuple, list] = {}
        for pod, leaf in pairs:
            by_class.setdefault(pod.signature(), []).append((pod, leaf))
        for sig, members in by_class.items():
            infos = list({leaf.nodes[0].name: state.nodes[index[leaf.nodes[0].name]]
                          for _, leaf in members}.values())
            position = {info.name: i for i, info in enumerate(infos)}
            fit = PodFit(fw, started[sig], infos, statement, cluster=state.nodes)
            caps = fit.capacity()
            used = [0] * len(infos)
            for pod, leaf in members:
                i = position[leaf.nodes[0].name]
                if caps is not None and used[i] < caps[i]:
                    ok = True
                else:
                    status = fit.statuses()[i]
                    ok = status is None
                if not ok:
                    status = fit.statuses()[i]
                    unplaced[pod.key] = nodes_message(1, {r: 1 for r in status.reasons})
                    continue
                statement.assume(pod, infos[i])
                used[i] += 1
                assignments[pod.key] = infos[i].name

    def _bind_leaves(self, fw, pairs, started, index, assignments, unplaced) -> None:
        """Coarser leaves: kube-scheduler picks the node among the leaf's."""
        state, statement = self.state, self.state.statement
        fits: dict[tuple, PodFit] = {}
        for pod, leaf in pairs:
            key = (pod.signature(), leaf.domain.id)
            fit = fits.get(key)
            if fit is None:
                infos = [state.nodes[index[n.name]] for n in leaf.nodes]
                fit = fits[key] = PodFit(fw, started[key[0]], infos, statement,
                                         cluster=state.nodes)
            node, diagnosis = fit.best()
            if node is None:
                unplaced[pod.key] = diagnosis.message if diagnosis is not None else "no node"
                continue
            statement.assume(pod, node)
            assignments[pod.key] = node.name


def pod_set_view(ps: KueuePodSet, request: PodSetRequest | None) -> PodSetView:
    """A PodSet and the topology request Kueue built for it (None: it asks none)."""
    count = len(ps.pods) + ps.bound
    tr = request.topology if request is not None else None
    if request is None:
        return PodSetView(ps.name, count, len(ps.pods))
    slices = tuple((layer.topology, layer.size) for layer in tr.slice_layers()) \
        if tr is not None else ()
    if tr is not None and tr.required is not None:
        mode, level = "required", tr.required
    elif tr is not None and tr.preferred is not None:
        mode, level = "preferred", tr.preferred
    else:  # unconstrained, slices only, or implied by a TAS-only ClusterQueue
        mode, level = "unconstrained", None
    return PodSetView(ps.name, count, len(ps.pods), mode, level, slices,
                      tr.group if tr is not None else None, request.implied)


def _admitted_message(admission: Admission, sets: list[KueuePodSet], selected: str,
                      assignments: dict[str, str]) -> str:
    """``Kueue admits the workload on flavor F: 8 pod(s) in 'rack-b1' (2 node(s))``, per
    PodSet when there are several."""
    parts = []
    for ps in sets:
        res = admission.results.get(ps.name)
        if res is None or res.assignment is None:
            continue
        nodes = {assignments[p.key] for p in ps.pods if p.key in assignments}
        part = f"{res.assignment.count} pod(s)"
        if nodes:
            part += f" on {len(nodes)} node(s)"
        parts.append(part if len(sets) == 1 else f"{ps.name} {part}")
    return (f"Kueue admits the workload on flavor {admission.flavor.name} in {selected!r}: "
            + ", ".join(parts))


def _slice_size(ps) -> int:
    layers = ps.topology.slice_layers() if ps.topology is not None else ()
    return layers[0].size if layers and layers[0].size > 0 else 1


def _chosen_domains(assignment: Assignment | None, level: int, tree
                    ) -> list[tuple[str, ...]]:
    """The domains at ``level`` the assignment uses, in level-value order."""
    if assignment is None:
        return []
    full = []
    for values, _ in assignment.domains:
        if tree.hostname_leaves and len(values) == 1:
            leaf = tree.leaves.get(values[0])
            values = leaf.domain.values if leaf is not None else values
        full.append(values[:level + 1])
    return sorted(set(full))


def _names(domains) -> dict[tuple[str, ...], str]:
    """A domain's own label value, or its path when two domains share it."""
    counts: dict[str, int] = {}
    for d in domains:
        counts[d.values[-1]] = counts.get(d.values[-1], 0) + 1
    return {d.values: d.values[-1] if counts[d.values[-1]] == 1 else "/".join(d.values)
            for d in domains}


def _nodes_by_domain(tree, level: int) -> dict[tuple[str, ...], list[str]]:
    """Domain values at ``level`` -> the names of its nodes, sorted."""
    out: dict[tuple[str, ...], list[str]] = {}
    for leaf in tree.leaves.values():
        out.setdefault(leaf.domain.values[:level + 1], []).extend(n.name for n in leaf.nodes)
    for names in out.values():
        names.sort()
    return out
