"""Verdicts that are true on their own (issue 26): one plain sentence of tasplan's own
first, the scheduler's words after it as the quoted reason, and STATUS columns that agree
with the counts beside them."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tasplan.cli.app import app
from tasplan.model.topology import domain_noun
from tasplan.plan.preemption_result import PreemptionResult, Victim
from tasplan.plan.result import GroupResult, PlacementResult
from tasplan.report.verdict import composite_sentence, group_reason, group_sentence
from tests.builders import make_group

REPO = Path(__file__).resolve().parents[2]
CLUSTER = REPO / "samples" / "cluster"
URGENT = REPO / "samples" / "explain" / "urgent.yaml"
BIG = REPO / "samples" / "workloads" / "train-too-big.yaml"
COMPOSITE = REPO / "samples" / "explain" / "composite-too-big.yaml"


def invoke(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def verdicts(text: str) -> list[str]:
    return [line for line in text.splitlines()
            if re.match(r"(SCHEDULABLE|UNSCHEDULABLE|WAITING|ERROR|NOT PLANNED)", line)]


def test_after_preemption_says_where_it_fits_and_quotes_the_status_before() -> None:
    """README's example said SCHEDULABLE AFTER PREEMPTION: 0/6 placements are available."""
    out = invoke("check", URGENT, "-c", CLUSTER)
    assert verdicts(out) == ["SCHEDULABLE AFTER PREEMPTION: fits in rack-a2 after evicting 2 "
                             "pods"]
    assert ('  kube-scheduler, before preemption: "0/6 placements are available, first '
            'placement status: minCount (4) cannot be satisfied: 0 scheduled, 3 remaining"'
            in out.splitlines())


def test_unschedulable_names_the_closest_domain() -> None:
    out = invoke("check", URGENT, "-c", CLUSTER, "--no-preempt")
    assert verdicts(out) == ["UNSCHEDULABLE: no rack holds all 4 pods: the best, rack-a3, "
                             "holds 3"]
    big = invoke("check", BIG, "-c", CLUSTER)
    assert verdicts(big) == ["UNSCHEDULABLE: no rack holds all 5 pods: the best, rack-b1, "
                             "holds 4"]


def test_a_tree_leaf_that_fits_alone_is_not_called_scheduled() -> None:
    """A leaf said UNSCHEDULABLE: 2/2 pending pod(s) scheduled in placement 'rack-a2'."""
    lines = verdicts(invoke("check", COMPOSITE, "-c", CLUSTER))
    assert "UNSCHEDULABLE: no block holds all 6 child groups: the best, block-b, holds 5" \
        in lines
    assert ("UNSCHEDULABLE: its 2 pods fit in rack-a2 on their own, but its "
            "CompositePodGroup ml/llm-6 does not fit, so none is bound") in lines
    assert not any("scheduled in placement" in line for line in lines)


def test_wide_status_agrees_with_the_pods_column() -> None:
    """-o wide showed "3 scheduled, 0 remaining" beside "0 scheduled, 3 remaining"."""
    out = invoke("check", URGENT, "-c", CLUSTER, "-o", "wide", "--no-preempt")
    rows = [line for line in out.splitlines() if re.match(r"[▶= ]?\d+\s+rack-", line)]
    assert len(rows) == 6
    for row in rows:
        placed = re.search(r"(\d+)/4 \(min 4\)", row).group(1)
        assert re.search(rf"holds {placed}, needs 4: \d+ (Insufficient|node)", row), row
        assert "remaining" not in row
    composite = invoke("check", COMPOSITE, "-c", CLUSTER)
    assert re.search(r"block-b\s+12\s+no\s+5/6 \(min 6\)\s+-\s+5 fit, 1 failed$", composite,
                     re.M)
    assert re.search(r"block-a .* 2 fit, 1 failed, 3 not tried$", composite, re.M)


def _placement(name: str, placed: int, feasible: bool = False) -> PlacementResult:
    return PlacementResult(name, ("n1",), feasible, "", placed, {}, {})


