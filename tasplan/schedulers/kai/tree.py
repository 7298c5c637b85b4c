"""KAI's topology tree and its job filtering: which node sets a (sub)group may try, in order.

Mirrors ``pkg/scheduler/plugins/topology/{topology_plugin,topology_structs,common,
job_filtering,node_scoring,topology_utils}.go`` at d5bc503a:

* a node belongs to the tree only with every level label; a domain's ID is its label values
  from the top joined by ``.`` (so ``a.b``/``c`` and ``a``/``b.c`` are one domain, as
  upstream); a virtual ``root`` holds everything;
* free capacity (idle) is summed only below the lowest common domain of the node set, which
  stops at the preferred level; every other domain counts as empty;
* homogeneous tasks are counted as whole pods per node (``calcNodeAccommodation``), others by
  the ratio of their summed request to the domain's free capacity;
* candidates are the domains between the preferred (or required) level and the required level
  (or the root) that hold the whole job, bottom level first, each level in the order of the
  tree sorted most-packed first (ratio descending, ties by domain ID);
* with a preferred level, nodes score ``floor(10 * position / count) * 100000`` by the sorted
  position of their preferred-level domain (later = emptier = higher).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tasplan.framework.node_info import NodeInfo
from tasplan.model.kai import GPU, ROOT, Constraint, KaiTopology
from tasplan.model.pod import Pod

NOT_SET = -1
NOT_IN_DOMAIN_RATIO = 1000.0
TOPOLOGY_SCORE = 100000


class Domain:
    """One domain of the tree. ``nodes`` are the indexes of every node below it; ``children``
    are reordered by each sort, as upstream sorts its tree in place."""

    __slots__ = ("allocatable", "children", "depth", "free", "id", "level", "nodes")

    def __init__(self, domain_id: str, level: str, depth: int) -> None:
        self.id = domain_id
        self.level = level
        self.depth = depth
        self.children: list[Domain] = []
        self.nodes: list[int] = []
        self.allocatable = NOT_SET
        self.free: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"Domain({self.level}={self.id})"


class TopologyTree:
    """The tree of one Topology over the cluster's nodes (built once per plan)."""

    def __init__(self, topology: KaiTopology, infos: Sequence[NodeInfo]) -> None:
        self.topology = topology
        self.labels = topology.labels
        self.root = Domain(ROOT, ROOT, 0)
        self.by_level: dict[str, dict[str, Domain]] = {ROOT: {ROOT: self.root}}
        self.member = [False] * len(infos)
        for label in self.labels:
            self.by_level[label] = {}
        labels = self.labels
        for info in infos:
            node_labels = info.node.labels
            if not all(label in node_labels for label in labels):
                continue
            self.member[info.index] = True
            child: Domain | None = None
            for depth in range(len(labels), 0, -1):
                level = labels[depth - 1]
                domain_id = ".".join(node_labels[label] for label in labels[:depth])
                domains = self.by_level[level]
                domain = domains.get(domain_id)
                if domain is None:
                    domain = domains[domain_id] = Domain(domain_id, level, depth)
                domain.nodes.append(info.index)
                if child is not None and child not in domain.children:
                    domain.children.append(child)
                child = domain
            if child is not None and child not in self.root.children:
                self.root.children.append(child)
            self.root.nodes.append(info.index)
        self.depth_of = {ROOT: 0, **{label: i + 1 for i, label in enumerate(labels)}}

    def domains(self) -> Iterable[Domain]:
        for level in self.by_level.values():
            yield from level.values()


@dataclass(frozen=True, slots=True)
class DomainError:
    """Upstream's ``TopologyFitError``: a domain that cannot hold the (sub)group, in KAI's
    words (``detailed``; ``short`` for the condition's summary)."""

    domain: str
    subgroup: str
    detailed: tuple[str, ...]
    short: tuple[str, ...]
    # What the domain can hold: pods (homogeneous tasks) or None (ratio check).
    allocatable: int | None = None


@dataclass
class Subset:
    """``SubsetNodes``' answer for one (sub)group: the candidate domains in try order with
    their nodes, the node scores of a preferred level, and why domains were left out."""

    candidates: list[tuple[Domain, list[int]]] = field(default_factory=list)
    scores: dict[int, float] | None = None
    errors: list[DomainError] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)  # PodSchedulingErrors
    log: str = ""  # an upstream error that is only logged: the group cannot be placed
    lca: Domain | None = None
    lca_below_required: bool = False
    # Domains at the candidate levels below the lowest common domain that cannot hold it.
    rejected: list[tuple[Domain, DomainError]] = field(default_factory=list)


