"""Lint what ``tasplan check`` does to the pod-producing objects, with check's own code and
words: each object is expanded by the loader's decoder for its kind, and one pod of every
template is decoded (TP218 when check would refuse it; TP219 when check cannot expand it
from these inputs); the recognised scheduling keys kube-scheduler does not read are the
warnings check prints (TP220)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import cache

import orjson

from tasplan.errors import InputError
from tasplan.lint.reader import Manifest
from tasplan.lint.report import Path, Violation
from tasplan.load.batch import JobOverrides
from tasplan.load.core_v1 import PriorityResolver, decode_pod
from tasplan.load.documents import Document
from tasplan.load.fields import ObjectFields
from tasplan.load.intents import find_intents
from tasplan.load.loader import pod_producers
from tasplan.load.producers import Producer, Unplannable, synthesise
from tasplan.load.trainjob import RUNTIME_KINDS
from tasplan.model.scheduling_keys import KEYS, Status, Where, describe
from tasplan.model.source import Source

Found = tuple[Manifest, Violation]
_STEP = re.compile(r"\.?([^.\[\]]+)|\[([^\]]*)\]")


class _AnyPriority(PriorityResolver):
    """Priority classes are the cluster's (``lint --cluster`` checks them): any name
    resolves here."""

    def __init__(self) -> None:
        super().__init__({})

    def resolve(self, f: ObjectFields, name: str, field: str, what: str = "pod") -> int:
        return 0


def parse_path(path: str) -> Path:
    """``spec.a[0].b[kueue.x-k8s.io/key]`` -> ("spec", "a", 0, "b", "kueue.x-k8s.io/key")."""
    out: list[str | int] = []
    for name, index in _STEP.findall(path):
        out.append(name if name else (int(index) if index.isdigit() else index))
    return tuple(out)


def _source(m: Manifest) -> Source:
    return Source(m.file.label, m.document, m.item, True)


def _obj(m: Manifest, namespace: str) -> dict:
    obj = m.obj
    meta = obj.get("metadata") or {}
    if not m.namespace and isinstance(meta, dict):  # else the decoder names metadata's type
        obj = {**obj, "metadata": {**meta, "namespace": namespace}}
    return obj


def _relative(err: InputError, source: Source) -> Path:
    """The error's field path inside the manifest (without its list-item prefix)."""
    prefix = source.field_prefix()
    field = err.field or ""
    if prefix and field.startswith(prefix):
        field = field[len(prefix):].lstrip(".")
    return parse_path(field)


def _templates(producer: Producer) -> None:
    """Decode one pod of each template, as check decodes the pods it synthesises."""
    owner = ObjectFields(producer.source, producer.obj)
    priorities = _AnyPriority()
    seen: set[int] = set()
    for batch in producer.batches:
        if id(batch.template) in seen or not batch.count:
            continue
        seen.add(id(batch.template))
        name, labels = batch.pod(0)
        decode_pod(producer.source, synthesise(batch.template, producer.namespace, name,
                                               labels), 0, priorities,
                   spec_path=batch.spec_path or f"{batch.template_path}.spec",
                   synthesised=True, owner=batch.owner or owner)


@cache
def _warned(kind_id: str) -> re.Pattern[bytes] | None:
    """What TP220 may warn about in an object of ``kind_id``, as JSON text: the keys of
    labels and annotations it warns about, the last name of each such field of the kind's.
    None: a field named by a pattern (every such object is walked)."""
    names = []
    for key in KEYS:
        if not all(s == Status.WARNED for s in key.planned.values()):
            continue
        if key.where != Where.FIELD:
            names.append(key.key)
        elif kind_id in key.kinds or not key.kinds:  # as find_intents picks fields
            name = key.key.rpartition(".")[2]
            if any(c in name for c in "*?["):
                return None
            names.append(name)
    return re.compile(b"|".join(re.escape(orjson.dumps(n)) for n in names) or b"(?!)")


def _may_warn(obj: object, kind_id: str) -> bool:
    """False when no key TP220 warns about is in the object's JSON (every key of every
    mapping is written there): the walk over it (``find_intents``) would find none."""
    pattern = _warned(kind_id)
    if pattern is None:
        return True
    try:
        text = orjson.dumps(obj)
    except TypeError:  # a key that is not a string, a date: walk it
        return True
    return pattern.search(text) is not None


def check(manifests: Iterable[Manifest], namespace: str = "default") -> list[Found]:
    manifests = list(manifests)
    runtimes = [Document(_source(m), _obj(m, namespace)) for m in manifests
                if m.kind in RUNTIME_KINDS and m.api_version.startswith("trainer.kubeflow.org/")]
    decoders: Mapping = pod_producers(runtimes)
    out: list[Found] = []
    # Documents of one shape differ in a plain metadata.name alone, a value (TP220 warns
    # about keys): when the first has no warned key, none has.
    warns: dict[int, bool] = {}
    for m in manifests:
        decode = decoders.get((m.api_version, m.kind))
        obj = _obj(m, namespace)
        if decode is not None:
            source = _source(m)
            try:
                made = decode(source, obj, JobOverrides())
                for producer in made if isinstance(made, list) else [made]:
                    _templates(producer)
            except InputError as err:
                out.append((m, Violation("TP218", _relative(err, source), err.detail)))
            except Unplannable as exc:
                text = f"tasplan check skips it: {exc.reason}"
                out.append((m, Violation("TP219", ("spec",),
                                         text + (f" ({exc.hint})" if exc.hint else ""))))
        kind_id = (f"{m.api_version.rsplit('/', 1)[0]}/{m.kind}" if "/" in m.api_version
                   else m.kind)
        if m.shape is None:
            may = _may_warn(obj, kind_id)
        else:
            may = warns[m.shape] if m.shape in warns else \
                warns.setdefault(m.shape, _may_warn(obj, kind_id))
        if not may:
            continue
        f = ObjectFields(_source(m), obj)
        for intent in find_intents(obj, f"{m.kind} {f.name}", kind_id):
            # Warned when no scheduler of tasplan's honours it (check's auto plans such a
            # workload with the one that does).
            if all(status == Status.WARNED for status in intent.key.planned.values()):
                text = f"{intent.value!r}: {describe(intent.key, intent.value)}"
                out.append((m, Violation("TP220", parse_path(intent.path), text)))
    return out
