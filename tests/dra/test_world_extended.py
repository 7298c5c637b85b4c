"""``World.extended`` (explain's node copies publish their devices) against a World rebuilt
from every slice: the same pools in the same order, per-node slices, network slices, flags
and candidate devices per node, on generated slice sets (obsolete generations, duplicate
device names, several pools per node, binding conditions, counters, network slices)."""

from __future__ import annotations

import random
from dataclasses import replace

from tasplan.dra.allocator import World
from tasplan.dra.copies import copied_slices
from tasplan.model.dra import Device, ResourceSlice
from tests.builders import make_node
from tests.dra.builders import (
    CLASS_A,
    SRC,
    all_nodes_slice,
    device,
    device_class,
    inputs,
    local_slice,
    request,
)


def _slices(rng: random.Random) -> list[ResourceSlice]:
    out = []
    for n in range(rng.randrange(1, 6)):
        node = f"n{n}"
        for k in range(rng.randrange(0, 3)):
            pool = node if k == 0 else f"{node}-extra{k}"
            devices = [device(f"d{k}", n=("int", k)) for k in
                       (rng.randrange(4) for _ in range(rng.randrange(1, 4)))]
            if rng.random() < 0.2:
                devices = [replace(devices[0], binding_conditions=("ready",)), *devices[1:]]
            if rng.random() < 0.2:
                devices = [replace(d, consumes=(("set", {"mem": 1}),)) for d in devices]
            out.append(local_slice(f"{pool}-s{rng.randrange(3)}", node, pool,
                                   rng.choice(("driver-a", "driver-b")), *devices,
                                   generation=rng.choice((1, 1, 2)),
                                   count=rng.choice((1, 1, 2))))
    if rng.random() < 0.3:
        out.append(all_nodes_slice("net", "net-pool", "driver-a", device("x", n=("int", 1))))
    return out


CLASSES = (device_class(CLASS_A, "driver-a"),)
PROBE = request("r", CLASS_A, 1, 'device.attributes["driver-a"].n != 1')
IN_USE = {("driver-a", "n0", "d0"), ("driver-a", "n1-new-0", "d2")}


def _view(world: World, nodes: list[str]) -> tuple:
    return ([(p.driver, p.name, p.generation, [s.name for s in p.slices], p.complete,
              p.invalid, p.binding_conditions, p.counters, p.has_counter_use)
             for p in world.pools],
            {n: [s.name for s in ss] for n, ss in world.local.items()},
            [s.name for s in world.network], world.counters, world.node_local_only,
            {n: [c.id for c in world.node_candidates(make_node(n))[0]] for n in nodes},
            {n: world.class_devices(make_node(n), CLASS_A) for n in nodes},
            {n: world.free_count(make_node(n), PROBE, IN_USE) for n in nodes})


def test_extended_is_a_rebuild() -> None:
    rng = random.Random(12)
    fast = 0
    for _ in range(300):
        base = _slices(rng)
        like = rng.choice([s.node_name for s in base if s.node_name] or ["n0"])
        copies = [f"{like}-new-{k}" for k in range(rng.randrange(1, 3))]
        extra = [s for c in copies for s in copied_slices(base, like, c)]
        late = Device("y", {"driver-a/n": ("int", 2)})
        if rng.random() < 0.1:  # slices that must rebuild: an existing pool, a network one
            extra.append(rng.choice([*base, ResourceSlice("late", "driver-a", "late", 1, 1,
                                                          SRC, all_nodes=True,
                                                          devices=(late,))]))
        world = World(inputs(CLASSES, base))
        nodes = sorted({s.node_name for s in [*base, *extra] if s.node_name})
        rebuilt = World(inputs(CLASSES, [*base, *extra]))
        if rng.random() < 0.5:  # the world asked before it is extended (caches filled)
            _view(world, nodes)
        grown = world.extended(extra)
        assert _view(grown, nodes) == _view(rebuilt, nodes)
        assert grown.inputs == rebuilt.inputs
        # the pools of ``world`` joined, not rebuilt
        fast += bool(world.pools) and any(p is world.pools[0] for p in grown.pools)
    assert fast > 150, fast