def requests_of(pod: Pod) -> dict[str, int]:
    """KAI's task resource vector: the pod's requests plus one ``pods`` slot."""
    return {**pod.requests, "pods": 1}


def idle(info: NodeInfo, resource: str) -> int:
    if resource == "pods":
        return info.node.allocatable.get("pods", 0) - info.pod_count
    return info.node.allocatable.get(resource, 0) - info.requested.get(resource, 0)


def overcommitted(info: NodeInfo) -> bool:
    """A negative idle value in any resource: upstream's ``LessEqual`` against it fails for
    every pod, even one that does not request the resource."""
    alloc = info.node.allocatable
    if info.pod_count > alloc.get("pods", 0):
        return True
    return any(v > alloc.get(r, 0) for r, v in info.requested.items())


def uses_gpu(pod: Pod) -> bool:
    return pod.requests.get(GPU, 0) > 0


def homogeneous(tasks: Sequence[Pod]) -> bool:
    """Upstream ``useRepresentorPodsAccounting``: every task or none asks for GPUs, and each
    other non-cpu/memory resource any task asks for is asked for by all of them."""
    if not tasks:
        return True
    gpu = sum(1 for t in tasks if uses_gpu(t))
    if gpu not in (0, len(tasks)):
        return False
    counts: dict[str, int] = {}
    for task in tasks:
        for r, v in task.requests.items():
            if r not in ("cpu", "memory", GPU) and v > 0:
                counts[r] = counts.get(r, 0) + 1
    return all(n == len(tasks) for n in counts.values())


def lowest_common_domain(tree: TopologyTree, infos: Sequence[NodeInfo], node_set: Sequence[int],
                         preferred: str) -> tuple[Domain, list[int]]:
    """Upstream ``lowestCommonDomainID``: the deepest domain holding every node of the set
    that carries all labels, not looking below the preferred level; and those nodes."""
    valid = [i for i in node_set if tree.member[i]]
    parts: list[str] = []
    for label in tree.labels:
        value = ""
        match = True
        for i in valid:
            new = infos[i].node.labels[label]
            if value == "":
                value = new
            if new != value:
                match = False
                break
        if not match or value == "":
            break
        parts.append(value)
        if label == preferred:
            break
    if not parts:
        return tree.root, valid
    level = tree.labels[len(parts) - 1]
    return tree.by_level[level][".".join(parts)], valid


def _fill_free(domain: Domain, infos: Sequence[NodeInfo], resources: Sequence[str]) -> None:
    """Upstream ``calcSubTreeFreeResources``: leaves sum their nodes, parents their children."""
    if not domain.children:
        free = dict.fromkeys(resources, 0)
        for i in domain.nodes:
            info = infos[i]
            for r in resources:
                free[r] += idle(info, r)
        domain.free = free
        return
    free = dict.fromkeys(resources, 0)
    for child in domain.children:
        _fill_free(child, infos, resources)
        for r in resources:
            free[r] += child.free[r]
    domain.free = free


def accommodation(info: NodeInfo, max_pod: Mapping[str, int], tasks: int) -> int:
    """Upstream ``calcNodeAccommodation``: how many copies of the largest task fit the node's
    idle capacity (GPU fractions and DRA dimensions are not modelled)."""
    if all(v <= 0 for r, v in max_pod.items() if r != "pods") and max_pod.get("pods", 0) <= 1:
        return tasks
    if overcommitted(info):
        return 0
    best = None
    for r, want in max_pod.items():
        if want <= 0:
            continue
        have = idle(info, r)
        if have < want:
            return 0
        n = have // want
        best = n if best is None else min(best, n)
    return tasks if best is None else best


def _fill_allocatable(domain: Domain, infos: Sequence[NodeInfo], max_pod: Mapping[str, int],
                      tasks: int, memo: dict[int, int]) -> int:
    if not domain.children:
        total = 0
        for i in domain.nodes:
            n = memo.get(i)
            if n is None:
                n = memo[i] = accommodation(infos[i], max_pod, tasks)
            total += n
        domain.allocatable = total
        return total
    domain.allocatable = sum(_fill_allocatable(c, infos, max_pod, tasks, memo)
                             for c in domain.children)
    return domain.allocatable


def ratio(total: Mapping[str, int], domain: Domain) -> float:
    """Upstream ``getJobRatioToFreeResources``: the dominant share of the domain's free
    capacity the tasks would take (pods slot ignored; 1000 where the domain has none)."""
    worst = 0.0
    for r, want in total.items():
        if want <= 0 or r == "pods":
            continue
        have = domain.free.get(r, 0)
        share = NOT_IN_DOMAIN_RATIO if have <= 0 else want / have
        worst = max(worst, share)
    return worst


