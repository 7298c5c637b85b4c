"""Pod shapes that ``tasplan capacity`` counts: ``--shape cpu=48,memory=256Gi,...`` (a pod
with those requests and nothing else), or the pending pods of workload files (``--for``),
with their tolerations, selectors and affinity."""

from __future__ import annotations

from dataclasses import dataclass

from tasplan.errors import UsageError
from tasplan.model.group import Policy
from tasplan.model.pod import Pod
from tasplan.model.quantity import QuantityError, parse_milli, parse_value
from tasplan.model.snapshot import ClusterSnapshot
from tasplan.model.source import Source
from tasplan.model.taints import EFFECTS, Toleration

# Upstream's non-zero defaults for a container without a cpu / memory request (scoring).
_DEFAULT_CPU = 100
_DEFAULT_MEMORY = 200 * 1024 * 1024


@dataclass(frozen=True)
class Shape:
    """``name`` is the ``--shape`` text itself, or the group (``ns/name``) of a ``--for``
    pod; ``pod`` is what the filters see; ``gang`` how many of them must fit together (the
    group's minCount, or ``--gang``), None when that is not asked."""

    name: str
    pod: Pod
    gang: int | None = None

    @property
    def requests(self) -> dict[str, int]:
        return {r: v for r, v in self.pod.requests.items() if v > 0}


def parse_toleration(text: str) -> Toleration:
    """``KEY[=VALUE][:EFFECT]`` (kubectl taint syntax); without a value it tolerates every
    value (``Exists``); ``:EFFECT`` alone (no key) tolerates every taint of that effect."""
    body, _, effect = text.partition(":")
    key, eq, value = body.partition("=")
    if effect and effect not in EFFECTS:
        raise UsageError(f"--tolerate {text!r}: effect must be one of {', '.join(EFFECTS)}")
    if eq and not key:
        raise UsageError(f"--tolerate {text!r}: a value needs a key (KEY=VALUE[:EFFECT])")
    if not key and not effect:
        raise UsageError(f"--tolerate {text!r}: expected KEY[=VALUE][:EFFECT]")
    return Toleration(key, "Equal" if eq else "Exists", value, effect)


def parse_shape(text: str, tolerations: tuple[Toleration, ...] = (),
                gang: int | None = None) -> Shape:
    requests: dict[str, int] = {}
    for part in text.split(","):
        resource, eq, qty = (s.strip() for s in part.partition("="))
        if not eq or not resource or not qty:
            raise UsageError(f"--shape {text!r}: expected RESOURCE=QUANTITY[,...] "
                             "(cpu=48,memory=256Gi,nvidia.com/gpu=8)")
        if resource == "pods":
            raise UsageError(f"--shape {text!r}: every pod takes one 'pods' slot; leave it out")
        if resource in requests:
            raise UsageError(f"--shape {text!r}: {resource} is given twice")
        try:
            value = parse_milli(qty) if resource == "cpu" else parse_value(qty)
        except QuantityError as exc:
            raise UsageError(f"--shape {text!r}: {resource}: {exc}") from None
        if value < 0:
            raise UsageError(f"--shape {text!r}: {resource} must not be negative")
        requests[resource] = value
    pod = Pod(namespace="default", name="shape", node_name="", phase="Pending", priority=0,
              requests=requests,
              non_zero=(requests.get("cpu") or _DEFAULT_CPU,
                        requests.get("memory") or _DEFAULT_MEMORY),
              source=Source("--shape"), order=0, tolerations=tolerations)
    return Shape(text, pod, gang)


def workload_shapes(snapshot: ClusterSnapshot) -> list[Shape]:
    """One shape per planned group and distinct kind of pending pod (pods that differ only
    in name are one shape); a group with several kinds names them ``ns/name[2]``, ..."""
    shapes = []
    by_group = snapshot.pods_by_group
    for group in snapshot.groups:
        if not group.planned:
            continue
        kinds: dict[tuple, Pod] = {}
        for pod in by_group.get(group.key, ()):
            if not pod.node_name and not pod.terminal:
                kinds.setdefault(pod.signature(), pod)
        # minCount counts the group's pods of every kind: a gang size only for one kind.
        gang = group.min_count if group.policy == Policy.GANG and len(kinds) == 1 else None
        for i, pod in enumerate(kinds.values(), 1):
            shapes.append(Shape(group.key if i == 1 else f"{group.key}[{i}]", pod, gang))
    return shapes
