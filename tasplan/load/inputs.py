"""What real manifests need before decoding: names for objects that only have
``metadata.generateName``, and one word about every kind tasplan skips."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from tasplan.load.document import Document
from tasplan.model.bound_pods import Run
from tasplan.untrusted import QUOTE_CHARS, clean

# The API server appends 5 random characters from an alphabet without 0, 1 and 3; tasplan
# appends a zero-padded counter instead: stable across runs, and never a name the server
# could have generated.
_SUFFIX_WIDTH = 5
_SHOWN = 3

# Gang kinds of other schedulers (and their Jobs): tasplan cannot plan them as they are,
# but their pods can be planned as a kube-scheduler gang.
_OTHER_GANGS = {"PodGroup", "Job"}


def _shown(value: object) -> str:
    """Input text in a warning: printable, one line, not megabytes."""
    text = str(value)
    return clean(text[:QUOTE_CHARS]) + ("…" if len(text) > QUOTE_CHARS else "")


def generated_names(docs: list[Document]) -> tuple[list[Document], list[str]]:
    """Objects with ``generateName`` and no ``name`` get ``<generateName><counter>``,
    counted per kind, namespace and prefix in input order; the warning says so."""
    # Typed documents (``Document.model``: Nodes and bound Pods of large dumps) always
    # have a name; only the others are looked at, and all of them only when one needs it.
    unnamed = [i for i, d in enumerate(docs) if d.model is None and _generated(d.obj)]
    if not unnamed:
        return docs, []
    counters: Counter = Counter()
    named: list[str] = []
    out = list(docs)
    # A counter value whose name an object already has is skipped: a real Job j-00000 and
    # a generateName j- Job are two objects, not one defined twice.
    taken = set()
    for d in docs:
        if type(d.model) is Run:  # bound pods kept as records (model/bound_pods.py)
            taken.update(("Pod", ns, name) for ns, name, *_ in
                         d.model.store.records[d.model.start:d.model.end])
            continue
        if d.model is not None:
            taken.add((d.obj["kind"], str(getattr(d.model, "namespace", None)), d.model.name))
            continue
        meta = d.obj.get("metadata")
        if isinstance(meta, dict) and isinstance(meta.get("name"), str):
            taken.add((str(d.obj.get("kind")), str(meta.get("namespace")), meta["name"]))
    for i in unnamed:
        doc = docs[i]
        meta = doc.obj["metadata"]
        prefix = meta["generateName"]
        key = (str(doc.obj.get("kind")), str(meta.get("namespace")), prefix)
        name = f"{prefix}{counters[key]:0{_SUFFIX_WIDTH}d}"
        counters[key] += 1
        while (key[0], key[1], name) in taken:
            name = f"{prefix}{counters[key]:0{_SUFFIX_WIDTH}d}"
            counters[key] += 1
        taken.add((key[0], key[1], name))
        out[i] = Document(doc.source, {**doc.obj, "metadata": {**meta, "name": name}})
        named.append(f"{_shown(doc.obj.get('kind'))} {_shown(name)}")
    shown = ", ".join(named[:_SHOWN]) + (f" and {len(named) - _SHOWN} more"
                                         if len(named) > _SHOWN else "")
    return out, [f"{len(named)} object(s) have only metadata.generateName; tasplan names them "
                 f"<generateName> plus a 5-digit counter, the same on every run: {shown}"]


def _generated(obj: dict) -> bool:
    """Whether the object has no name but a ``generateName`` to make one from."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or meta.get("name"):
        return False
    prefix = meta.get("generateName")
    return isinstance(prefix, str) and bool(prefix)


# Another scheduler's gang kinds: what plans them, or how their pods are planned.
_OTHER_GANGS = {
    ("batch.volcano.sh", "Job"): "a Volcano job: --scheduler volcano (coming to tasplan); "
    "today, plan each task's template as a Job with --gang MINCOUNT --topology-key KEY",
    ("scheduling.volcano.sh", "PodGroup"): "Volcano's PodGroup: pods that name it "
    "(scheduling.k8s.io/group-name) are planned as one gang; --scheduler volcano reads it "
    "(coming to tasplan)",
    ("scheduling.run.ai", "PodGroup"): "KAI's PodGroup: pods that name it (pod-group-name) "
    "are planned as one gang; --scheduler kai reads it (coming to tasplan)",
    ("scheduling.x-k8s.io", "PodGroup"): "a coscheduling PodGroup: pods that name it "
    "(scheduling.x-k8s.io/pod-group) are planned as one gang of its minMember",
}
# Kinds that make pods which tasplan does not expand: what they make and how to plan it.
# Asked about and not answered, they make the run "could not check" (exit 4).
_NOT_EXPANDED = {
    ("batch", "CronJob"): "it makes one Job per schedule: plan spec.jobTemplate as a Job",
    ("ray.io", "RayCronJob"): "it makes one RayJob per schedule: plan spec.jobTemplate as a "
    "RayJob",
    ("sparkoperator.k8s.io", "SparkApplication"): "the Spark operator starts the driver, "
    "then the executors (no gang): plan spec.executor as a Job of spec.executor.instances "
    "pods",
    ("disaggregatedset.x-k8s.io", "DisaggregatedSet"): "it makes one LeaderWorkerSet per "
    "role (not expanded by tasplan yet): plan each role's spec as a LeaderWorkerSet",
    ("argoproj.io", "Workflow"): "Argo runs its steps' pods one after another (no gang): "
    "plan a step's template as a Pod or Job",
    ("tekton.dev", "PipelineRun"): "Tekton runs its tasks' pods one after another (no gang): "
    "plan a task's pod as a Pod",
    ("batch.volcano.sh", "JobFlow"): "it runs Volcano JobTemplates in order: plan each as a "
    "Volcano Job",
    ("agents.x-k8s.io", "Sandbox"): "one pod from spec.podTemplate: plan it as a Pod",
}


def makes_pods(api_version: str, kind: str) -> bool:
    """A kind whose pods tasplan does not expand (``kind_hint`` says how to plan them)."""
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    return (group, kind) in _NOT_EXPANDED


_GENERIC = ("another scheduler's gang: to see how its pods would fare as a kube-scheduler "
            "gang, plan its pod template as a Job, or the pods themselves, with --gang "
            "MINCOUNT --topology-key KEY")


def kind_hint(api_version: str, kind: str) -> str:
    """What would plan objects of a kind tasplan does not read ("" when nothing)."""
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    hint = _OTHER_GANGS.get((group, kind)) or _NOT_EXPANDED.get((group, kind))
    if hint is None and kind in ("PodGroup", "Job"):
        hint = _GENERIC
    return hint or ""


def skipped_kinds(ignored: Mapping[tuple[str, str], int]) -> list[str]:
    """One warning per apiVersion and kind that tasplan does not read."""
    out = []
    for (api_version, kind), n in sorted(ignored.items()):
        text = (f"skipped {n} {_shown(kind)} object(s) of apiVersion {_shown(api_version)}: "
                "tasplan does not read them")
        hint = kind_hint(api_version, kind)
        if hint:
            text += f" ({hint})"
        out.append(text)
    return out