def test_every_scheduler_gets_the_sentence_from_its_result_fields() -> None:
    """Not kube-scheduler's strings: any scheduler's GroupResult (Volcano, KAI, Kueue...)."""
    group = make_group("job", min_count=4, key="volcano.sh/hypernode")
    base = GroupResult(group, pending=4, scheduled=0, schedulable=False,
                       message="3/4 tasks in gang unschedulable", scheduler="volcano",
                       placements=(_placement("s1", 3), _placement("s0", 1)))
    assert group_sentence(base) == "no hypernode holds all 4 pods: the best, s1, holds 3"
    assert group_reason(base) == 'volcano: "3/4 tasks in gang unschedulable"'
    fits = replace(base, schedulable=True, selected="s1", message="allocated",
                   placements=(_placement("s1", 4, True),))
    assert group_sentence(fits) == "all 4 pending pods fit in s1"
    assert group_reason(fits) is None
    preempted = replace(base, preemption=PreemptionResult(
        "s1", (Victim("a/x", "n1", 0, None),), {}, ""))
    assert group_sentence(preempted) == "fits in s1 after evicting 1 pod"
    assert group_reason(preempted) == ('volcano, before preemption: "3/4 tasks in gang '
                                       'unschedulable"')
    all_or_nothing = replace(base, group=replace(group, min_count=1))  # Kueue's PodSets
    assert group_sentence(all_or_nothing) == "no hypernode holds all 4 pods: the best, s1, holds 3"
    waiting = replace(base, waiting=True, message="waiting for pods: 2 of minCount 4 exist")
    assert group_sentence(waiting) == waiting.message and group_reason(waiting) is None


def test_domain_nouns() -> None:
    assert domain_noun("topology.example.com/rack") == "rack"
    assert domain_noun("kubernetes.io/hostname") == "node"
    assert domain_noun("topology.kubernetes.io/zone") == "zone"
    assert domain_noun("cloud.google.com/gke-nodepool") == "gke-nodepool"
    assert domain_noun("example.com/Rack_ID") == "domain"
    assert domain_noun(None) == "domain"


def test_inner_composites_read_true_whatever_their_root_did() -> None:
    """An inner CompositePodGroup that placed itself while its parent failed keeps that
    choice as ``closest`` (selected None); one the root's preemption placed is
    SCHEDULED AFTER PREEMPTION without a preemption of its own: neither may read as
    "no block holds ..." beside its own placement."""
    from tasplan.model.composite import CompositePodGroup
    from tasplan.model.group import Policy
    from tasplan.plan.tree_result import CompositePlacement, CompositeResult
    from tests.builders import WORKLOAD

    inner = CompositePodGroup("ml/inner", "ml", "inner", Policy.GANG, 2, "rack", "ml/root",
                              "ml/w", "inner", "scheduling.k8s.io/v1alpha3", WORKLOAD, 1)
    placed = CompositePlacement("rack-a1", 4, True, "", 2, 2, 2)
    failed = CompositeResult(inner, (), False, "parent ml/root did not fit",
                             placements=(placed,), closest="rack-a1")
    assert composite_sentence(failed) == ("its child groups fit in rack-a1 on their own, but "
                                          "its parent ml/root does not fit, so none is bound")
    after = replace(failed, closest=None, selected="rack-a1", after_preemption=True)
    assert after.outcome == "scheduled-after-preemption"
    assert composite_sentence(after) == ("fits in rack-a1 with its tree, after the root's "
                                         "preemption")
    waiting = replace(failed, closest=None, waiting=True, message="waiting for 2 child groups")
    assert composite_sentence(waiting) == "waiting for 2 child groups"


