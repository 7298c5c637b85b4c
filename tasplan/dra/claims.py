"""Which ResourceClaim each ``pod.spec.resourceClaims`` entry stands for.

* ``resourceClaimName`` -> that claim (``<ns>/<claim>``), shared by every pod naming it;
* ``resourceClaimTemplateName`` matching an entry of the pod's PodGroup (same name, same
  template) -> the one claim generated for the group (``<ns>/<podgroup>/<name>``, KEP-5729);
* another template entry -> a claim of the pod's own (``<ns>/<pod>/<name>``).

A claim the status names (``status.resourceClaimStatuses``) is used as it is; otherwise the
claim a template would give is synthesised from it, as the claim controller would create
it before the pod can be scheduled. A status entry without a claim name means "no claim".
"""

from __future__ import annotations

from dataclasses import dataclass

from tasplan.model.dra import Allocation, ClaimSpec, DraInputs, PodClaim
from tasplan.model.group import PodGroup
from tasplan.model.pod import Pod

NOT_CREATED = "ResourceClaim not created yet"


@dataclass(frozen=True, slots=True)
class ClaimUse:
    """One claim a pod uses. ``problem`` (upstream wording) makes the pod unschedulable
    everywhere; ``allocation`` is the input's ``status.allocation``; ``shared`` says other
    pods may use the same claim; ``synthesised`` that it came from a template here."""

    key: str
    spec: ClaimSpec | None
    allocation: Allocation | None = None
    shared: bool = False
    synthesised: bool = False
    problem: str = ""


def resolve(pod: Pod, group: PodGroup | None, inputs: DraInputs) -> tuple[ClaimUse, ...]:
    statuses = dict(pod.claim_statuses)
    group_entries = {c.name: c for c in group.claims} if group is not None else {}
    group_statuses = dict(group.claim_statuses) if group is not None else {}
    ns = pod.namespace
    out: list[ClaimUse] = []
    for ref in pod.claims:
        if ref.claim_name:
            out.append(_named(ns, ref.claim_name, inputs))
            continue
        shared = group_entries.get(ref.name)
        if shared is not None and shared.template_name == ref.template_name \
                and not shared.claim_name:
            out.append(_templated(ns, f"{ns}/{group.key.split('/', 1)[1]}/{ref.name}", ref,
                                  group_statuses, inputs, shared=True))
        else:
            out.append(_templated(ns, f"{ns}/{pod.name}/{ref.name}", ref, statuses, inputs,
                                  shared=False))
    return tuple(u for u in out if u is not None)


def _named(ns: str, name: str, inputs: DraInputs) -> ClaimUse:
    key = f"{ns}/{name}"
    claim = inputs.claims.get((ns, name))
    if claim is None:
        return ClaimUse(key, None, shared=True,
                        problem=f'resourceclaim "{name}" not found')
    if claim.deleting:
        return ClaimUse(key, claim.spec, claim.allocation, shared=True,
                        problem=f'resourceclaim "{name}" is being deleted')
    return ClaimUse(key, claim.spec, claim.allocation, shared=True)


def _templated(ns: str, key: str, ref: PodClaim, statuses: dict[str, str],
               inputs: DraInputs, *, shared: bool) -> ClaimUse | None:
    if ref.name in statuses:
        generated = statuses[ref.name]
        if not generated:
            return None  # the claim intentionally does not exist
        use = _named(ns, generated, inputs)
        return ClaimUse(f"{ns}/{generated}", use.spec, use.allocation, shared, False,
                        use.problem)
    template = inputs.templates.get((ns, ref.template_name))
    if template is None:
        return ClaimUse(key, None, shared=shared,
                        problem=f'{NOT_CREATED}: resourceclaimtemplate "{ref.template_name}" '
                        f"not found in namespace {ns}")
    return ClaimUse(key, template.spec, shared=shared, synthesised=True)
