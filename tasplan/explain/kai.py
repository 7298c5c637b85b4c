"""Why a KAI PodGroup does not fit, and what would make it fit, each change verified by
planning the group again as KAI would (``tasplan.schedulers.kai``), in the state the run
gave it.

KAI's own reasons come first (the report's message and each candidate's status, in KAI's
words); then per domain what KAI counts it can hold, the resources short and the nodes the
pods may not use; then changes: a smaller minMember, the next coarser required level of the
Topology, the required level made preferred, and nodes shaped like one of the closest domain
added to it. Evictions are not suggested: KAI frees room through its reclaim, preempt and
consolidation actions, which depend on queues tasplan does not model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from tasplan.explain.case import renamed
from tasplan.explain.result import DomainExplanation, Explanation, Suggestion
from tasplan.framework.node_info import NodeInfo
from tasplan.model.group import PodGroup
from tasplan.model.kai import Constraint, KaiPodGroup
from tasplan.model.pod import Pod
from tasplan.plan.result import PlacementResult
from tasplan.schedulers.kai.fit import fits_resources
from tasplan.schedulers.kai.run import KaiRun, Planned

DOMAINS_TRIED = 3
EXTRA_TRIES = 3
MAX_ADDED = 64


def explain_group(run: KaiRun, group: PodGroup, tried: Planned) -> Explanation:
    result, spec, pending = tried.result, tried.spec, tried.pending
    needed = len(pending) if result.schedulable else max(
        result.group.min_count - result.scheduled, 1)
    check = run.fit(run.state.nodes).check
    domains = tuple(sorted((_domain(run, check, p, needed, pending)
                            for p in result.placements if p.nodes), key=lambda d: -d.fit))
    return Explanation(
        result=result, needed=needed, domains=domains, failures=_failures(tried, domains),
        fits_empty_cluster=_fits_empty(run, group, spec, needed),
        suggestions=tuple(_suggestions(run, group, spec, tried, domains, needed)))


def _domain(run: KaiRun, check: Callable[[Pod, NodeInfo], str | None],
            placement: PlacementResult, needed: int, pending: Sequence[Pod]
            ) -> DomainExplanation:
    """What KAI counts the domain holds (pods placed when it was tried, else its capacity
    for the job's largest pod), the resources short and the nodes out by other reasons."""
    index = run.state.snapshot.node_index
    infos = [run.state.nodes[index[name]] for name in placement.nodes]
    pod = pending[0] if pending else None
    excluded: Counter = Counter()
    fit = placement.placed
    if pod is not None:
        room = 0
        for info in infos:
            reason = check(pod, info)
            if reason is not None and not reason.startswith("node(s) didn't have enough"):
                excluded[reason] += 1
            elif reason is None or not placement.simulated:
                room += _copies(pod, info)
        if not placement.simulated:
            fit = min(room, needed)
    short = max(needed - fit, 0)
    shortfall, per_pod = {}, {}
    if short and pod is not None:
        free = placement.free
        for resource, amount in sorted(pod.requests.items()):
            if amount and resource in free and free[resource] < needed * amount:
                shortfall[resource] = short * amount
                per_pod[resource] = amount
    return DomainExplanation(placement.name, len(infos), fit, needed, shortfall, per_pod,
                             dict(sorted(excluded.items())))


def _copies(pod: Pod, info: NodeInfo) -> int:
    """How many more copies of ``pod`` the node's idle resources hold."""
    if not fits_resources(pod, info):
        return 0
    alloc = info.node.allocatable
    counts = [alloc.get("pods", 0) - info.pod_count]
    for resource, amount in pod.requests.items():
        if amount > 0:
            counts.append((alloc.get(resource, 0) - info.requested.get(resource, 0)) // amount)
    return max(min(counts), 0)


def _failures(tried: Planned, domains: Sequence[DomainExplanation]
              ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The pods that failed in the closest domain, by KAI's message: when KAI tried that
    domain and a pod of the job fit on none of its nodes."""
    if not domains:
        return ()
    closest = next((p for p in tried.result.placements if p.name == domains[0].name), None)
    if closest is None or not closest.simulated or closest.feasible or \
            not closest.status.startswith("Resources were"):
        return ()
    outcome = tried.outcome
    failed = next((s for s in outcome.steps if not s.ok), None) if outcome else None
    if failed is None or closest.placed >= len(failed.tasks):
        return ()
    return ((closest.status, (failed.tasks[closest.placed].key,)),)


def _fits_empty(run: KaiRun, group: PodGroup, spec: KaiPodGroup, needed: int) -> bool:
    """Whether the job fits when the nodes hold nothing but the group's own running pods."""
    own = [p for p in run.by_group.get(group.key, []) if p.node_name and not p.terminal]
    empty = [NodeInfo(info.node, info.index) for info in run.state.nodes]
    for pod in own:
        empty[run.state.snapshot.node_index[pod.node_name]].add_pod(pod)
    return run.plan(group, spec, commit=False, nodes=empty).result.schedulable


def _fits(planned: Planned, needed: int) -> bool:
    outcome = planned.outcome
    return planned.result.schedulable and outcome is not None and \
        len(outcome.assigned) >= min(needed, len(planned.pending))


def _suggestions(run: KaiRun, group: PodGroup, spec: KaiPodGroup, tried: Planned,
                 domains: Sequence[DomainExplanation], needed: int) -> list[Suggestion]:
    out: list[Suggestion] = []
    out.extend(_min_member(run, group, spec, tried, domains))
    out.extend(_levels(run, group, spec, needed))
    out.extend(_add_nodes(run, group, spec, tried, domains, needed))
    return out


def _min_member(run: KaiRun, group: PodGroup, spec: KaiPodGroup, tried: Planned,
                domains: Sequence[DomainExplanation]) -> list[Suggestion]:
    """The largest smaller minMember that fits (a PodGroup without subgroups)."""
    if spec.subgroups or tried.result.schedulable or not domains:
        return []
    current = spec.min_member if spec.min_member is not None else 1
    scheduled = tried.result.scheduled
    for target in range(min(domains[0].fit + scheduled, current - 1), 0, -1):
        planned = run.plan(group, replace(spec, min_member=target), commit=False)
        if planned.result.schedulable:
            return [Suggestion("minMember", f"lower minMember from {current} to {target}",
                               planned.result)]
        if target <= scheduled:
            break
    return []


def _levels(run: KaiRun, group: PodGroup, spec: KaiPodGroup, needed: int) -> list[Suggestion]:
    """The next coarser required level of the Topology, and the required level made
    preferred."""
    c = spec.constraint
    topology = run.state.snapshot.kai.topologies.get(c.topology)
    if topology is None or not c.required:
        return []
    labels = topology.labels
    required = topology.resolve(c.required)
    if required not in labels:
        return []
    out = []
    for label in reversed(labels[:labels.index(required)]):
        changed = replace(spec, constraint=Constraint(c.topology, label, c.preferred))
        planned = run.plan(group, changed, commit=False)
        if _fits(planned, needed):
            out.append(Suggestion(
                "topologyKey", f"require {label} instead of {required} (Topology "
                f"{topology.name})", planned.result,
                details={"topologyKey": label, "coarser": True}))
            break
    preferred = c.preferred or required
    changed = replace(spec, constraint=Constraint(c.topology, "", preferred))
    planned = run.plan(group, changed, commit=False)
    if _fits(planned, needed):
        out.append(Suggestion("kaiPreferred", f"make {required} preferred instead of required",
                              planned.result))
    return out


def _add_nodes(run: KaiRun, group: PodGroup, spec: KaiPodGroup, tried: Planned,
               domains: Sequence[DomainExplanation], needed: int) -> list[Suggestion]:
    """Nodes shaped like the node of a close domain that takes the most of the job's pods
    when empty, added to that domain: the fewest that make the job fit."""
    if not tried.pending:
        return []
    pod = tried.pending[0]
    index = run.state.snapshot.node_index
    placements = {p.name: p for p in tried.result.placements}
    for domain in domains[:DOMAINS_TRIED]:
        template, per_node = None, 0
        for name in placements[domain.name].nodes:
            node = run.state.nodes[index[name]].node
            if node.unschedulable:
                continue
            empty = NodeInfo(node, 0)
            if run.fit([empty]).check(pod, empty) is not None:
                continue
            copies = _copies(pod, empty)
            if copies > per_node:
                template, per_node = node, copies
        if template is None:
            continue
        def grown(n: int, template=template, base=run.state.nodes) -> list[NodeInfo]:
            return [*base, *(NodeInfo(renamed(template, f"{template.name}-new-{k}"),
                                      len(base) + k - 1) for k in range(1, n + 1))]

        guess = -(-max(domain.short, 1) // per_node)
        n = next((k for k in range(guess, min(guess + EXTRA_TRIES, MAX_ADDED) + 1)
                  if _fits(run.plan(group, spec, commit=False, nodes=grown(k)), needed)), None)
        if n is None:
            continue
        while n > 1 and _fits(run.plan(group, spec, commit=False, nodes=grown(n - 1)), needed):
            n -= 1
        planned = run.plan(group, spec, commit=False, nodes=grown(n))
        return [Suggestion("addNodes", f"add {n} node(s) shaped like {template.name} to "
                           f"{domain.name!r}", planned.result, cost={"nodesAdded": n})]
    return []

