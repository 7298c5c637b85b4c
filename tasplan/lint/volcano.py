"""Volcano's admission rules for its objects (TP250-TP255): the HyperNode webhook and its
validating admission policy (``pkg/webhooks/admission/hypernodes/validate``,
``installer/helm/chart/volcano/policy/hypernodes-validating.yaml``) and the vcjob webhook
(``pkg/webhooks/admission/jobs/validate/admit_job.go``), volcano commit
ed72c7c815a9fd547a787134676f73d42e9d049c. Fields are read defensively: the objects may have
schema violations of their own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tasplan.errors import InputError
from tasplan.lint.reader import Manifest
from tasplan.lint.report import Violation
from tasplan.load.go_regex import RegexError, compile_go_regex
from tasplan.load.kinds import VOLCANO_KINDS as KINDS
from tasplan.model.source import Source
from tasplan.model.volcano_inputs import HYPERNODE_VERSION, PODGROUP_VERSION, VCJOB_VERSION

Found = tuple[Manifest, Violation]
BOTH_TIERS = ("must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology "
              "simultaneously")


def _map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def is_volcano(m: Manifest) -> bool:
    return (m.api_version, m.kind) in KINDS


def validate(m: Manifest) -> list[Violation]:
    """The decoder's complaint as a schema finding (the API server's refusal), else the
    admission webhooks' rules."""
    # Volcano's decoders (and records): only for a Volcano object
    from tasplan.load.volcano import decode_hypernode, decode_podgroup, decode_vcjob

    try:
        if m.kind == "HyperNode":
            decode_hypernode(Source(m.file.label), m.obj)
        elif m.kind == "PodGroup":
            decode_podgroup(Source(m.file.label), m.obj, 0)
        else:
            decode_vcjob(Source(m.file.label), m.obj)
    except InputError as exc:
        path = tuple(int(n) if n else name for name, n in _TOKEN.findall(exc.field))
        detail = exc.detail
        rule = ("TP102" if "required field is missing" in detail
                else "TP108" if detail == "unknown field"
                else "TP105" if "Only one of" in detail or "Either" in detail
                else "TP101" if detail.startswith("expected a") else "TP107")
        return [Violation(rule, path, detail)]
    found: list[Found] = []
    if m.api_version == HYPERNODE_VERSION:
        found.extend(_hypernode(m))
    elif m.api_version == VCJOB_VERSION:
        found.extend(_vcjob(m))
    elif m.api_version == PODGROUP_VERSION:
        found.extend(_podgroup(m))
    return [v for _, v in found]


def _podgroup(m: Manifest) -> Iterator[Found]:
    """validate_podgroup.go ``validateNetworkTopology``: the PodGroup's, then the first
    sub-group policy's that sets both (upstream stops at one)."""
    spec = _map(m.obj.get("spec"))
    yield from _topology(m, _map(spec.get("networkTopology")), ("spec", "networkTopology"))
    for i, policy in enumerate(_list(spec.get("subGroupPolicy"))):
        nt = _map(_map(policy).get("networkTopology"))
        if nt.get("highestTierAllowed") is not None and nt.get("highestTierName"):
            yield m, Violation("TP254", ("spec", "subGroupPolicy", i, "networkTopology"),
                               f"in subGroupPolicy '{_map(policy).get('name')}': {BOTH_TIERS}")
            return


def _topology(m: Manifest, nt: dict, path: tuple) -> Iterator[Found]:
    if nt.get("highestTierAllowed") is not None and nt.get("highestTierName"):
        yield m, Violation("TP254", path, BOTH_TIERS)


def _hypernode(m: Manifest) -> Iterator[Found]:
    members = _list(_map(m.obj.get("spec")).get("members"))
    if not members:
        yield m, Violation("TP250", ("spec", "members"), "member must have at least one member")
    for i, member in enumerate(members):
        member = _map(member)
        selector = _map(member.get("selector"))
        pattern = _map(selector.get("regexMatch")).get("pattern")
        path = ("spec", "members", i, "selector")
        if isinstance(pattern, str) and pattern:
            try:
                compile_go_regex(pattern)
            except RegexError as exc:
                yield m, Violation("TP251", (*path, "regexMatch", "pattern"),
                                   f"member regexMatch pattern is invalid: {exc}")
        if member.get("type") == "HyperNode" and "exactMatch" not in selector:
            yield m, Violation("TP252", path, (
                "a HyperNode member is found by exactMatch only: Volcano ignores this member, "
                "so its HyperNode gets no parent here"))


