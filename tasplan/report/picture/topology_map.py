"""The topology map: a CapacityReport drawn as nested boxes (one SVG, nothing fetched).

The nested levels (``CapacityReport.tree``) are panels inside panels, headed by their
names; the deepest drawn level is tiles, each coloured by the chosen measure and showing its
name and number where they fit (every tile and panel has a tooltip with all its figures).
Nodes outside every domain of a level sit in a dashed box of their own; levels that cut
across the nested ones are drawn apart, below the map. ★ marks a domain only where it alone
holds the most pods of the shape at its level.

An ``Overlay`` draws one pod group's candidate placements on the map (``check --html``):
the selected one, ties, feasible and infeasible ones, and nodes changed by what-if edits.
The renderer reads the report and the overlay; it computes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from tasplan.capacity.report import Box, CapacityReport, Domain
from tasplan.model.topology import HOSTNAME, last_segment
from tasplan.report.capacity_tree import default_depth
from tasplan.report.formatting import human, short_resource
from tasplan.report.picture.layout import Rect, layout
from tasplan.report.picture.measure import (
    DARK,
    NONE_FILL,
    Measure,
    bins,
    fill,
    shape_letters,
)
from tasplan.report.picture.svg import MONO, SANS, esc, esc_lines, fits, num, shorten

WIDTH = 1400
MARGIN = 12
HEADER = 17  # a panel's header strip
GAP = 3  # between a panel's frame and what it holds
APART = 8  # between the domains of a level and the nodes without its label
LEAF_AREA = 150 * 95  # what a tile would like to have, before the map is capped
MAP_HEIGHT = (200, 700)
EDIT = "#c51b8a"  # what-if edits (magenta: apart from blues and oranges)
HOLDS_TINT = "#deebf7"  # a panel header whose domain holds the gang
INK = "#1a1a1a"
FAINT = "#6b6b6b"


@dataclass(frozen=True, slots=True)
class Mark:
    """One candidate placement: its ``rank`` in the placement table, its ``state``
    (selected, tied, feasible or infeasible), the ``text`` its tile shows (``4/4 pods``)
    and the ``note`` its tooltip adds (the status or reason)."""

    rank: int
    state: str
    text: str
    note: str


@dataclass(frozen=True)
class Overlay:
    """A group's placements (domain name -> Mark) at ``level``; ``pods`` counts the
    group's pods per node in the selected placement; ``edits`` lists, per node, the what-if
    edits that changed it."""

    level: str
    marks: Mapping[str, Mark]
    pods: Mapping[str, int] = field(default_factory=dict)
    edits: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    removed: tuple[str, ...] = ()  # nodes what-if edits removed (not on the map)


def topology_map(report: CapacityReport, measure: Measure, depth: int | None = None,
                 overlay: Overlay | None = None, title: str = "tasplan capacity",
                 ids: str = "tp", heading: bool = True, focus: bool = False) -> str:
    """The map as one ``<svg>`` element; ``depth`` counts the report's levels drawn (default:
    all but the hostname); ``ids`` prefixes the element ids (several maps on one page);
    ``heading`` False leaves the title line to the page around it; ``focus`` shows the
    measure's shape alone (one group's map) and leaves the notes to the page."""
    return "".join(_Map(report, measure, depth, overlay, title, ids, heading, focus).svg())


class _Map:
    def __init__(self, report: CapacityReport, measure: Measure, depth: int | None,
                 overlay: Overlay | None, title: str, ids: str, heading: bool,
                 focus: bool) -> None:
        self.report, self.measure, self.overlay, self.title, self.ids = (
            report, measure, overlay, title, ids)
        self.heading, self.focus = heading, focus
        self.shapes = [(n, r) for n, r in report.shapes if not focus or n == measure.shape]
        levels = report.levels
        if depth is None:
            depth = default_depth(levels)
        shown = set(levels[:depth])
        if overlay is not None and overlay.level in levels:  # its placements are drawn
            shown.update(levels[:levels.index(overlay.level) + 1])
        self.drawn = {k for k in report.nested if k in shown}
        self.apart = [k for k in levels if k in shown and k not in report.nested]
        self.letters = shape_letters(report)
        star_shape = measure.shape or (report.shapes[0][0] if report.shapes else None)
        self.stars = {(x.level, x.domains[0]) for x in report.largest
                      if x.shape == star_shape and x.strict}
        self.star_shape = star_shape
        tree = report.tree or Box(report.total)
        self.leaves = list(self._leaves(tree))
        # A gang too large for any one node would paint every node orange: then the tiles
        # (nodes) show the plain scale and panel headers say which domains hold the gang.
        self.shaded = (measure.gang is not None and HOSTNAME in self.drawn
                       and not any(self._holds(b.domain) for b in self.leaves
                                   if b.domain.level == HOSTNAME))
        self.tile_measure = Measure(measure.kind, measure.shape, measure.resource,
                                    None if self.shaded else measure.gang)
        self.bins = bins(self.tile_measure, [measure.value(b.domain) for b in self.leaves])
        self.nodes_in = _nodes_below(tree)
        self.tree = tree

    # -- structure ---------------------------------------------------------------------

    def _kids(self, box: Box) -> list[Box]:
        return [c for c in box.children if c.domain.level in self.drawn]

    def _leaves(self, box: Box) -> Iterator[Box]:
        kids = self._kids(box)
        if not kids and box.domain.level:
            yield box
        for kid in kids:
            yield from self._leaves(kid)

    # -- the picture -------------------------------------------------------------------

    def svg(self) -> Iterator[str]:
        body: list[str] = []
        top = self._head(body, MARGIN)
        leaves = max(len(self.leaves), 1)
        low, high = MAP_HEIGHT
        height = min(max(leaves * LEAF_AREA * 1.25 / WIDTH, low), high)
        area = Rect(MARGIN, top, WIDTH - 2 * MARGIN, height)
        kids = self._kids(self.tree)
        if kids:
            self._boxes(body, kids, area)
        else:
            body.append(f'<text x="{MARGIN}" y="{num(top + 20)}" font-size="13">no topology '
                        "levels to draw (the nodes carry no topology labels)</text>")
        y = top + height + 10
        for level in self.apart:
            y = self._apart(body, level, y)
        y = self._foot(body, y)
        total = y + MARGIN
        yield (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {num(total)}" '
               f'width="{WIDTH}" height="{num(total)}" font-family="{SANS}" '
               f'role="img" aria-labelledby="{self.ids}-title">')
        yield f'<title id="{self.ids}-title">{esc(self.title)}</title>'
        yield (f'<defs><pattern id="{self.ids}-hatch" width="6" height="6" '
               'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
               '<rect width="6" height="6" fill="#e6e6e6"/>'
               '<line x1="0" y1="0" x2="0" y2="6" stroke="#bdbdbd" stroke-width="2.5"/>'
               '</pattern></defs>')
        yield f'<rect width="{WIDTH}" height="{num(total)}" fill="#fff"/>'
        yield from body
        yield "</svg>\n"

    def _head(self, out: list[str], y: float) -> float:
        report = self.report
        names = " › ".join(last_segment(k) for k in report.nested if k in self.drawn)
        if self.heading:
            out.append(f'<text x="{MARGIN}" y="{num(y + 16)}" font-size="17" '
                       f'font-weight="bold" fill="{INK}">{esc(self.title)}</text>')
            y += 20
        line = (f"{report.total.nodes:,} node(s) · levels {names or '(none)'} · colour: "
                f"{self.tile_measure.title(self.letters)}")
        out.append(f'<text x="{MARGIN}" y="{num(y + 16)}" font-size="13" fill="{INK}">'
                   f"{esc(line)}</text>")
        y += 24
        for name, requests in self.shapes:
            asks = ", ".join(f"{short_resource(r)} {human(r, v)}" for r, v in requests.items())
            gang = report.gangs.get(name)
            text = (f"shape {self.letters[name]} = {name}" + (f" (requests {asks})"
                    if asks and asks != name else "")
                    + (f" · gang of {gang}: ✓ where one domain holds it now" if gang else ""))
            out.append(f'<text x="{MARGIN}" y="{num(y + 12)}" font-size="12" fill="{FAINT}">'
                       f"{esc(text)}</text>")
            y += 16
        return self._legend(out, y + 4) + 8

    def _legend(self, out: list[str], y: float) -> float:
        """Swatches and symbols, in lines that wrap at the map's width."""
        entries: list[tuple[str, str]] = [
            (f'<rect width="26" height="16" fill="{b.fill}" stroke="#999" '
             'stroke-width="0.5"/>', b.label) for b in self.bins]
        if self.stars:
            entries.append(("", f"★ the one domain of its level that holds the most pods of "
                            f"shape {self.letters.get(self.star_shape or '', '')} now"))
        if self.shaded:
            entries.append((f'<rect width="26" height="16" fill="{HOLDS_TINT}"/>',
                            "header: the domain holds the gang now"))
        if any(b.domain.name == "" for b in self._all(self.tree)):
            entries.append(('<rect x="1" y="1" width="24" height="14" fill="none" '
                            f'stroke="#737373"{_dash(True)}/>',
                            "nodes without that level's label"))
        overlay = self.overlay
        if overlay is not None and overlay.marks:
            for state, text in (("selected", "▶ selected placement"),
                                ("tied", "= tied on score"), ("feasible", "feasible"),
                                ("infeasible", "infeasible (reason in the table)")):
                swatch = f"url(#{self.ids}-hatch)" if state == "infeasible" else NONE_FILL
                entries.append((f'<rect x="1" y="1" width="24" height="14" fill="{swatch}"'
                                f"{_outline(state)}/>", text))
        if overlay is not None and overlay.pods:
            entries.append((f'<circle cx="13" cy="8" r="5" fill="{INK}"/>',
                            "a node that gets pods of the group"))
        if overlay is not None and (overlay.edits or overlay.removed):
            entries.append((f'<path d="M12 1h14v14z" fill="{EDIT}"/>',
                            "changed by a what-if edit"))
        x = MARGIN
        for swatch, text in entries:
            width = (31 if swatch else 0) + len(text) * 7.0 + 16
            if x > MARGIN and x + width > WIDTH - MARGIN:
                x, y = MARGIN, y + 22
            if swatch:
                out.append(f'<g transform="translate({num(x)} {num(y)})">{swatch}</g>')
            out.append(f'<text x="{num(x + (31 if swatch else 0))}" y="{num(y + 12.5)}" '
                       f'font-size="12" fill="{INK}">{esc(text)}</text>')
            x += width
        return y + 22

    def _all(self, box: Box) -> Iterator[Box]:
        for kid in self._kids(box):
            yield kid
            yield from self._all(kid)

    def _boxes(self, out: list[str], boxes: Sequence[Box], rect: Rect) -> None:
        """Siblings in order; the box of nodes without the level's label apart, at the
        far end (right, or bottom in a tall rectangle), with its share of the area but
        room for its name."""
        named = [b for b in boxes if b.domain.name]
        rest = [b for b in boxes if not b.domain.name]
        if named and rest:
            share = sum(b.domain.nodes for b in rest) / sum(b.domain.nodes for b in boxes)
            if rect.w >= rect.h:
                cut = min(max(rect.w * share, 130.0), rect.w * 0.3)
                self._boxes(out, named, rect.inset(0, 0, cut + APART, 0))
                self._boxes(out, rest, rect.inset(rect.w - cut, 0, 0, 0))
            else:
                cut = min(max(rect.h * share, 48.0), rect.h * 0.3)
                self._boxes(out, named, rect.inset(0, 0, 0, cut + APART))
                self._boxes(out, rest, rect.inset(0, rect.h - cut, 0, 0))
            return
        for box, cell in zip(boxes, layout([b.domain.nodes for b in boxes], rect), strict=True):
            self._box(out, box, cell)

    def _box(self, out: list[str], box: Box, rect: Rect) -> None:
        chain = [box]
        while True:
            kids = self._kids(chain[-1])
            if len(kids) == 1 and self._kids(kids[0]) and kids[0].domain.name:
                chain.append(kids[0])
            else:
                break
        inner = chain[-1]
        kids = self._kids(inner)
        if kids:
            self._panel(out, chain, rect)
            self._boxes(out, kids, rect.inset(GAP, HEADER + GAP, GAP, GAP))
            self._mark(out, inner.domain, rect, panel=True)
        else:
            self._tile(out, inner, rect)

    def _panel(self, out: list[str], chain: list[Box], rect: Rect) -> None:
        d = chain[-1].domain
        holds = self._holds(d)
        dashed = d.name == ""
        out.append(f'<g><title>{esc_lines(self._tooltip(chain[-1]))}</title>')
        out.append(f'<rect x="{num(rect.x + .5)}" y="{num(rect.y + .5)}" '
                   f'width="{num(max(rect.w - 1, 0))}" height="{num(max(rect.h - 1, 0))}" '
                   f'fill="#fff" stroke="#737373" stroke-width="1"{_dash(dashed)}/>')
        out.append(f'<rect x="{num(rect.x + 1)}" y="{num(rect.y + 1)}" '
                   f'width="{num(max(rect.w - 2, 0))}" height="{HEADER - 1}" '
                   f'fill="{HOLDS_TINT if holds and self.shaded else "#f5f5f5"}"/>')
        names = " › ".join(self._name(b.domain) for b in chain)
        value = (self.measure.text(self.measure.value(d)) + (" ✓" if holds else "")
                 + (" ★" if self._star(d) else ""))
        mark = self._mark_of(d)
        nodes = f"{d.nodes:,} node(s)"
        if mark is None:
            choices = [f"{names} · {nodes} · {value}", f"{names} · {value}"]
        else:  # the rank and the name first, then what else has room
            rank = _mark_head(Mark(mark.rank, mark.state, "", ""))
            choices = [f"{names} · {_mark_head(mark)} · {nodes} · {value}",
                       f"{names} · {_mark_head(mark)} · {value}",
                       f"{names} · {rank} · {value}", f"{names} {rank}"]
        size = 11.0
        room = rect.w - 8
        text = next((c for c in choices if fits(c, room, size)), "") or shorten(
            choices[-1], room, size)
        if text:
            out.append(f'<text x="{num(rect.x + 4)}" y="{num(rect.y + 12.5)}" '
                       f'font-size="{size:g}" font-family="{MONO}" fill="{INK}">'
                       f"{esc(text)}</text>")
        out.append("</g>")

    def _tile(self, out: list[str], box: Box, rect: Rect) -> None:
        d = box.domain
        mark = self._mark_of(d)
        value = self.measure.value(d)
        colour = fill(value, self.bins)
        if mark is not None and mark.state == "infeasible":
            colour = f"url(#{self.ids}-hatch)"
        dashed = d.name == ""
        out.append(f'<g><title>{esc_lines(self._tooltip(box))}</title>')
        out.append(f'<rect x="{num(rect.x + .5)}" y="{num(rect.y + .5)}" '
                   f'width="{num(max(rect.w - 1, 0))}" height="{num(max(rect.h - 1, 0))}" '
                   f'fill="{colour}" stroke="{"#737373" if dashed else "#fff"}" '
                   f'stroke-width="1"{_dash(dashed)}/>')
        ink = "#fff" if colour in DARK else INK
        lines = self._tile_lines(d, value, mark)
        self._texts(out, rect, lines, ink)
        out.append("</g>")
        self._mark(out, d, rect)
        self._edited(out, box, rect)

    def _tile_lines(self, d: Domain, value: float, mark: Mark | None) -> list[str]:
        figure = self.measure.text(value)
        if self._holds(d) and self.tile_measure.gang is not None:
            figure += " ✓"
        if self._star(d):
            figure += " ★"
        name = self._name(d, short=True)
        if mark is None:
            return [name, figure]
        return [name, _mark_head(mark), figure]

    def _texts(self, out: list[str], rect: Rect, lines: list[str], ink: str) -> None:
        """As many lines as the tile has room for: the name small, the figures larger."""
        room_w = rect.w - 6
        name_size = min(13.0, max(min(rect.h / 4.2, rect.w / 9), 7.0))
        big = min(26.0, max(min(rect.h / 3.2, rect.w / 5), 8.0))
        sizes = [name_size] + [big if i == len(lines) - 2 else name_size
                               for i in range(len(lines) - 1)]
        y = rect.y + 3
        for line, size in zip(lines, sizes, strict=True):
            if y + size > rect.y + rect.h - 1:
                break
            text = shorten(line, room_w, size, least=3)
            if not text:
                if size < 7.5:
                    continue
                size = max(size * 0.75, 7.0)
                text = shorten(line, room_w, size, least=2)
                if not text:
                    continue
            y += size
            weight = ' font-weight="bold"' if size == big else ""
            out.append(f'<text x="{num(rect.x + 3.5)}" y="{num(y)}" font-size="{num(size)}" '
                       f'font-family="{MONO}" fill="{ink}"{weight}>{esc(text)}</text>')
            y += size * 0.22

    def _mark(self, out: list[str], d: Domain, rect: Rect, panel: bool = False) -> None:
        """A placement's outline; an infeasible panel is greyed over (a tile is hatched)."""
        mark = self._mark_of(d)
        if mark is None:
            return
        if mark.state == "infeasible":
            if panel:
                out.append(f'<rect x="{num(rect.x + 1)}" y="{num(rect.y + HEADER)}" '
                           f'width="{num(max(rect.w - 2, 0))}" '
                           f'height="{num(max(rect.h - HEADER - 1, 0))}" '
                           f'fill="url(#{self.ids}-hatch)" fill-opacity="0.8"/>')
            return
        out.append(f'<rect x="{num(rect.x + 1.5)}" y="{num(rect.y + 1.5)}" '
                   f'width="{num(max(rect.w - 3, 0))}" height="{num(max(rect.h - 3, 0))}" '
                   f'fill="none"{_outline(mark.state)}/>')

    def _edited(self, out: list[str], box: Box, rect: Rect) -> None:
        """A tile's badges: a corner where a what-if edit changed a node, a dot where the
        selected placement puts pods of the group."""
        if self.overlay is None:
            return
        nodes = self.nodes_in.get(id(box), ())
        size = min(12.0, rect.w / 3, rect.h / 3)
        if any(n in self.overlay.edits for n in nodes):
            x, y = rect.x + rect.w - 1, rect.y + 1
            out.append(f'<path d="M{num(x - size)} {num(y)}h{num(size)}v{num(size)}z" '
                       f'fill="{EDIT}"/>')
        if box.domain.level == HOSTNAME and self.overlay.pods.get(box.domain.name):
            r = max(size / 2.4, 2.0)
            out.append(f'<circle cx="{num(rect.x + rect.w - size - r - 2)}" '
                       f'cy="{num(rect.y + r + 3)}" r="{num(r)}" fill="{INK}" '
                       'stroke="#fff" stroke-width="1"/>')

    def _apart(self, out: list[str], level: str, y: float) -> float:
        """A level whose domains cut across the nested ones: a row of its own."""
        domains = [d for d in self.report.domains if d.level == level]
        nested = [last_segment(k) for k in self.report.nested if k in self.drawn]
        out.append(f'<text x="{MARGIN}" y="{num(y + 13)}" font-size="13" fill="{INK}">'
                   f"{esc(last_segment(level))}: {len(domains)} domain(s) that cut across the "
                   f"{esc(' › '.join(nested) or 'map')} boxes, drawn apart</text>")
        y += 20
        rows = max(1, -(-len(domains) // 24))
        rect = Rect(MARGIN, y, WIDTH - 2 * MARGIN, 44.0 * rows)
        for d, cell in zip(domains, layout([1] * len(domains), rect, aspect=3.0),
                           strict=True):
            mark = self._mark_of(d)
            colour = f"url(#{self.ids}-hatch)" if mark and mark.state == "infeasible" else "#fff"
            out.append(f'<g><title>{esc_lines(self._tooltip(Box(d)))}</title>')
            out.append(f'<rect x="{num(cell.x + .5)}" y="{num(cell.y + .5)}" '
                       f'width="{num(cell.w - 1)}" height="{num(cell.h - 1)}" '
                       f'fill="{colour}" stroke="#737373" stroke-width="1"/>')
            self._texts(out, cell, self._tile_lines(d, self.measure.value(d), mark), INK)
            out.append("</g>")
            self._mark(out, d, cell)
        return y + rect.h + 10

    def _foot(self, out: list[str], y: float) -> float:
        lines = []
        if self.overlay is not None and self.overlay.removed:
            lines.append("removed by a what-if edit (not on the map): "
                         + ", ".join(self.overlay.removed))
        if not self.focus:
            lines.extend(f"note: {n}" for n in self.report.notes)
        for line in lines:
            out.append(f'<text x="{MARGIN}" y="{num(y + 13)}" font-size="12" fill="{FAINT}">'
                       f"{esc(line)}</text>")
            y += 17
        return y

    # -- figures -----------------------------------------------------------------------

    def _mark_of(self, d: Domain) -> Mark | None:
        if self.overlay is None or d.level != self.overlay.level or not d.name:
            return None
        return self.overlay.marks.get(d.name)

    def _holds(self, d: Domain) -> bool:
        shape = self.measure.shape
        return bool(self.measure.gang and shape and d.fit[shape].holds)

    def _star(self, d: Domain) -> bool:
        return (d.level, d.name) in self.stars

    def _name(self, d: Domain, short: bool = False) -> str:
        if not d.name:
            return f"no {last_segment(d.level)} label"
        return d.name if short else f"{last_segment(d.level)} {d.name}"

    def _tooltip(self, box: Box) -> str:
        d = box.domain
        lines = [f"{last_segment(d.level)} {d.name}" if d.name
                 else f"{d.nodes} node(s) without {d.level}", f"{d.nodes:,} node(s)"]
        resources = [r for r in ("cpu", "memory", *sorted(k for k in d.allocatable if "/" in k))
                     if r in d.allocatable]
        lines.append("free " + " · ".join(
            f"{short_resource(r)} {human(r, d.free.get(r, 0))}/{human(r, d.allocatable[r])}"
            for r in resources))
        for name, _ in self.shapes:
            fit = d.fit[name]
            gang = self.report.gangs.get(name)
            held = ("" if gang is None else
                    f" · {'holds' if fit.holds else 'does not hold'} a gang of {gang}")
            lines.append(f"shape {self.letters[name]}: {fit.now} now · {fit.empty} empty{held}")
        if self._star(d):
            lines.append(f"★ alone holds the most pods of shape "
                         f"{self.letters.get(self.star_shape or '', '')} at its level")
        mark = self._mark_of(d)
        if mark is not None:
            lines.append(f"placement #{mark.rank} ({mark.state}): {mark.note}")
        if self.overlay is not None:
            for node in self.nodes_in.get(id(box), ()):
                for edit in self.overlay.edits.get(node, ()):
                    lines.append(f"what-if on {node}: {edit}")
                if self.overlay.pods.get(node):
                    lines.append(f"{node}: {self.overlay.pods[node]} pod(s) of the group")
        return "\n".join(lines)


def _mark_head(mark: Mark) -> str:
    """``#1▶ 4/4 pods``: the rank as in the table, ▶ selected, = tied."""
    head = {"selected": "▶", "tied": "="}.get(mark.state, "")
    return f"#{mark.rank}{head} {mark.text}".strip()


def _dash(dashed: bool) -> str:
    return ' stroke-dasharray="5 3"' if dashed else ""


def _outline(state: str) -> str:
    return {
        "selected": f' stroke="{INK}" stroke-width="3.5"',
        "tied": f' stroke="{INK}" stroke-width="2.5" stroke-dasharray="6 3"',
        "feasible": f' stroke="{INK}" stroke-width="1.2"',
        "infeasible": ' stroke="#9e9e9e" stroke-width="1"',
    }[state]


def _nodes_below(tree: Box) -> dict[int, tuple[str, ...]]:
    """id(box) -> the names of the hostname boxes inside it (for edits and pods)."""
    out: dict[int, tuple[str, ...]] = {}

    def walk(box: Box) -> tuple[str, ...]:
        if box.domain.level == HOSTNAME:
            names: tuple[str, ...] = (box.domain.name,)
        else:
            names = tuple(n for kid in box.children for n in walk(kid))
        out[id(box)] = names
        return names

    walk(tree)
    return out