def domain_error(domain: Domain, subgroup: str, total: Mapping[str, int], count: int
                 ) -> DomainError | None:
    """Upstream ``checkJobDomainFit``: None when the domain can hold the tasks."""
    if domain.allocatable != NOT_SET:
        if domain.allocatable >= count:
            return None
        return DomainError(domain.id, subgroup, (f"node-group {domain.id} can allocate only "
                                                 f"{domain.allocatable} of {count} required "
                                                 "pods",),
                           (f"node-group {domain.id} can allocate only {domain.allocatable} of "
                            f"{count} required pods",), domain.allocatable)
    if ratio(total, domain) <= 1.0:
        return None
    return insufficient(domain, subgroup, total)


def insufficient(domain: Domain, subgroup: str, total: Mapping[str, int]) -> DomainError:
    """Upstream ``NewTopologyInsufficientResourcesError``: one clause per short resource,
    cpu, memory and GPUs first, then the others by name."""
    detailed, short = [], []
    for r in sorted(total, key=_resource_rank):
        want, have = total[r], domain.free.get(r, 0)
        if want <= have:
            continue
        if r == GPU:
            detailed.append(f"{domain.id} didn't have enough resource: GPUs, requested: "
                            f"{_g3(want)}, available: {_g3(have)}")
            short.append("node-group(s) didn't have enough resources: GPUs")
        elif r == "cpu":
            detailed.append(f"{domain.id} didn't have enough resources: CPU cores, requested: "
                            f"{_ftoa3(want / 1000)}, available: {_ftoa3(have / 1000)}")
            short.append("node-group(s) didn't have enough resources: CPU cores")
        elif r == "memory":
            detailed.append(f"{domain.id} didn't have enough resources: memory, requested: "
                            f"{_ftoa3(want / 1e9)}, available: {_ftoa3(have / 1e9)}")
            short.append("node-group(s) didn't have enough resources: memory")
        else:
            detailed.append(f"{domain.id} didn't have enough resource: {r}, requested: {want}, "
                            f"available: {have}")
            short.append(f"node-group(s) didn't have enough resources: {r}")
    return DomainError(domain.id, subgroup, tuple(detailed), tuple(short))


def _resource_rank(r: str) -> tuple[int, str]:
    return ({"cpu": 0, "memory": 1, GPU: 2, "pods": 3}.get(r, 4), r)


def _g3(value: float) -> str:
    """Go's ``strconv.FormatFloat(v, 'g', 3, 64)``."""
    text = f"{value:.3g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = exp[0]
        digits = exp[1:].lstrip("0").rjust(2, "0")
        text = f"{mantissa}e{sign}{digits}"
    return text


