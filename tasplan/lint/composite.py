"""``tasplan lint`` rules for group trees on the manifests alone: unresolved parents
(TP212), cycles (TP213), depth (TP214), minGroupCount above the children present
(TP215),
a child constraint coarser than an ancestor's (TP216), several priorities in a tree
(TP217). Fields are read defensively: the objects may have schema violations."""

from __future__ import annotations

from collections.abc import Iterator

from tasplan.lint.fields import get as _get
from tasplan.lint.fields import text as _text
from tasplan.lint.reader import Manifest
from tasplan.lint.report import Violation
from tasplan.model.composite import KIND, MAX_TREE_DEPTH

Found = tuple[Manifest, Violation]
PARENT = ("spec", "parentCompositePodGroupName")
TOPOLOGY = ("spec", "schedulingConstraints", "topology", 0, "key")

# Well-known topology keys from the largest domain to the smallest; other keys are compared
# only when one of them is equal to an ancestor's.
WELL_KNOWN = ("topology.kubernetes.io/region", "topology.kubernetes.io/zone",
              "kubernetes.io/hostname")


def check(manifests: list[Manifest], namespace: str) -> Iterator[Found]:
    def ns(m: Manifest) -> str:
        return m.namespace or namespace

    composites: dict[tuple[str, str], Manifest] = {}
    members: list[Manifest] = []
    for m in manifests:
        if m.kind == KIND and m.name:
            composites.setdefault((ns(m), m.name), m)
            members.append(m)
        elif m.kind == "PodGroup" and _text(m.obj, *PARENT):
            members.append(m)
    if not composites and not members:
        return
    children: dict[tuple[str, str], list[Manifest]] = {}
    for m in members:
        parent = _text(m.obj, *PARENT)
        if not parent:
            continue
        if (ns(m), parent) not in composites:
            yield m, Violation("TP212", PARENT, (
                f"CompositePodGroup {ns(m)}/{parent} is not in the inputs: the hierarchy of "
                f"{m.kind} {ns(m)}/{m.name} stays pending until it exists"))
            continue
        children.setdefault((ns(m), parent), []).append(m)

    # Walk up from every member: cycles, depth, the root of its tree.
    root_of: dict[int, tuple[str, str] | None] = {}
    reported_cycles: set[frozenset] = set()
    for m in members:
        chain: list[tuple[str, str]] = []
        node = m
        key: tuple[str, str] | None = (ns(m), m.name) if m.kind == KIND else None
        levels = 1
        while True:  # bounded: every step adds a new key to ``chain``
            parent = _text(node.obj, *PARENT)
            if not parent:
                break
            up = (ns(node), parent)
            if up not in composites:
                key = None
                break
            if up in chain:
                cycle = frozenset(chain[chain.index(up):])
                if cycle not in reported_cycles:
                    reported_cycles.add(cycle)
                    names = " -> ".join(f"{k[0]}/{k[1]}" for k in chain[chain.index(up):])
                    yield composites[up], Violation("TP213", PARENT, (
                        f"parent references form a cycle: {names} -> {up[0]}/{up[1]}"))
                key = None
                break
            chain.append(up)
            levels += 1
            node, key = composites[up], up
        root_of[id(m)] = key
        if key is not None and levels > MAX_TREE_DEPTH:
            yield m, Violation("TP214", PARENT, (
                f"{m.kind} {ns(m)}/{m.name} is at level {levels} of the tree rooted at "
                f"{key[0]}/{key[1]}; at most {MAX_TREE_DEPTH} levels are allowed"))

    for key, m in composites.items():
        count = _get(m.obj, "spec", "schedulingPolicy", "gang", "minGroupCount")
        kids = children.get(key, [])
        if isinstance(count, int) and not isinstance(count, bool) and count > len(kids):
            yield m, Violation("TP215", ("spec", "schedulingPolicy", "gang", "minGroupCount"), (
                f"minGroupCount {count} but the inputs hold {len(kids)} child group(s) of "
                f"{key[0]}/{key[1]}: the tree waits for more"))

    for m in members:
        key = _text(m.obj, *TOPOLOGY)
        if not key:
            continue
        ancestor = _coarser_ancestor(m, key, composites, ns)
        if ancestor is not None:
            a, a_key = ancestor
            yield m, Violation("TP216", TOPOLOGY, (
                f"topology key {key!r} is not finer than {a_key!r} of its ancestor "
                f"{a.kind} {ns(a)}/{a.name}: constraints are resolved top-down"))

    trees: dict[tuple[str, str], list[Manifest]] = {}
    for m in members:
        root = root_of.get(id(m))
        if root is not None:
            trees.setdefault(root, []).append(m)
    for root, tree in trees.items():
        classes = {(_text(m.obj, "spec", "priorityClassName"), _get(m.obj, "spec", "priority"))
                   for m in tree}
        classes = {c for c in classes if c != ("", None)}
        if len(classes) > 1:
            shown = ", ".join(sorted(c[0] or str(c[1]) for c in classes))
            yield composites[root], Violation("TP217", ("spec", "priorityClassName"), (
                f"the tree rooted at {root[0]}/{root[1]} uses several priorities ({shown})"))


def _coarser_ancestor(m: Manifest, key: str, composites: dict, ns) -> tuple | None:
    """The nearest ancestor whose constraint is finer than or equal to ``key``: for
    well-known keys by their order, otherwise an equal key."""
    seen: set[tuple[str, str]] = set()
    node = m
    while True:
        parent = _text(node.obj, *PARENT)
        pkey = (ns(node), parent)
        if not parent or pkey not in composites or pkey in seen:
            return None
        seen.add(pkey)
        node = composites[pkey]
        a_key = _text(node.obj, *TOPOLOGY)
        if not a_key:
            continue
        if a_key == key and m.kind == KIND:
            return node, a_key
        if key in WELL_KNOWN and a_key in WELL_KNOWN and \
                WELL_KNOWN.index(key) < WELL_KNOWN.index(a_key):
            return node, a_key