def test_the_whole_cluster_is_not_named_as_a_domain() -> None:
    """Volcano's virtual root HyperNode is "cluster" for a job without networkTopology:
    "fit in cluster" read as a domain; and a basic group none of whose pods fits said
    "none of the 1 pod it needs" beside its 5 pods."""
    group = make_group("job", min_count=4, key=None)
    fits = GroupResult(group, pending=4, scheduled=0, schedulable=True, message="allocated",
                       scheduler="volcano", selected="cluster",
                       placements=(_placement("cluster", 4, True),))
    assert group_sentence(fits) == "all 4 pending pods fit"
    hyper = replace(fits, group=replace(group, topology_key="volcano.sh/hypernode"))
    assert group_sentence(hyper) == "all 4 pending pods fit in cluster"  # a HyperNode's name
    basic = GroupResult(make_group("wide", min_count=None, key=None), pending=5, scheduled=0,
                        schedulable=False, message="0/1 placements are available",
                        placements=(_placement("", 0),))
    assert group_sentence(basic) == "none of its 5 pending pods fits in the cluster"
    one = replace(basic, pending=1)
    assert group_sentence(one) == "its pod fits nowhere in the cluster"


SENTENCE = re.compile(
    r"^(SCHEDULABLE|UNSCHEDULABLE|SCHEDULABLE AFTER PREEMPTION): ("
    r"all [\d,]+ pending pods fit( in \S+)?|its pending pod fits( in \S+)?"
    r"|[\d,]+ of [\d,]+ pending pods fit.*|fits in \S+ after evicting [\d,]+ pods?.*"
    r"|no \S+ holds [^:]+(: the best, \S+, holds [\d,]+)?"
    r"|none of .* fits in the cluster|the cluster holds .*|its [\d,]+ pods? fit .*)$")
RUNS = {  # each scheduler on inputs it plans
    "kube-scheduler": [URGENT, BIG, REPO / "samples" / "workloads" / "train-rack.yaml"],
    "kueue": [REPO / "samples" / "explain" / "kueue-wide.yaml", REPO / "samples" / "kueue"],
    "volcano": [REPO / "samples" / "volcano" / "train-vcjob.yaml",
                REPO / "samples" / "volcano" / "train-vcjob-too-big.yaml", "-c",
                REPO / "samples" / "volcano" / "hypernodes.yaml"],
    "kai": [REPO / "samples" / "kai" / "train.yaml"],
}


@pytest.mark.parametrize("scheduler", sorted(RUNS))
def test_every_scheduler_reads_as_one_plain_sentence(scheduler: str) -> None:
    """Real runs of each registered scheduler: every verdict is one of tasplan's sentences
    (never the scheduler's message as the headline); the message follows, quoted."""
    from tasplan.schedulers.registry import names

    if scheduler not in names():
        pytest.skip(f"{scheduler} is not registered on this branch")
    out = invoke("check", *RUNS[scheduler], "-c", CLUSTER, "--scheduler", scheduler)
    lines = verdicts(out)
    assert lines, out
    for line in lines:
        assert SENTENCE.match(line), line


def test_stopped_before_any_placement_keeps_the_schedulers_account() -> None:
    """Kueue's quota refuses a workload before any placement: "no domain to place it in"
    would be false; a group whose topology key no node carries has none to place it in."""
    quota = GroupResult(make_group("q", min_count=4, key=None), pending=4, scheduled=0,
                        schedulable=False, scheduler="kueue",
                        message="insufficient quota for nvidia.com/gpu in flavor h100")
    assert group_sentence(quota) == quota.message and group_reason(quota) is None
    no_key = replace(quota, group=make_group("q", min_count=4, key="example.com/rack"),
                     scheduler="kube-scheduler", message="no placements")
    assert group_sentence(no_key) == "no rack to place it in"


def test_nothing_placed_claims_only_what_is_known() -> None:
    """Volcano rules HyperNodes out by minResources without trying a pod (placed 0 in
    every one): "no domain holds any of the 5 pods" was false where 4 would fit."""
    group = make_group("job", min_count=5, key=None)
    ruled_out = GroupResult(group, pending=5, scheduled=0, schedulable=False, scheduler="volcano",
                            message="5/5 tasks in gang unschedulable",
                            placements=(_placement("rack-b1", 0), _placement("rack-b3", 0)))
    assert group_sentence(ruled_out) == "no domain holds all 5 pods"