def _ftoa3(value: float) -> str:
    """go-humanize ``FtoaWithDigits(v, 3)``: at most 3 decimals, trailing zeros dropped."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def sort_tree(domain: Domain, total: Mapping[str, int], max_depth: str) -> None:
    """Upstream ``sortTree``: children most packed first (ratio descending, ties by ID),
    down to the max-depth level (whose children are sorted too)."""
    if not max_depth:
        return
    ratios = {id(c): ratio(total, c) for c in domain.children}
    domain.children.sort(key=lambda c: (-ratios[id(c)], c.id))
    if domain.level == max_depth:
        return
    for child in domain.children:
        sort_tree(child, total, max_depth)


def reverse_level_order(root: Domain) -> list[Domain]:
    """Upstream ``reverseLevelOrder``: breadth-first levels, deepest level first."""
    levels: list[list[Domain]] = []
    queue = [root]
    while queue:
        levels.append(queue)
        queue = [c for d in queue for c in d.children]
    return [d for level in reversed(levels) for d in level]


def level_domains(domain: Domain, level: str) -> list[Domain]:
    """Upstream ``getLevelDomains``: the domains of ``level`` below ``domain``, in tree order."""
    if domain.level == level:
        return [domain]
    return [d for c in domain.children for d in level_domains(c, level)]


def node_scores(lca: Domain, preferred: str) -> dict[int, float]:
    """Upstream ``calculateNodeScores``."""
    domains = level_domains(lca, preferred)
    scores: dict[int, float] = {}
    for i, domain in enumerate(domains):
        score = math.floor((i + 1) / len(domains) * 10) * TOPOLOGY_SCORE
        for node in domain.nodes:
            scores[node] = float(score)
    return scores


def relevant_levels(tree: TopologyTree, constraint: Constraint, subgroup: str,
                    workload: bool) -> tuple[list[str], str]:
    """Upstream ``calculateRelevantDomainLevels``: the levels from the preferred (or required)
    level up to the required one (or the root); or the error upstream only logs."""
    required, preferred = constraint.required, constraint.preferred
    if not required and not preferred:
        return [], (f"no topology constraints were found for subgroup {subgroup}, with "
                    f"topology name {tree.topology.name}")
    levels = [*reversed(tree.labels), ROOT]
    out: list[str] = []
    found_required = found_preferred = False
    for level in levels:
        found_preferred |= level == preferred
        found_required |= level == required
        if found_preferred or found_required:
            out.append(level)
        if found_required:
            break
    owner = "workload" if workload else f"sub-group {subgroup}"
    for kind, level, found in (("required", required, found_required),
                               ("preferred", preferred, found_preferred)):
        if level and not found:
            return [], (f"topology constraint error: {owner} specified '{level}' as the {kind} "
                        f"topology constraint level, but the topology tree "
                        f"'{tree.topology.name}' does not contain a level with this name")
    return out, ""


def no_match(tree: TopologyTree, constraint: Constraint, job: str, subgroup: str | None,
             suffix: str = "") -> str:
    """Upstream ``getNoTopologyMatchError``."""
    what = f"job <{job}>" + (f", subgroup {subgroup}" if subgroup else "")
    return (f"topology {tree.topology.name}, requirement {constraint.required} couldn't be "
            f"satisfied for {what}" + (f": {suffix}" if suffix else ""))


def subset_nodes(tree: TopologyTree, infos: Sequence[NodeInfo], constraint: Constraint,
                 subgroup: str, shown_subgroup: str | None, job: str, tasks: Sequence[Pod],
                 node_set: Sequence[int], active_nodes: Sequence[str] | None,
                 workload: bool) -> Subset:
    """Upstream ``subSetNodesFn`` for a (sub)group whose constraint names ``tree``.
    ``active_nodes``: the nodes of the (sub)group's pods already running or assumed, when
    it has any (they bound a required level)."""
    out = Subset()
    lca, valid = lowest_common_domain(tree, infos, node_set, constraint.preferred)
    out.lca = lca
    for domain in tree.domains():
        domain.allocatable = NOT_SET
        domain.free = {}
    total: dict[str, int] = {}
    for task in tasks:
        for r, v in requests_of(task).items():
            total[r] = total.get(r, 0) + v
    _fill_free(lca, infos, list(total))
    if homogeneous(tasks):
        max_pod: dict[str, int] = {}
        for task in tasks:
            for r, v in requests_of(task).items():
                max_pod[r] = max(max_pod.get(r, 0), v)
        _fill_allocatable(lca, infos, max_pod, len(tasks), {})
    count = len(tasks)
    shown = "" if shown_subgroup is None else shown_subgroup
    if domain_error(lca, shown, total, count) is not None:
        where = "the cluster" if lca is tree.root else lca.id
        out.messages.append(no_match(tree, constraint, job, shown_subgroup,
                                     f"not enough resources in {where} to allocate the job"))
        return out
    max_depth = constraint.preferred or constraint.required
    sort_tree(lca, total, max_depth)
    if constraint.preferred:
        out.scores = node_scores(lca, constraint.preferred)
    levels, log = relevant_levels(tree, constraint, subgroup, workload)
    if log:
        out.log = log
        return out
    if constraint.required and tree.depth_of[lca.level] > tree.depth_of[constraint.required]:
        out.lca_below_required = True
    allowed: set[int] | None = None
    if active_nodes is not None and constraint.required:
        allowed = set()
        names = set(active_nodes)
        for domain in tree.by_level[constraint.required].values():
            if any(infos[i].node.name in names for i in domain.nodes):
                allowed.update(id(d) for d in _subtree(domain))
    fitting: set[int] = set()
    top: list[DomainError] = []
    below = {id(d) for d in _subtree(lca)}
    for rank, level in enumerate(levels):
        for domain in tree.by_level[level].values():
            if allowed is not None and id(domain) not in allowed:
                continue
            error = domain_error(domain, shown, total, count)
            if error is None:
                fitting.add(id(domain))
                continue
            if id(domain) in below:  # others hold nothing in KAI's accounting
                out.rejected.append((domain, error))
            if rank == len(levels) - 1:
                top.append(error)
    order = reverse_level_order(tree.root)
    position = {id(d): i for i, d in enumerate(order)}
    out.rejected.sort(key=lambda item: position[id(item[0])])
    if not fitting:
        out.errors = top
        out.messages.append(no_match(tree, constraint, job, shown_subgroup))
        return out
    valid_set = set(valid)
    for domain in order:
        if id(domain) in fitting:
            out.candidates.append((domain, [i for i in domain.nodes if i in valid_set]))
    return out


def _subtree(domain: Domain) -> Iterable[Domain]:
    yield domain
    for child in domain.children:
        yield from _subtree(child)
