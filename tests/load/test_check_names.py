"""The loader's name checks (``_check_names``), which skip most bound cluster pods at C
speed, against the plain pod-by-pod loop they replace: on random pods (namespaces valid or
not, names printable, valid or not, bound or pending, cluster or workload, labels valid or
not) both refuse the same first pod with the same error, or accept the same pods."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from tasplan.errors import InputError
from tasplan.load import loader, names
from tasplan.model.source import Source
from tests.builders import make_pod

CLUSTER, WORKLOAD = Source("c.json", 0, 3), Source("w.yaml", workload=True)


def _plain(pods) -> None:
    """The pod part of _check_names as it was: every pod in order."""
    for pod in pods:
        why = names.namespace_problem(pod.namespace)
        if why:
            raise InputError(pod.source.path, why, field="metadata.namespace", obj=pod.name)
        if pod.node_name and not pod.source.workload and pod.name.isprintable():
            continue
        why = names.name_problem(pod.name)
        if why:
            raise InputError(pod.source.path, why, field="metadata.name", obj=pod.name)
        if pod.source.workload and not pod.synthesised:
            bad = names.labels_problem(pod.labels, set())
            if bad:
                raise InputError(pod.source.path, bad[1], field=f"metadata.labels.{bad[0]}",
                                 obj=pod.name)


def _outcome(check, pods) -> tuple | None:
    try:
        check(pods)
    except InputError as e:
        return e.source, e.detail, e.field.rsplit("metadata.", 1)[-1]
    return None


@pytest.mark.parametrize("seed", range(60))
def test_fast_name_checks_refuse_what_the_plain_loop_refuses(seed: int) -> None:
    rng = random.Random(seed)
    rare = rng.random() < 0.5  # most seeds: at most one bad value among many good ones

    def pick(good, bad):
        return rng.choice(bad) if rng.random() < (0.03 if rare else 0.25) else rng.choice(good)

    pods = []
    for i in range(rng.randint(0, 60)):
        bound = rng.random() < 0.7
        pod = make_pod(pick([f"p-{i}", f"w{i}.x"], [f"p\x07{i}", f"P_{i}", "-x", f"p{i}\n"]),
                       namespace=pick(["default", "ns-a"], ["Bad_NS", "-n", "x" * 64]),
                       node="n1" if bound else "")
        pods.append(replace(pod, source=WORKLOAD if rng.random() < 0.3 else CLUSTER,
                            labels=pick([{}, {"app": "a"}], [{"bad key!": "v"},
                                                             {"app": "-bad-"}])))
    got = _outcome(lambda ps: loader._check_names([], ps, []), pods)
    assert got == _outcome(_plain, pods)
