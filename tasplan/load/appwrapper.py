"""workload.codeflare.dev/v1beta2 AppWrapper -> its components, each expanded as its own
kind would be (see ``producers``).

Mirrors project-codeflare/appwrapper b47a99ee8e289ddd9f968069f1fe61decbb5ef8c,
``internal/controller/appwrapper/resource_management.go`` (``parseComponent``,
``createComponent``) and ``pkg/utils/utils.go`` (``getValueAtPath``): each component's
``template`` is created in the AppWrapper's namespace with the label
``workload.codeflare.dev/appwrapper: <name>`` (the component's own value wins), which the
pod templates of its PodSets get too, and each declared PodSet's ``podSetInfos`` entry
(what Kueue injects at admission: labels, annotations, nodeSelector, tolerations,
schedulingGates) merged into the template at its ``path``. The components are then the
objects their controllers expand: a Job, a PyTorchJob, a RayCluster... Pod components are
one group ``<ns>/<appwrapper>``. Components of kinds that make no pods (Services,
ConfigMaps) are left out; kinds tasplan does not read are skipped with the usual warning.

Kueue admits an AppWrapper as one workload; kube-scheduler sees each component's pods with
the component's own scheduling, which is what is planned.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from tasplan.load.fields import ObjectFields
from tasplan.load.producers import (
    Overrides,
    PodBatch,
    Producer,
    identity,
    pod_template,
    required_list,
)
from tasplan.model.source import Source

GROUP = "workload.codeflare.dev"
VERSIONS = (f"{GROUP}/v1beta2",)
LABEL = f"{GROUP}/appwrapper"
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")

Decode = Callable[[Source, Mapping[str, Any], Overrides], Any]


def _template_at(obj: Mapping[str, Any], path: str) -> Mapping[str, Any] | None:
    """``getValueAtPath``: ``template`` (the component itself) then ``.field`` / ``[i]``."""
    if not path.startswith("template"):
        return None
    cursor: Any = obj
    rest = path[len("template"):]
    pos = 0
    while pos < len(rest):
        m = _STEP.match(rest, pos)
        if m is None:
            return None
        key, index = m.groups()
        if key is not None:
            cursor = cursor.get(key) if isinstance(cursor, dict) else None
        else:
            i = int(index)
            cursor = cursor[i] if isinstance(cursor, list) and i < len(cursor) else None
        if cursor is None:
            return None
        pos = m.end()
    return cursor if isinstance(cursor, dict) else None


def _inject(template: dict[str, Any], info: Mapping[str, Any], aw: str) -> None:
    """``createComponent``'s injection into one pod template, in place (a copy)."""
    meta = dict(template.get("metadata") or {})
    spec = dict(template.get("spec") or {})
    labels = {**(info.get("labels") or {}), LABEL: aw}
    meta["labels"] = {**labels, **(meta.get("labels") or {})}  # MergeKeepFirst(existing, ..)
    if info.get("annotations"):
        meta["annotations"] = {**info["annotations"], **(meta.get("annotations") or {})}
    if info.get("nodeSelector"):
        spec["nodeSelector"] = {**info["nodeSelector"], **(spec.get("nodeSelector") or {})}
    if info.get("tolerations"):
        spec["tolerations"] = [*(spec.get("tolerations") or []), *info["tolerations"]]
    if info.get("schedulingGates"):
        names = {g.get("name") for g in spec.get("schedulingGates") or []
                 if isinstance(g, dict)}
        spec["schedulingGates"] = [*(spec.get("schedulingGates") or []),
                                   *({"name": g["name"]} for g in info["schedulingGates"]
                                     if g.get("name") not in names)]
    template["metadata"], template["spec"] = meta, spec


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _labelled(batch: PodBatch, aw: str) -> PodBatch:
    """The AppWrapper label on a component's pod template (every PodSet gets it; the
    template's own value wins, as MergeKeepFirst)."""
    meta = batch.template.get("metadata") or {}
    labels = {LABEL: aw, **(meta.get("labels") or {})}
    return replace(batch, template={**batch.template, "metadata": {**meta, "labels": labels}})


def _pod(name: str, _: int) -> tuple[str, Mapping[str, str]]:
    return name, {}


def decode_appwrapper(source: Source, obj: Mapping[str, Any], overrides: Overrides,
                      decoders: Mapping[tuple[str, str], Decode]) -> list[Producer]:
    f = ObjectFields(source, obj)
    namespace, name, spec = identity(f)
    via = f"AppWrapper {namespace}/{name}"
    out: list[Producer] = []
    pods: list[PodBatch] = []
    for i, raw in enumerate(required_list(f, spec.get("components"), "spec.components")):
        path = f"spec.components[{i}]"
        c = f.mapping(raw, path)
        tpl = f.mapping(c.get("template"), f"{path}.template")
        if not tpl:
            raise f.error(f"{path}.template", "required field is missing")
        api, kind = tpl.get("apiVersion"), tpl.get("kind")
        for value, key in ((api, "apiVersion"), (kind, "kind")):
            f.string(value, f"{path}.template.{key}", required=True)
        meta = f.mapping(tpl.get("metadata"), f"{path}.template.metadata")
        ns = f.string(meta.get("namespace"), f"{path}.template.metadata.namespace")
        if ns and ns != namespace:
            raise f.error(f"{path}.template.metadata.namespace", f"component namespace {ns!r} "
                          f"is different from appwrapper namespace {namespace!r}")
        labels = f.string_map(meta.get("labels"), f"{path}.template.metadata.labels")
        component = _copy(tpl)
        component["metadata"] = {**meta, "namespace": namespace,
                                 "labels": {LABEL: name, **labels}}
        infos = f.sequence(c.get("podSetInfos"), f"{path}.podSetInfos")
        for j, ps in enumerate(f.sequence(c.get("podSets"), f"{path}.podSets")):
            ps = f.mapping(ps, f"{path}.podSets[{j}]")
            at = f.string(ps.get("path"), f"{path}.podSets[{j}].path", required=True)
            template = _template_at(component, at)
            if template is None:
                raise f.error(f"{path}.podSets[{j}].path", f"no pod template at {at!r}")
            info = f.mapping(infos[j], f"{path}.podSetInfos[{j}]") if j < len(infos) else {}
            _inject(template, info, name)
        nested = source._replace(nested=f"{source.nested}.{path}.template".lstrip("."))
        if (api, kind) == ("v1", "Pod"):
            pod_name = f.string(meta.get("name"), f"{path}.template.metadata.name",
                                required=True)
            template = pod_template(f, {"metadata": component["metadata"],
                                        "spec": component.get("spec")}, f"{path}.template")
            pods.append(PodBatch(template, f"{path}.template", 1, partial(_pod, pod_name), (),
                                 name, pod_set=f"{name}-{i}"))
            continue
        decode = decoders.get((api, kind))
        if decode is None:
            continue  # makes no pods tasplan reads: a Service, a ConfigMap, another kind
        made = decode(nested, component, overrides)
        for p in made if isinstance(made, list) else [made]:
            out.append(replace(p, via=(via, *p.via),
                               batches=tuple(_labelled(b, name) for b in p.batches)))
    if pods:
        out.append(Producer("AppWrapper", obj["apiVersion"], namespace, name, source, obj,
                            tuple(pods), overrides.group_spec(), False,
                            count_field="spec.components"))
    return out
