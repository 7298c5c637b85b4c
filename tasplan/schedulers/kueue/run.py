"""Kueue's run: each workload admitted by Topology-Aware Scheduling on a TAS ResourceFlavor
(``KueueScheduler.start`` imports this module: runs without Kueue workloads never do)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    PODSET_LABEL,
    Admission,
    build_requests,
    flavor_tree,
    has_levels,
    quota,
    stored_requests,
)
from tasplan.schedulers.kueue.request import RequestError, TopologyRequest, from_workload
from tasplan.schedulers.kueue.tas import (
    Assignment,
    FlavorSnapshot,
    PodSetRequest,
    Replacement,
    Trace,
)
from tasplan.schedulers.kueue.tree import HOSTNAME, Domain, Leaf, TopologyTree
from tasplan.schedulers.kueue.ungater import assign
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
GATED = ("the topology ungater has no slot left for it in the assignment: it stays gated "
         "(kueue.x-k8s.io/topology)")
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
        self.owners = k.owner_index(state.snapshot.kueue.workloads)

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
        wl = k.workload_for(group, pods, state.snapshot.kueue.workloads, self.owners)
        if wl is not None and wl.quota_reserved and not wl.finished:
            return self._admitted(group, pods, wl)
        running = [p for p in pods if p.node_name and not p.terminal]
        # A Workload without a quota reservation whose pods run was evicted: Kueue stops
        # the job and admits it again whole.
        evicted = wl is not None and bool(running)
        sets = pod_sets(group, pods, wl, replan=evicted)
        pending = sum(len(ps.pods) for ps in sets)
        base = GroupResult(group, pending, 0 if evicted else len(running), False, "",
                           scheduler_name=pods[0].scheduler_name if pods else
                           "default-scheduler")
        if not sets:
            return UnitResult((replace(base, schedulable=True,
                                       message="no pending pods: nothing for Kueue to admit"),))
        if evicted:
            index = state.snapshot.node_index
            for pod in running:
                state.statement.evict(pod, state.nodes[index[pod.node_name]])
        admission = self._admit(group, pods, sets, wl, () if wl is not None else running)
        admission.gates = self.gates
        self.records[group.key] = admission
        base = replace(base, workload=self._view(group, pods, sets, admission, wl))
        notes = [*self._notes(group), *admission.notes, Note("kueue-offline", OFFLINE)]
        if evicted:
            notes.append(Note("kueue-evicted", (
                f"Workload {wl.key} holds no quota reservation while {len(running)} of its "
                "pods run: Kueue stops a workload that loses its admission (the job is "
                "suspended, its pods deleted) and admits it again whole; planned for all "
                f"{pending} pod(s), the running ones gone")))
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
            self._commit(sets, assignments)
        elif evicted:
            state.statement.commit()  # the evicted pods go whether or not it fits again
        return UnitResult((replace(base, schedulable=schedulable, message=message,
                                   placements=placements, selected=selected,
                                   notes=tuple(notes)),))

    def _notes(self, group: PodGroup) -> list[Note]:
        """Every Kueue group's notes: the loader's assumptions (not how kube-scheduler would
        gang the pods) and the release and gates planned for."""
        notes = [Note(code, text) for code, text in group.notes if code != "gang-assumed"]
        if self.gates.overridden:
            notes.append(Note("kueue-gates", f"Kueue {self.gates.release} with " + ", ".join(
                f"{name}={str(on).lower()}" for name, on in self.gates.overridden)))
        if self.gates.release != g.MODELLED_CODE and self.gates.release != g.NEWEST:
            notes.append(Note("kueue-version", (
                f"Kueue {self.gates.release}: its feature gates' defaults are applied; the "
                f"placement code is Kueue {g.MODELLED_CODE}'s (tie-breaks and leader/worker "
                "capacity may differ in older releases)")))
        return notes

    def _commit(self, sets: list[KueuePodSet], assignments: Mapping[str, str],
                wl: k.Workload | None = None) -> None:
        """Bind the planned pods for the units after this one. Pods of an admitted
        Workload carry its name and their PodSet, as Kueue starts them, so that its
        topology assignment stops holding the domains they now use."""
        state = self.state
        index = state.snapshot.node_index
        for ps in sets:
            for pod in ps.pods:
                node = assignments.get(pod.key)
                if node is None:
                    continue
                if wl is not None:
                    pod = replace(pod, kueue_workload=wl.name,
                                  labels={**pod.labels, PODSET_LABEL: ps.name})
                state.statement.assume(pod, state.nodes[index[node]])
        state.statement.commit()

    # -- an admitted Workload: the topology ungater ---------------------------------------

    def _admitted(self, group: PodGroup, pods: Sequence[Pod], wl: k.Workload) -> UnitResult:
        """A Workload Kueue has admitted: its topology assignment decides. The pending
        pods go where the ungater sends them and kube-scheduler binds them there; no new
        placement and no quota check (its reservation holds both)."""
        state, kueue = self.state, self.state.snapshot.kueue
        replacing = g.FAILED_NODE_REPLACEMENT in self.gates and bool(wl.unhealthy_nodes)
        gone = frozenset(wl.unhealthy_nodes[:1]) if replacing else frozenset()
        sets = pod_sets(group, pods, wl, gone=gone)
        running = sum(1 for p in pods if p.node_name and not p.terminal
                      and p.node_name not in gone)
        base = GroupResult(group, sum(len(ps.pods) for ps in sets), running, False, "",
                           scheduler_name=pods[0].scheduler_name if pods else
                           "default-scheduler")
        queue = queue_name(group, pods, wl)
        cq = cluster_queue(group.namespace, queue, kueue)
        requests, _ = build_requests(sets, self.gates, tas_only(cq, kueue))
        by_name = {r.name: r for r in requests}
        tas = [psa for psa in wl.assignments if psa.domains]
        flavor_name = next(iter(tas[0].flavors.values()), None) if tas else None
        view = WorkloadView(tuple(pod_set_view(ps, by_name.get(ps.name)) for ps in sets),
                            queue, wl.cluster_queue, flavor_name, wl.key, admitted=True)
        notes = [*self._notes(group), Note("kueue-admitted", (
            f"Workload {wl.key} is admitted (quota reserved in ClusterQueue "
            f"{wl.cluster_queue or '?'}): its pending pods go where its topology assignment "
            "sends them (status.admission.podSetAssignments[].topologyAssignment), as Kueue's "
            "topology ungater hands them out, and kube-scheduler binds them there; no new "
            "placement"))]
        if not wl.admitted:
            notes.append(Note("kueue-admission-checks", (
                f"Workload {wl.key} has its quota reserved but is not Admitted yet (admission "
                "checks pending): Kueue starts its pods once the checks pass")))
        base = replace(base, workload=view)
        if not sets:
            return UnitResult((replace(base, schedulable=True, notes=tuple(notes), message=(
                f"no pending pods: Workload {wl.key} is admitted and its pods are bound")),))
        flavor = kueue.flavors.get(flavor_name or "")
        topology = kueue.topologies.get(flavor.topology_name or "") if flavor else None
        if not tas or flavor is None or topology is None:
            why = (f"its flavor {flavor_name}, or that flavor's Topology, is not in the inputs: "
                   "tasplan cannot map its topology assignment to nodes" if tas else
                   "by quota alone (no topology assignment): kube-scheduler places its pods")
            return UnitResult((replace(base, planned=False, notes=tuple(notes), message=(
                f"Kueue admitted it (Workload {wl.key}) {why}")),))
        index = state.snapshot.node_index
        lost = [p for p in pods if p.node_name in gone and not p.terminal]
        for pod in lost:  # the failed node's pods are made again where Kueue sends them
            state.statement.evict(pod, state.nodes[index[pod.node_name]])
        tree, tree_notes = flavor_tree(state.nodes, topology, flavor, kueue.workloads)
        labels = {info.node.name: info.node.labels for info in state.nodes}
        psas = {psa.name: psa for psa in wl.assignments}
        if replacing:
            psas, failure, note = self._replace_node(wl, psas, tree, flavor, topology,
                                                     tas_only(cq, kueue), len(lost))
            notes.append(note)
            if failure:
                if lost:
                    state.statement.commit()  # the failed node's pods are gone either way
                return UnitResult((replace(base, notes=tuple(notes), message=failure),))
        anywhere = Leaf(Domain("", (), 0), [n for leaf in tree.leaves.values()
                                           for n in leaf.nodes], {}, {})
        per_set, no_slot, used = [], {}, {}
        stored = {p.name: p for p in wl.pod_sets}
        for ps in sets:
            psa = psas.get(ps.name)
            if psa is None or not psa.domains:
                per_set.append((False, [(pod, anywhere) for pod in ps.pods]))
                continue
            spec = stored.get(ps.name)
            try:
                request = from_workload(spec.topology, self.gates) if spec else None
            except RequestError:
                request = None  # the ranks need only its index labels
            domains = assign(psa, (*ps.running, *ps.pods), labels,
                             request or TopologyRequest(),
                             spec.count if spec is not None else None)
            pairs = []
            for pod in ps.pods:
                values = domains.get(pod.key)
                if values is None:
                    no_slot[pod.key] = GATED
                    continue
                leaf = _leaf(tree, psa.levels, values)
                if leaf is not None:
                    used[leaf.domain.id] = leaf
                pairs.append((pod, leaf))
            per_set.append((tree.hostname_leaves, pairs))
        assignments, unplaced = self._bind_pairs(flavor, per_set)
        unplaced = {**no_slot, **unplaced}
        level = _request_level(requests, tree)
        name = "+".join(sorted({leaf.domain.values[level] for leaf in used.values()})) or "-"
        pending = base.pending
        message = (f"Kueue admitted the workload (Workload {wl.key}) on flavor {flavor.name}: "
                   f"its {pending} pending pod(s) go to their assigned domain(s) in {name!r}"
                   + (f" ({running} running)" if running else ""))
        if unplaced:
            message += (f"; kube-scheduler cannot bind {len(unplaced)} of them where Kueue "
                        "sends them (they stay Pending)")
        nodes = tuple(sorted(n.name for leaf in used.values() for n in leaf.nodes))
        placement = PlacementResult(name, nodes, not unplaced, message, len(assignments),
                                    assignments, unplaced)
        if assignments and not unplaced:
            self._commit(sets, assignments, wl)
        elif lost:
            state.statement.commit()  # the failed node's pods are gone either way
        return UnitResult((replace(base, schedulable=not unplaced, message=message,
                                   placements=(placement,), selected=name,
                                   notes=tuple([*notes, *tree_notes])),))

    def _replace_node(self, wl: k.Workload, psas: dict[str, k.PodSetAssignment],
                      tree: TopologyTree, flavor: k.ResourceFlavor, topology: k.Topology,
                      implied: bool, lost: int
                      ) -> tuple[dict[str, k.PodSetAssignment], str, Note]:
        """TASFailedNodeReplacement: the PodSets whose assignment uses the unhealthy node
        get it repaired (``findReplacementAssignment``). Returns the assignments, Kueue's
        reason when it finds none (empty: replaced), and a note."""
        node = wl.unhealthy_nodes[0]
        touched = {name for name, psa in psas.items()
                   if any(d.values[-1] == node for d in psa.domains)}
        requests = stored_requests(wl, touched, self.gates, implied)
        snapshot = FlavorSnapshot(topology.name, tree, flavor.tolerations, self.gates)
        existing = {name: Assignment(psas[name].levels, tuple(
            (d.values, d.count) for d in psas[name].domains)) for name in touched}
        results = snapshot.find_assignments(
            requests, replacing=Replacement(node, existing, wl.single_pod_owned))
        failure = next((res.reason for res in results.values() if res.reason), "")
        if failure:
            return psas, (f"Kueue cannot replace unhealthy node {node} of Workload "
                          f"{wl.key}: {failure}"), Note("kueue-node-replacement", (
                              f"node {node} of admitted Workload {wl.key} is unhealthy "
                              "(status.unhealthyNodes) and no replacement fits: with "
                              "TASFailedNodeReplacementFailFast (on by default) Kueue evicts "
                              "the workload and queues it again"))
        out = dict(psas)
        for name, res in results.items():
            a = res.assignment
            if a is not None:
                out[name] = replace(psas[name], levels=a.levels, domains=tuple(
                    k.DomainCount(values, count) for values, count in a.domains))
        kept = wl.single_pod_owned and g.SKIP_POD_OWNED in self.gates
        return out, "", Note("kueue-node-replacement", (
            f"node {node} of admitted Workload {wl.key} is unhealthy (status.unhealthyNodes): "
            + ("a single Pod owns the workload, so Kueue keeps its assignment "
               "(SkipReassignmentForPodOwnedWorkloads)" if kept else
               f"Kueue replaces it inside the domain the rest of the assignment requires; "
               f"its {lost} pod(s) there are planned again on the replacement")))

    def _view(self, group: PodGroup, pods: Sequence[Pod], sets: list[KueuePodSet],
              admission: Admission, wl: k.Workload | None) -> WorkloadView:
        """The workload as Kueue admits it, for the report's group line."""
        kueue = self.state.snapshot.kueue
        queue = queue_name(group, pods, wl)
        cq = cluster_queue(group.namespace, queue, kueue)
        views = tuple(pod_set_view(ps, admission.requests.get(ps.name)) for ps in sets)
        return WorkloadView(views, queue, cq.name if cq is not None else None,
                            admission.flavor.name if admission.flavor is not None else None,
                            wl.key if wl is not None else None)

    # -- flavor, quota and TAS ----------------------------------------------------------

    def _admit(self, group: PodGroup, pods: Sequence[Pod], sets: list[KueuePodSet],
               wl: k.Workload | None, running: Sequence[Pod] = ()) -> Admission:
        """``running``: pods of the group bound already while the inputs hold no Workload
        for it: Kueue admitted it (its job runs), so its quota is held and its topology
        assignment, which tasplan does not see, covers every pod. It is rebuilt: the whole
        count on the flavor with the running pods' own usage released, held to the domain
        of the required level they run in; the pending pods then take the slots the
        running ones leave, as the topology ungater hands them out."""
        kueue = self.state.snapshot.kueue
        out = Admission()
        queue = queue_name(group, pods, wl)
        cq = self._cluster_queue(group.namespace, queue, kueue, out)
        implied = tas_only(cq, kueue)
        requests, refused = build_requests(sets, self.gates, implied, whole=bool(running))
        out.requests = {ps.name: ps for ps in requests}
        if refused:
            out.message = refused
            return out
        if not requests:
            out.message = NO_TAS
            return out
        if running:
            cq = None  # admitted already: its quota is reserved, the flavor is the one
            out.notes.append(Note("kueue-running", (
                f"{len(running)} of its pods run and the inputs hold no Workload object for "
                "it: Kueue admitted it (its quota is reserved); its topology assignment is "
                "rebuilt for all its pods, held to the domain they run in, and its pending "
                "pods take the slots the running ones leave (add the Workload, kubectl get "
                "workloads -o yaml, for Kueue's own assignment)")))
        candidates = self._flavors(cq, kueue, requests, out, running)
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
            trial = self._place(flavor, topology, requests, kueue, running)
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
               kueue: k.KueueInputs, running: Sequence[Pod] = ()) -> Admission:
        out = Admission(flavor=flavor, topology=topology)
        state = self.state
        index = state.snapshot.node_index
        with state.statement.trial():  # the running pods' usage is the workload's own
            for pod in running:
                state.statement.evict(pod, state.nodes[index[pod.node_name]])
            held = _held_to(running, requests, topology, {
                n.name: n.labels for n in state.snapshot.nodes}) if running else None
            tree, notes = flavor_tree(state.nodes, topology, flavor, kueue.workloads, held)
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
                 out: Admission, running: Sequence[Pod] = ()
                 ) -> list[tuple[k.ResourceFlavor, object]]:
        """The TAS flavors to try, in order, with their quota verdicts: the ClusterQueue's
        (in its order, those whose quota the workload fits), or every TAS flavor whose
        Topology has the requested levels (and, with ``running`` pods, whose nodes hold
        them all: the flavor it was admitted on)."""
        if cq is None:
            flavors = [f for f in kueue.tas_flavors()
                       if all(has_levels(kueue.topologies[f.topology_name], ps)
                              for ps in requests if f.topology_name in kueue.topologies)]
            if running:
                nodes = self.state.snapshot.nodes
                index = self.state.snapshot.node_index
                flavors = [f for f in flavors if all(
                    all(nodes[index[p.node_name]].labels.get(key) == value
                        for key, value in f.node_labels.items()) for p in running)]
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
        """Each pending pod to its slot's domain as the topology ungater hands them out
        (by rank, ``rankToDomainID``; the slots of running pods taken)."""
        tree = admission.tree
        labels = {info.node.name: info.node.labels for info in self.state.nodes}
        per_set, gated = [], {}
        for ps in sets:
            res = admission.results.get(ps.name)
            if res is None or res.assignment is None:
                continue
            a = res.assignment
            psa = k.PodSetAssignment(ps.name, {}, a.count, a.levels, tuple(
                k.DomainCount(values, count) for values, count in a.domains))
            domains = assign(psa, (*ps.running, *ps.pods), labels)
            pairs = []
            for pod in ps.pods:
                values = domains.get(pod.key)
                if values is None:
                    gated[pod.key] = GATED
                    continue
                pairs.append((pod, tree.leaves.get(values[-1] if tree.hostname_leaves
                                                   else ",".join(values))))
            per_set.append((tree.hostname_leaves, pairs))
        assignments, unplaced = self._bind_pairs(admission.flavor, per_set)
        return assignments, {**gated, **unplaced}

    def _bind_pairs(self, flavor: k.ResourceFlavor,
                    per_set: list[tuple[bool, list[tuple[Pod, Leaf | None]]]]
                    ) -> tuple[dict[str, str], dict[str, str]]:
        """Pods to nodes of their leaves: the node itself for hostname leaves; else the
        node kube-scheduler picks among the leaf's nodes (Kueue only pins the pod to the
        domain's labels). kube-scheduler checks each pod as Kueue starts it: with the
        flavor's nodeLabels in its nodeSelector and the flavor's tolerations. One PodFit
        per class of identical pods and leaf set, not per pod. Nothing stays assumed."""
        state = self.state
        index = state.snapshot.node_index
        fw = state.framework("default-scheduler")
        statement = state.statement
        checkpoint = statement.checkpoint()
        assignments: dict[str, str] = {}
        unplaced: dict[str, str] = {}
        for hostname_leaves, pairs in per_set:
            for pod, leaf in pairs:
                if leaf is None:
                    unplaced[pod.key] = (f"its assigned domain has no Ready, schedulable node "
                                         f"of flavor {flavor.name}")
            pairs = [(pod, leaf) for pod, leaf in pairs if leaf is not None]
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
            if hostname_leaves:
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


