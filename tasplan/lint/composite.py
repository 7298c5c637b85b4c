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

    # Each composite's root and level, found once (linear in the members: a 2,000-deep
    # chain walked up from every member took minutes); cycles reported once each, from the
    # first member's parent on.
    info: dict[tuple[str, str], tuple[tuple[str, str] | None, int]] = {}
    found: list[tuple[Manifest, Violation]] = []

    def walk(key: tuple[str, str]) -> tuple[tuple[str, str] | None, int]:
        path: list[tuple[str, str]] = []
        index: dict[tuple[str, str], int] = {}
        root: tuple[str, str] | None = None
        level = 0
        at: tuple[str, str] | None = key
        while at is not None:
            if at in info:
                root, level = info[at]
                break
            if at in index:  # a cycle: the keys from its first visit on
                cycle = path[index[at]:]
                names = " -> ".join(f"{k[0]}/{k[1]}" for k in cycle[:8]) + (
                    f" -> … ({len(cycle)} groups)" if len(cycle) > 8 else "")
                found.append((composites[at], Violation("TP213", PARENT, (
                    f"parent references form a cycle: {names} -> {at[0]}/{at[1]}"))))
                for k in cycle:
                    info[k] = (None, 0)
                del path[index[at]:]
                break
            index[at] = len(path)
            path.append(at)
            node = composites[at]
            parent = _text(node.obj, *PARENT)
            if not parent:
                root = at
                break
            at = (ns(node), parent)
            if at not in composites:
                break
        for k in reversed(path):
            level = level + 1 if root is not None else 0
            info[k] = (root, level)
        return info[key]

    root_of: dict[int, tuple[str, str] | None] = {}
    for m in members:
        own = (ns(m), m.name) if m.kind == KIND else None
        parent = _text(m.obj, *PARENT)
        up = (ns(m), parent) if parent else None
        if own is not None and own in info:
            root, levels = info[own]
        elif up is None:
            root, levels = own, 1
        elif up not in composites:
            root, levels = None, 0
        else:
            root, levels = walk(up)
            levels = levels + 1 if root is not None else 0
        if own is not None and own not in info:
            info[own] = (root, levels)
        yield from found
        found.clear()
        root_of[id(m)] = root
        if root is not None and levels > MAX_TREE_DEPTH:
            yield m, Violation("TP214", PARENT, (
                f"{m.kind} {ns(m)}/{m.name} is at level {levels} of the tree rooted at "
                f"{root[0]}/{root[1]}; at most {MAX_TREE_DEPTH} levels are allowed"))

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
    for _ in range(MAX_TREE_DEPTH):  # a deeper tree is invalid anyway (TP214)
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
    return None
