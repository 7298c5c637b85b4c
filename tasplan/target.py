"""The Kubernetes release tasplan plans for, and its feature gates: every per-release fact in
one place (read from kubernetes/kubernetes ``pkg/features/kube_features.go``, the scheduler's
pod-group code and ``staging/src/k8s.io/api/scheduling`` of each release; 1.38 is upstream
main as tasplan was last checked against it).

What differs between releases, and where it is used:
- the ``scheduling.k8s.io`` versions the API server serves (loader, ``tasplan lint``);
- the feature gates and their defaults; gates switch default plugins (TopologyAware... off
  drops the placement plugins) and whole paths (GenericWorkload off: no pod-group cycle);
- whether the nominated-placement fast path exists (merged for 1.38);
- when workload-aware preemption runs (1.36: WorkloadAwarePreemption gate, never for groups
  with a topology constraint; 1.37+: part of GenericWorkload, every group);
- how it picks victims (1.36 re-runs the group per candidate; UID tie-break and the PDB
  selector fix in 1.38; ``preemption.evaluator.Rules``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tasplan.errors import UsageError

GENERIC_WORKLOAD = "GenericWorkload"
GANG_SCHEDULING = "GangScheduling"
TOPOLOGY_AWARE = "TopologyAwareWorkloadScheduling"
WORKLOAD_AWARE_PREEMPTION = "WorkloadAwarePreemption"
POD_GROUP_PREEMPTION_POLICY = "PodGroupPreemptionPolicy"
COMPOSITE_POD_GROUP = "CompositePodGroup"
DRA_WORKLOAD_CLAIMS = "DRAWorkloadResourceClaims"

SCHEDULING = "scheduling.k8s.io"


# What the group cycle validates before scheduling (``schedulers.kube.admission``).
SCHEDULER_NAME = "scheduler-name"  # 1.36: the pending pods' schedulerName only
PODS = "pods"  # 1.37: every pod against the root's priority and policy
HIERARCHY = "hierarchy"  # 1.38: also every group of a tree (PR kubernetes#141930)


class Preemption:
    """When workload-aware preemption runs for a pod group that does not fit."""

    NONE = "none"  # no pod-group preemption (1.35's per-pod gang path is not modelled)
    UNCONSTRAINED = "unconstrained"  # 1.36: only groups without a topology constraint
    ALL = "all"  # 1.37+: every group, the placement algorithm re-run without the victims


@dataclass(frozen=True)
class Release:
    """Facts of one minor release. ``gates``: the scheduling-relevant gates it knows, with
    their defaults; a gate missing here does not exist in the release (merged or not yet
    added). ``preemption_gate`` must be on (with GenericWorkload) for ``preemption``."""

    version: str
    api_versions: tuple[str, ...]
    gates: Mapping[str, bool]
    preemption: str
    preemption_gate: str = GENERIC_WORKLOAD
    nominated_placement_fast_path: bool = False
    # Victim selection (pkg/scheduler/framework/preemption): reprieve by re-running the
    # group's cycle per candidate (1.36, PR kubernetes#137606; 1.37 checks filters once),
    # UID tie-break of equally important victims (PR #140999), and the PDB checks that
    # skip unlabelled pods and empty selectors (removed by PR #141785).
    reprieve_by_rerun: bool = False
    victim_uid_tiebreak: bool = True
    pdb_legacy_selectors: bool = False
    # 1.36's group cycle: feasible once some pod's Permit succeeds (no PlacementFeasible),
    # so a placement where no pending pod fits is infeasible even without GangScheduling.
    permit_feasibility: bool = False
    group_validation: str = HIERARCHY
    # 1.36 queues pods, not groups: a group's cycle starts with its first popped pod.
    pod_queue: bool = False


RELEASES: Mapping[str, Release] = {
    "1.35": Release("1.35", (f"{SCHEDULING}/v1alpha1",),
                    {GENERIC_WORKLOAD: False, GANG_SCHEDULING: False}, Preemption.NONE,
                    group_validation=PODS),
    "1.36": Release("1.36", (f"{SCHEDULING}/v1alpha2",),
                    {GENERIC_WORKLOAD: False, GANG_SCHEDULING: False, TOPOLOGY_AWARE: False,
                     WORKLOAD_AWARE_PREEMPTION: False, DRA_WORKLOAD_CLAIMS: False},
                    Preemption.UNCONSTRAINED, preemption_gate=WORKLOAD_AWARE_PREEMPTION,
                    reprieve_by_rerun=True, victim_uid_tiebreak=False,
                    pdb_legacy_selectors=True, permit_feasibility=True,
                    group_validation=SCHEDULER_NAME, pod_queue=True),
    # 1.37 merged GangScheduling and WorkloadAwarePreemption into GenericWorkload.
    "1.37": Release("1.37", (f"{SCHEDULING}/v1alpha3", f"{SCHEDULING}/v1beta1"),
                    {GENERIC_WORKLOAD: False, TOPOLOGY_AWARE: False,
                     POD_GROUP_PREEMPTION_POLICY: False, COMPOSITE_POD_GROUP: False,
                     DRA_WORKLOAD_CLAIMS: False}, Preemption.ALL,
                    victim_uid_tiebreak=False, pdb_legacy_selectors=True,
                    group_validation=PODS),
    "1.38": Release("1.38", (f"{SCHEDULING}/v1alpha3", f"{SCHEDULING}/v1beta1"),
                    {GENERIC_WORKLOAD: False, TOPOLOGY_AWARE: False,
                     POD_GROUP_PREEMPTION_POLICY: False, COMPOSITE_POD_GROUP: False,
                     DRA_WORKLOAD_CLAIMS: False}, Preemption.ALL,
                    nominated_placement_fast_path=True),
}
DEFAULT_VERSION = "1.37"


@dataclass(frozen=True)
class Target:
    """The release planned for and the gates in effect. ``assumed`` names gates the inputs
    need that were off by default and were turned on; ``notes`` say what else was decided
    and why (a release chosen from the inputs' API versions, gates ignored)."""

    release: Release
    gates: Mapping[str, bool]
    assumed: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    # Given (--kube-version) or reported by the cluster: inputs the release does not serve
    # are then errors; a defaulted target only warns.
    strict: bool = False

    @property
    def version(self) -> str:
        return self.release.version

    @property
    def all_notes(self) -> tuple[str, ...]:
        """``notes`` plus the routine one on gates assumed on (the JSON report lists both;
        the table prints only ``notes``: needing the gates one's inputs use is expected)."""
        if not self.assumed:
            return self.notes
        return (f"assumed on because the inputs use them (off by default in {self.version}): "
                f"{', '.join(self.assumed)}; turn off with --feature-gates "
                f"{self.assumed[0]}=false", *self.notes)

    def enabled(self, gate: str) -> bool:
        return self.gates.get(gate, False)

    @property
    def gang_scheduling(self) -> bool:
        """The GangScheduling plugin is registered (its own gate until 1.37)."""
        return self.enabled(GENERIC_WORKLOAD) and (
            GANG_SCHEDULING not in self.release.gates or self.enabled(GANG_SCHEDULING))

    def preemption_for(self, constrained: bool) -> bool:
        """Whether workload-aware preemption runs for a group (with or without a topology
        constraint) that does not fit."""
        mode = self.release.preemption
        if mode == Preemption.NONE or not self.enabled(GENERIC_WORKLOAD):
            return False
        if not self.enabled(self.release.preemption_gate):
            return False
        return mode == Preemption.ALL or not constrained


def parse_version(text: str) -> str:
    """``1.37``, ``v1.37.2``, ``1.37.0-gke.1`` -> ``1.37``; a release tasplan does not model
    is a usage error."""
    match = re.match(r"v?(\d+)\.(\d+)(?:$|[.+-])", text.strip())
    if match is None:
        raise UsageError(f"--kube-version {text!r}: expected a version such as 1.37")
    version = f"{int(match[1])}.{int(match[2])}"
    if version not in RELEASES:
        raise UsageError(f"--kube-version {text!r}: tasplan models Kubernetes "
                         f"{', '.join(RELEASES)}")
    return version


def server_release(server_version: str) -> str | None:
    """The modelled release of a server version string (``v1.37.1``), None when it is not
    one tasplan models (then the default applies)."""
    try:
        return parse_version(server_version) if server_version else None
    except UsageError:
        return None


def parse_gates(text: str | None) -> dict[str, bool]:
    """kube-scheduler's ``--feature-gates`` syntax: ``Name=true,Other=false``."""
    out: dict[str, bool] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip().lower()
        if not sep or not name or value not in ("true", "false"):
            raise UsageError(f"--feature-gates {item!r}: expected Name=true or Name=false")
        out[name] = value == "true"
    return out


def serving_releases(api_version: str) -> tuple[str, ...]:
    return tuple(v for v, r in RELEASES.items() if api_version in r.api_versions)


def resolve(version: str | None, gates: Mapping[str, bool] | None = None, *,
            server_version: str = "", needs: Iterable[str] = (),
            api_versions: Iterable[str] = ()) -> Target:
    """The target for a run. ``version``: --kube-version (wins); else the server version of
    a live cluster or snapshot; else the newest release that serves every ``api_versions``
    of the inputs, preferring 1.37. ``needs``: gates the inputs obviously need; those off by
    default are turned on unless ``gates`` sets them, and a note says so. Gates that do not
    change what tasplan models in the release are ignored, with a note."""
    notes: list[str] = []
    used = sorted(set(api_versions))
    strict = True
    if version is not None:
        chosen = parse_version(version)
    elif (from_server := server_release(server_version)) is not None:
        chosen = from_server
    else:
        chosen, strict = DEFAULT_VERSION, False
        unserved = [v for v in used if v not in RELEASES[chosen].api_versions]
        if unserved:
            fits = [r for r in RELEASES if all(v in RELEASES[r].api_versions for v in used)]
            if fits:
                chosen = fits[-1]
                notes.append(f"targeting Kubernetes {chosen}: the inputs use "
                             f"{', '.join(used)}, which {DEFAULT_VERSION} does not serve")
            else:
                notes.append(f"no Kubernetes release serves all of {', '.join(used)}: "
                             f"planning for {chosen}, each group as written; give "
                             "--kube-version to check the inputs against one release")
    release = RELEASES[chosen]
    given = {k: v for k, v in (gates or {}).items() if k in release.gates}
    ignored = sorted(set(gates or {}) - set(given))
    if ignored:
        notes.append(f"--feature-gates: {', '.join(ignored)} ignored: not a gate that changes "
                     f"what tasplan models for Kubernetes {chosen} (modelled: "
                     f"{', '.join(sorted(release.gates))})")
    effective = dict(release.gates)
    assumed = []
    for gate in needs:
        if gate in effective and gate not in given and not effective[gate]:
            effective[gate] = True
            assumed.append(gate)
    effective.update(given)
    return Target(release, effective, tuple(assumed), tuple(notes), strict)


def check_api_versions(target: Target, api_versions: Mapping[str, object]) -> None:
    """An input object whose scheduling.k8s.io version the target does not serve is an
    input error (the API server would reject it). ``api_versions``: version -> the object's
    label for the message (first one seen)."""
    from tasplan.errors import InputError

    if not target.strict:
        return
    for version, where in sorted(api_versions.items()):
        if version.startswith(SCHEDULING + "/") and version not in target.release.api_versions:
            others = serving_releases(version)
            hint = f" (served by {', '.join(others)})" if others else ""
            raise InputError(str(where), f"{version} is not served by Kubernetes "
                             f"{target.version}, which serves "
                             f"{', '.join(target.release.api_versions)}{hint}; give "
                             "--kube-version to plan for another release")
