"""Which groups ``explain unschedulable`` picks, the PodGroup scheduled condition, and
PodDisruptionBudget decoding (policy/v1 semantics, worked by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tasplan.errors import InputError, UsageError
from tasplan.explain.selection import pending_groups, select
from tasplan.load.loader import load_inputs
from tasplan.preemption.budgets import COMPUTED, disruption_budgets
from tests.load.helpers import line_of, write

NODE = """
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {rack: r1}}
status: {allocatable: {cpu: "2", pods: "110"}}
"""


def group(name: str, condition: str | None = None) -> str:
    status = "" if condition is None else f"""
status:
  conditions:
  - {{type: PodGroupScheduled, status: "{condition}", reason: Unschedulable}}"""
    return f"""
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {{name: {name}, namespace: ml}}
spec:
  schedulingPolicy: {{gang: {{minCount: 1}}}}{status}
"""


def pod(name: str, group_name: str, node: str = "", phase: str = "Pending") -> str:
    bound = f"\n  nodeName: {node}" if node else ""
    return f"""
---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: ml}}
spec:
  schedulingGroup: {{podGroupName: {group_name}}}{bound}
  containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]
status: {{phase: {phase}}}
"""


def cluster(tmp_path: Path) -> Path:
    text = (NODE + group("waiting") + pod("waiting-0", "waiting")
            + group("running") + pod("running-0", "running", node="n1", phase="Running")
            + group("failed", "False") + group("done", "True")
            + group("finished") + pod("finished-0", "finished", phase="Succeeded"))
    return write(tmp_path, "cluster.yaml", text)


def test_pending_groups_are_those_with_waiting_pods_or_a_false_condition(
        tmp_path: Path) -> None:
    snap = load_inputs([], [cluster(tmp_path)])
    assert {g.key: g.scheduled_condition for g in snap.groups} == {
        "ml/waiting": None, "ml/running": None, "ml/failed": False, "ml/done": True,
        "ml/finished": None}
    assert pending_groups(snap) == ["ml/waiting", "ml/failed"]


def test_select_marks_only_the_chosen_groups(tmp_path: Path) -> None:
    snap = load_inputs([], [cluster(tmp_path)])
    chosen = select(snap, ["ml/done"], unschedulable=True)
    assert sorted(g.key for g in chosen.groups if g.planned) == [
        "ml/done", "ml/failed", "ml/waiting"]
    assert [g.key for g in select(snap, [], unschedulable=False).groups if g.planned] == []


def test_unknown_group_name_is_a_usage_error_with_a_hint(tmp_path: Path) -> None:
    snap = load_inputs([], [cluster(tmp_path)])
    with pytest.raises(UsageError, match=r"no pod group named 'other/waiting'.*ml/waiting"):
        select(snap, ["other/waiting"], unschedulable=False)


def test_job_pods_tasplan_synthesised_do_not_make_a_group_pending(tmp_path: Path) -> None:
    job = write(tmp_path, "job.yaml", NODE + """
---
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: ml}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
""")
    snap = load_inputs([], [job])
    assert any(p.synthesised for p in snap.pods)
    assert pending_groups(snap) == []


PODS = """
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop, labels: {app: web, tier: front}}
spec: {nodeName: n1, containers: [{name: c}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: shop, labels: {app: web, tier: front}}
spec: {nodeName: n1, containers: [{name: c}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web-2, namespace: shop, labels: {app: web, tier: back}}
spec: {containers: [{name: c}]}
status: {phase: Pending}
"""


def budget(spec: str, status: str = "") -> str:
    return f"""
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: b, namespace: shop}}
spec: {spec}
{status}"""


@pytest.mark.parametrize(("spec", "status", "allowed"), [
    # status wins when present
    ("{minAvailable: 0, selector: {}}", "status: {disruptionsAllowed: 0}", 0),
    # 3 covered pods (expected), 2 running (healthy): 2 - 1
    ("{minAvailable: 1, selector: {matchLabels: {app: web}}}", "", 1),
    # 50% of 3 rounds up to 2: 2 - 2
    ("{minAvailable: '50%', selector: {matchLabels: {app: web}}}", "", 0),
    # maxUnavailable 2 of 3: desired healthy 1, 2 - 1
    ("{maxUnavailable: 2, selector: {matchLabels: {app: web}}}", "", 1),
    # neither field: counted as minAvailable 1
    ("{selector: {matchLabels: {app: web}}}", "", 1),
    # matchExpressions narrow it to web-0/web-1 (both healthy): 2 - 1
    ("{minAvailable: 1, selector: {matchExpressions: [{key: tier, operator: In, "
     "values: [front]}]}}", "", 1),
    # more required than healthy never goes negative
    ("{minAvailable: 3, selector: {matchLabels: {app: web}}}", "", 0),
])
def test_computed_disruptions_allowed(tmp_path: Path, spec: str, status: str,
                                      allowed: int) -> None:
    """``--pdb-allowance computed``: a budget without a status, as the disruption
    controller will compute it."""
    path = write(tmp_path, "c.yaml", NODE + PODS + budget(spec, status))
    (found,) = disruption_budgets(load_inputs([], [path]), COMPUTED)
    assert found.allowed == allowed
    assert found.computed == (not status)


@pytest.mark.parametrize(("status", "allowed"), [
    ("", 0),  # no status yet: upstream reads the zero value of status.disruptionsAllowed
    ("status: {disruptionsAllowed: 2}", 2),
    ("status: {disruptionsAllowed: 1, disruptedPods: {web-0: '2026-03-01T10:00:00Z'}}", 1),
])
def test_disruptions_allowed_as_kube_scheduler_reads_them(tmp_path: Path, status: str,
                                                          allowed: int) -> None:
    """Upstream ``FilterVictimsWithPDBViolation`` starts from status.disruptionsAllowed,
    whatever the spec says; ``disruptedPods`` are kept to be skipped when spending."""
    path = write(tmp_path, "c.yaml", NODE + PODS + budget(
        "{minAvailable: 1, selector: {matchLabels: {app: web}}}", status))
    (found,) = disruption_budgets(load_inputs([], [path]))
    assert (found.allowed, found.status, found.computed) == (allowed, bool(status), False)
    assert found.disrupted == ({"web-0"} if "disruptedPods" in status else set())


def test_disrupted_pods_times_are_timestamps(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", NODE + PODS + budget(
        "{selector: {}}", "status: {disruptionsAllowed: 0, disruptedPods: {web-0: soon}}"))
    with pytest.raises(InputError, match=r"status\.disruptedPods\.web-0: expected an RFC "
                       "3339 timestamp"):
        load_inputs([], [path])


def test_selector_semantics(tmp_path: Path) -> None:
    """policy/v1: an empty selector covers every pod of the namespace, none covers none."""
    path = write(tmp_path, "c.yaml", NODE + PODS + budget("{minAvailable: 1, selector: {}}")
                 + budget("{minAvailable: 1}").replace("name: b", "name: none"))
    snap = load_inputs([], [path])
    every, nothing = disruption_budgets(snap)
    shop = [p for p in snap.pods if p.namespace == "shop"]
    assert all(every.covers(p) for p in shop)
    assert not any(nothing.covers(p) for p in shop)


def test_bad_budget_is_an_input_error_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", NODE + PODS + budget(
        "{minAvailable: lots, selector: {}}"))
    with pytest.raises(InputError) as info:
        disruption_budgets(load_inputs([], [path]))
    text = str(info.value)
    assert "spec.minAvailable" in text and "percentage" in text
    assert f":{line_of(path, 'minAvailable: lots')}" in text
