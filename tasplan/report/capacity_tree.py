"""The capacity view as a Rich tree: one line per topology domain, the whole cluster at the
root. Renderers read the CapacityReport only."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from rich.console import RenderableType
from rich.text import Text
from rich.tree import Tree

from tasplan.capacity.report import CapacityReport, Domain
from tasplan.model.topology import HOSTNAME, last_segment
from tasplan.report.formatting import human, short_resource

_ALWAYS = ("cpu", "memory")
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def default_depth(levels: Sequence[str]) -> int:
    """Every level but the hostname (one line per node is for --depth)."""
    return len(levels) - 1 if len(levels) > 1 and levels[-1] == HOSTNAME else len(levels)


def shape_labels(report: CapacityReport) -> dict[str, str]:
    """Shape name -> a short label for the tree (A, B, ...; S27, ... beyond Z)."""
    return {name: _LETTERS[i] if i < len(_LETTERS) else f"S{i + 1}"
            for i, (name, _) in enumerate(report.shapes)}


def render_capacity(report: CapacityReport, depth: int | None = None
                    ) -> Iterator[RenderableType]:
    depth = default_depth(report.levels) if depth is None else max(depth, 0)
    shown = report.levels[:depth]
    labels = shape_labels(report)
    resources = _resources(report)
    hidden = len(report.levels) - len(shown)
    yield Text.assemble(
        ("capacity", "bold"), f": {report.total.nodes} node(s); levels: ",
        " > ".join(shown) or "(none)",
        f" ({hidden} deeper level(s) hidden: --depth)" if hidden else "")
    for name, requests in report.shapes:
        asks = ", ".join(f"{short_resource(r)} {human(r, v)}" for r, v in requests.items())
        yield Text.assemble("shape ", (labels[name], "bold"), f" = {name}",
                            f" (requests {asks})" if asks and asks != name else "")
    best = {(x.level, x.shape): set(x.domains) for x in report.largest if x.strict}
    children: dict[str | None, list[Domain]] = {}
    by_key = {x.key: x for x in report.domains}
    for d in report.domains:
        if d.level in shown:
            children.setdefault(_shown_parent(d, by_key, shown), []).append(d)
    tree = Tree(_line(report.total, labels, resources, best), guide_style="dim")

    def grow(branch: Tree, key: str | None) -> None:
        for d in children.get(key, ()):
            grow(branch.add(_line(d, labels, resources, best)), d.key)

    grow(tree, None)
    yield tree
    yield Text("now = pods of the shape that fit as the cluster is; empty = with only DaemonSet "
               "and mirror pods left; stranded = free capacity no further whole pod can use; "
               "★ = the one domain of its level that holds the most pods of the shape now",
               style="dim")
    for note in report.notes:
        yield Text.assemble(("note ", "yellow"), note)


def _shown_parent(d: Domain, by_key: Mapping[str, Domain], shown: Sequence[str]
                  ) -> str | None:
    """The nearest enclosing domain that is drawn (parents of hidden levels are skipped)."""
    parent = d.parent
    while parent is not None and by_key[parent].level not in shown:
        parent = by_key[parent].parent
    return parent


def _resources(report: CapacityReport) -> list[str]:
    asked = {r for _, requests in report.shapes for r in requests}
    have = report.total.allocatable
    extended = sorted(r for r in have if "/" in r)
    return [r for r in (*_ALWAYS, *sorted(asked - set(_ALWAYS)), *extended)
            if r in have or r in asked][:6] if have else list(_ALWAYS)


def _line(d: Domain, labels: Mapping[str, str], resources: Sequence[str],
          best: Mapping[tuple[str, str], set[str]]) -> Text:
    title = d.name if not d.level else f"{last_segment(d.level)} {d.name}"
    text = Text.assemble((title, "bold"), f"  {d.nodes} node(s)")
    free = " · ".join(
        f"{short_resource(r)} {human(r, d.free.get(r, 0))}/{human(r, d.allocatable.get(r, 0))}"
        for r in dict.fromkeys(resources))
    text.append(f"  free {free}", style="dim")
    for shape, fit in d.fit.items():
        star = d.name in best.get((d.level, shape), ())
        text.append("\n  ")
        text.append(f"{labels[shape]} {fit.now} now", style="bold green" if star else "")
        text.append(f" · {fit.empty} empty")
        stranded = [f"{human(r, v)} {short_resource(r)}" for r, v in fit.stranded.items() if v]
        if stranded:
            text.append(f" · stranded {', '.join(stranded)}", style="dim")
        if star:
            text.append(" ★", style="bold green")
    return text