def _leaf(tree: TopologyTree, levels: Sequence[str], values: tuple[str, ...]) -> Leaf | None:
    """The leaf of an assignment's domain: its node when the assignment names hostnames
    only, else the domain at the tree's lowest level (None: not among the flavor's nodes,
    or the assignment's levels are not the Topology's)."""
    if levels and levels[-1] == HOSTNAME and tree.hostname_leaves:
        return tree.leaves.get(values[-1])
    if tuple(levels) != tree.levels:
        return None
    return tree.leaves.get(",".join(values))


def _held_to(running: Sequence[Pod], requests: Sequence[PodSetRequest],
             topology: k.Topology, node_labels: Mapping[str, Mapping[str, str]]
             ) -> Callable[[Mapping[str, str]], bool] | None:
    """For a workload whose pods run: accepts the nodes of the domain, at the first
    required level, its running pods are in (its assignment lies inside it); None when
    no PodSet requires a level or they run in several such domains (then it is not held)."""
    levels = topology.levels
    for ps in requests:
        tr = ps.topology
        if not running or tr is None or tr.required not in levels:
            continue
        upto = levels[:levels.index(tr.required) + 1]
        domains = {tuple(node_labels.get(p.node_name, {}).get(key) for key in upto)
                   for p in running}
        if len(domains) != 1:
            return None
        (values,) = domains
        return lambda labels: all(labels.get(key) == v for key, v in zip(upto, values,
                                                                          strict=True))
    return None


def _request_level(requests: Sequence[PodSetRequest], tree: TopologyTree) -> int:
    """The level a workload's requests name (required, else preferred), else the top."""
    for ps in requests:
        tr = ps.topology
        key = tr.required or tr.preferred if tr is not None else None
        if key is not None and tree.level_index(key) is not None:
            return tree.level_index(key)
    return 0


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