def _vcjob(m: Manifest) -> Iterator[Found]:
    spec = _map(m.obj.get("spec"))
    name = m.name
    tasks = _list(spec.get("tasks"))
    if not tasks:
        yield m, Violation("TP253", ("spec", "tasks"), "No task specified in job spec")
    yield from _topology(m, _map(spec.get("networkTopology")), ("spec", "networkTopology"))
    seen: set[str] = set()
    total = 0
    for i, task in enumerate(tasks):
        task = _map(task)
        path = ("spec", "tasks", i)
        tname = task.get("name") if isinstance(task.get("name"), str) else ""
        replicas = _int(task.get("replicas")) or 0
        total += replicas
        minimum = _int(task.get("minAvailable"))
        if minimum is not None and minimum > replicas:
            yield m, Violation("TP253", (*path, "minAvailable"),
                               f"'minAvailable' is greater than 'replicas' in task: {tname}, "
                               f"job: {name}")
        if tname in seen:
            yield m, Violation("TP253", (*path, "name"), f"duplicated task name {tname}")
        seen.add(tname)
        yield from _partition(m, task, path, tname, name, replicas, minimum)
        yield from _pod_name(m, name, tname or f"default{i}", i, path)
    yield from _qualified(m, ("metadata", "name"), name, "create job with name")
    job_min = _int(spec.get("minAvailable"))
    if job_min is not None and total < job_min:
        yield m, Violation("TP253", ("spec", "minAvailable"),
                           "job 'minAvailable' should not be greater than total replicas in "
                           "tasks")


def _partition(m: Manifest, task: dict, path: tuple, tname: str, name: str, replicas: int,
               minimum: int | None) -> Iterator[Found]:
    if task.get("partitionPolicy") is None:
        return
    pp = _map(task.get("partitionPolicy"))
    ppath = (*path, "partitionPolicy")
    total, size = _int(pp.get("totalPartitions")) or 0, _int(pp.get("partitionSize")) or 0
    mins = _int(pp.get("minPartitions")) or 0
    where = f"in task: {tname}, job: {name}"
    if total <= 0:
        yield m, Violation("TP255", (*ppath, "totalPartitions"),
                           f"'TotalPartitions' must be greater than 0 {where}")
    elif size <= 0:
        yield m, Violation("TP255", (*ppath, "partitionSize"),
                           f"'PartitionSize' must be greater than 0 {where}")
    elif replicas != total * size:
        yield m, Violation("TP255", (*path, "replicas"),
                           f"'Replicas' are not equal to TotalPartitions*PartitionSize {where}")
    elif minimum is not None and mins > 0 and mins * size != minimum:
        yield m, Violation("TP255", (*path, "minAvailable"),
                           f"'MinAvailable' is not equal to MinPartitions*PartitionSize {where}")
    yield from _topology(m, _map(pp.get("networkTopology")), (*ppath, "networkTopology"))


# k8s.io/apimachinery/pkg/util/validation IsQualifiedName (a name without a prefix)
_QUALIFIED = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_QUALIFIED_MESSAGE = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
_QUALIFIED_MAX = 63


def _qualified(m: Manifest, path: tuple, value: str, what: str) -> Iterator[Found]:
    """admit_job.go ``validateJobName`` / ``validateK8sPodNameLength``."""
    errs = []
    if not value:
        errs.append("name part must be non-empty")
    elif len(value) > _QUALIFIED_MAX:
        errs.append(f"name part must be no more than {_QUALIFIED_MAX} characters")
    if not _QUALIFIED.fullmatch(value):
        errs.append(_QUALIFIED_MESSAGE)
    if errs:
        yield m, Violation("TP253", path, f"{what} {value} validate failed [{' '.join(errs)}]")


def _pod_name(m: Manifest, job: str, task: str, index: int, path: tuple) -> Iterator[Found]:
    """The pod name the webhook checks for each task: ``<job>-<task>-<task index>``
    (``jobhelpers.MakePodName`` with the task's index; the controller's pods end in the
    replica index, so a long name fails there too)."""
    if job:
        yield from _qualified(m, (*path, "name"), f"{job}-{task}-{index}",
                              "create pod with name")
