"""The allocator's search prunes subtrees that cannot hold a solution (issue 25): a claim
that cannot fit a node is known after a pass over its devices, and where a solution
exists the search still returns the first one in upstream's order (allocator_incubating.go
allocateOne at 0cfbf89e, which tries every device in pool/slice/device order)."""

from __future__ import annotations

import random

import pytest

from tasplan.dra import allocator
from tasplan.dra.allocator import CANNOT_ALLOCATE, World, allocate
from tasplan.model.dra import Constraint
from tests.builders import make_node
from tests.dra.builders import (
    CLASS_A,
    DRIVER_A,
    claim,
    device,
    device_class,
    inputs,
    local_slice,
    request,
)

NODE = make_node("node-1")
CLASSES = (device_class(CLASS_A, DRIVER_A),)


def node_devices(n: int, values: int, seed: int = 0) -> list:
    rng = random.Random(seed)
    return [device(f"dev-{i:03d}", numa=("int", rng.randrange(values))) for i in range(n)]


def test_matchattribute_claim_that_cannot_fit_is_known_fast() -> None:
    """The issue's case: 16 devices that share a 9-valued attribute among 128 (no value has
    16 devices). It ran every node's search to the 200,000-step budget ("timed out")."""
    devices = [device(f"dev-{i:03d}", numa=("int", i % 9)) for i in range(128)]
    world = World(inputs(CLASSES, [local_slice("s", "node-1", "pool", DRIVER_A, *devices)]))
    wanted = claim(request(count=16), constraints=(Constraint(match_attribute=
                                                              f"{DRIVER_A}/numa"),))
    search = allocator._Search(world, NODE, [wanted], frozenset(), {})
    assert search.run() is None
    assert search.steps <= 10 * 128  # was the whole 200,000-step budget
    assert allocate(world, NODE, [wanted]).reason == CANNOT_ALLOCATE


def test_claims_that_fit_alone_but_not_together_are_known_fast() -> None:
    """30 devices, two claims of 20: each fits alone. Without a bound over the remaining
    requests the search tries all C(30, 20) = 30 million choices for the first claim."""
    devices = [device(f"dev-{i:03d}") for i in range(30)]
    world = World(inputs(CLASSES, [local_slice("s", "node-1", "pool", DRIVER_A, *devices)]))
    search = allocator._Search(world, NODE, [claim(request(count=20)),
                                             claim(request(count=20))], frozenset(), {})
    assert search.run() is None
    assert search.steps < 1_000


@pytest.mark.parametrize("seed", range(60))
def test_pruning_keeps_upstreams_first_solution(seed: int, monkeypatch) -> None:
    """Random claims over random devices: the same answer with and without pruning."""
    rng = random.Random(seed)
    devices = node_devices(rng.randrange(4, 14), rng.randrange(1, 4), seed)
    slices = [local_slice("s", "node-1", "pool", DRIVER_A, *devices)]
    claims = [claim(*(request(f"r{i}", CLASS_A, rng.randrange(1, 5),
                              *(['device.attributes["driver-a"].numa != 0']
                                if rng.random() < 0.3 else []),
                              admin_access=rng.random() < 0.15)
                      for i in range(rng.randrange(1, 3))),
                    constraints=(Constraint(match_attribute=f"{DRIVER_A}/numa"),)
                    if rng.random() < 0.7 else ())
              for _ in range(rng.randrange(1, 3))]
    in_use = {(DRIVER_A, "pool", d.name) for d in devices if rng.random() < 0.2}

    def answer():
        outcome = allocate(World(inputs(CLASSES, slices)), NODE, claims, set(in_use))
        return outcome.reason, outcome.results and [
            [(d.request, d.device) for d in r.results] for r in outcome.results]

    pruned = answer()
    monkeypatch.setattr(allocator._Bounds, "enough", lambda *a: True)
    monkeypatch.setattr(allocator._Bounds, "enough_with", lambda *a: True)
    monkeypatch.setattr(allocator._Search, "_tail_fits", lambda *a: True)
    assert answer() == pruned
