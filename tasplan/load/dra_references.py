"""References to ResourceClaims from pods, pod groups, Workload templates and Jobs."""

from __future__ import annotations

from tasplan.load.fields import ObjectFields
from tasplan.model.dra_inputs import PodClaim


def pod_claims(f: ObjectFields, raw: object, path: str) -> tuple[PodClaim, ...]:
    """``resourceClaims`` of a pod spec, a PodGroup, a Workload template or a Job's
    ``spec.scheduling``: names must be unique, each names a claim or a template."""
    out: list[PodClaim] = []
    seen: set[str] = set()
    for i, c in enumerate(f.sequence(raw, path)):
        cpath = f"{path}[{i}]"
        c = f.mapping(c, cpath)
        name = f.string(c.get("name"), f"{cpath}.name", required=True)
        if name in seen:
            raise f.error(f"{cpath}.name", f"duplicate name {name!r}")
        seen.add(name)
        claim = f.string(c.get("resourceClaimName"), f"{cpath}.resourceClaimName")
        template = f.string(c.get("resourceClaimTemplateName"),
                            f"{cpath}.resourceClaimTemplateName")
        if bool(claim) == bool(template):
            raise f.error(cpath, "expected exactly one of resourceClaimName, "
                          "resourceClaimTemplateName")
        out.append(PodClaim(name, claim, template))
    return tuple(out)


def claim_statuses(f: ObjectFields, raw: object, path: str) -> tuple[tuple[str, str], ...]:
    """``status.resourceClaimStatuses``: (entry name, generated claim name); an empty claim
    name means the claim intentionally does not exist."""
    out = []
    for i, s in enumerate(f.sequence(raw, path)):
        s = f.mapping(s, f"{path}[{i}]")
        out.append((f.string(s.get("name"), f"{path}[{i}].name", required=True),
                    f.string(s.get("resourceClaimName"), f"{path}[{i}].resourceClaimName")))
    return tuple(out)
