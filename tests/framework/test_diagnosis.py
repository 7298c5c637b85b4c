"""Diagnosis: upstream FitError message.

Upstream: kubernetes/kubernetes ``pkg/scheduler/framework/types.go`` ``FitError.Error()``:
``reasonMsg := fmt.Sprintf(NoNodeAvailableMsg+":", NumAllNodes)`` with
``NoNodeAvailableMsg = "0/%v nodes are available"``; reasons histogram entries
``"%v %v"`` (count, reason) sorted with ``sort.Strings``; appended as ``" %v."`` only when
the list is non-empty. ``schedule_one_podgroup_test.go`` expects
``"0/1 nodes are available:"`` for a node rejected without a reason.
"""

from __future__ import annotations

import pytest

from tasplan.framework.diagnosis import Diagnosis, histogram_text, nodes_message
from tasplan.framework.status import Code, Status

U, UU = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@pytest.mark.parametrize(
    ("counts", "want"),
    [
        pytest.param({"Insufficient cpu": 10, "node(s) had untolerated taint(s)": 2},
                     "10 Insufficient cpu, 2 node(s) had untolerated taint(s)",
                     id="sorted as strings"),
        pytest.param({"a": 2, "b": 10}, "10 b, 2 a",
                     id="10 sorts before 2 (sort.Strings, not by count)"),
        pytest.param({"Too many pods": 1, "Insufficient memory": 1, "Insufficient cpu": 1},
                     "1 Insufficient cpu, 1 Insufficient memory, 1 Too many pods",
                     id="equal counts sort by reason"),
        pytest.param({}, "", id="empty histogram"),
    ],
)
def test_histogram_text(counts, want):
    assert histogram_text(counts) == want


@pytest.mark.parametrize(
    ("total", "counts", "want"),
    [
        pytest.param(12, {"Insufficient cpu": 10, "node(s) were unschedulable": 2},
                     "0/12 nodes are available: 10 Insufficient cpu, "
                     "2 node(s) were unschedulable.", id="message format"),
        pytest.param(3, {"Insufficient cpu": 3}, "0/3 nodes are available: 3 Insufficient cpu.",
                     id="single reason"),
        pytest.param(1, {}, "0/1 nodes are available:",
                     id="no reasons: nothing after the colon"),
    ],
)
def test_nodes_message(total, counts, want):
    assert nodes_message(total, counts) == want


def test_diagnosis_counts_every_reason_of_every_node():
    statuses = {
        "n1": Status(U, ("Too many pods", "Insufficient cpu")),
        "n2": Status(U, ("Insufficient cpu",)),
        "n3": Status(UU, ("node(s) had untolerated taint(s)",)),
    }
    diagnosis = Diagnosis(4, statuses)
    assert diagnosis.histogram == {"Insufficient cpu": 2, "Too many pods": 1,
                                   "node(s) had untolerated taint(s)": 1}
    assert diagnosis.message == ("0/4 nodes are available: 1 Too many pods, "
                                 "1 node(s) had untolerated taint(s), 2 Insufficient cpu.")
    assert diagnosis.unresolvable is False


@pytest.mark.parametrize(
    ("codes", "want"),
    [
        pytest.param([UU, UU], True, id="all unresolvable"),
        pytest.param([UU, U], False, id="one resolvable rejection"),
    ],
)
def test_diagnosis_unresolvable(codes, want):
    statuses = {f"n{i}": Status(c, ("r",)) for i, c in enumerate(codes)}
    assert Diagnosis(len(codes), statuses).unresolvable is want
