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


def render_capacity(report: CapacityReport, depth: int | None = None,
                    width: int | None = None) -> Iterator[RenderableType]:
    """``width``: the terminal's, when lines may have to wrap (they wrap between figures,
    never inside one: ``gpu 44/96`` stays on one line); None: no limit."""
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
    tree = Tree(_line(report.total, labels, resources, best, width), guide_style="dim")

    def grow(branch: Tree, key: str | None, level: int) -> None:
        room = None if width is None else width - _GUIDE * level
        for d in children.get(key, ()):
            grow(branch.add(_line(d, labels, resources, best, room)), d.key, level + 1)

    grow(tree, None, 1)
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


_GUIDE = 4  # columns a Rich tree guide ("├── ") takes per level
_INDENT = "  "  # continuation lines and shape lines under a domain


def _line(d: Domain, labels: Mapping[str, str], resources: Sequence[str],
          best: Mapping[tuple[str, str], set[str]], room: int | None = None) -> Text:
    """A domain's lines, wrapped (within ``room``) only between figures."""
    title = d.name if not d.level else f"{last_segment(d.level)} {d.name}"
    atoms = [(title, "bold"), (f"  {d.nodes} node(s)", "")]
    for i, r in enumerate(dict.fromkeys(resources)):
        figure = (f"{short_resource(r)} {human(r, d.free.get(r, 0))}/"
                  f"{human(r, d.allocatable.get(r, 0))}")
        atoms.append((("  free " if i == 0 else " · ") + figure, "dim"))
    lines = [atoms]
    for shape, fit in d.fit.items():
        star = d.name in best.get((d.level, shape), ())
        atoms = [(f"{_INDENT}{labels[shape]} {fit.now} now", "bold green" if star else ""),
                 (f" · {fit.empty} empty", "")]
        stranded = [f"{human(r, v)} {short_resource(r)}" for r, v in fit.stranded.items() if v]
        atoms += [((" · stranded " if i == 0 else ", ") + item, "dim")
                  for i, item in enumerate(stranded)]
        if star:
            atoms.append((" ★", "bold green"))
        lines.append(atoms)
    text = Text()
    for n, atoms in enumerate(lines):
        if n:
            text.append("\n")
        _flow(text, atoms, room)
    return text


def _flow(text: Text, atoms: Sequence[tuple[str, str]], room: int | None) -> None:
    """Append one line's atoms, starting a new (indented) line before an atom that would
    not fit in ``room``; an atom is never split."""
    used = 0
    for atom, style in atoms:
        if room is not None and used and used + len(atom) > room:
            atom = _INDENT + _INDENT + atom.lstrip(" ·,")
            text.append("\n")
            used = 0
        text.append(atom, style=style)
        used += len(atom)
