"""What a map colours its tiles by, and the colour classes (bins) of one map.

Measures (``--color-by``): ``now[:SHAPE]`` and ``empty[:SHAPE]``, the pods of a shape that
fit now or in an empty domain (SHAPE: its letter, A by default); ``free[:RESOURCE]``, the
free amount of a resource; ``free-fraction[:RESOURCE]``, free / allocatable (RESOURCE: the
first extended resource the nodes have, such as nvidia.com/gpu, else cpu).

A shape with a gang size splits its scale in two: domains that hold the gang in blues,
the others in oranges, so that where a gang fits stands out at a glance and apart in print
(a ✓ on the tile says it too). Colours are ColorBrewer's Blues and Oranges, which people
with the common colour-vision deficiencies still tell apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from tasplan.capacity.report import CapacityReport, Domain
from tasplan.errors import UsageError
from tasplan.report.formatting import human, short_resource

KINDS = ("now", "empty", "free", "free-fraction")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
NONE_FILL = "#f2f2f2"  # nothing fits, nothing free
BLUES = ("#c6dbef", "#6baed6", "#3182bd", "#08519c")
ORANGES = ("#fdd0a2", "#fdae6b", "#f16913")
DARK = frozenset({"#3182bd", "#08519c", "#f16913"})  # fills that take white text


@dataclass(frozen=True, slots=True)
class Measure:
    """``shape`` names a shape of the report (now, empty); ``resource`` a resource (free,
    free-fraction); ``gang`` the shape's gang size when its scale is split."""

    kind: str
    shape: str | None = None
    resource: str | None = None
    gang: int | None = None

    def value(self, domain: Domain) -> float:
        if self.shape is not None:
            fit = domain.fit[self.shape]
            return fit.now if self.kind == "now" else fit.empty
        free = domain.free.get(self.resource or "", 0)
        if self.kind == "free":
            return free
        alloc = domain.allocatable.get(self.resource or "", 0)
        return free / alloc if alloc else 0.0

    def text(self, value: float) -> str:
        """The value as a tile shows it."""
        if self.kind == "free-fraction":
            return f"{value:.0%}"
        if self.kind == "free":
            return human(self.resource or "", int(value))
        return str(int(value))

    def title(self, letters: Mapping[str, str]) -> str:
        if self.kind in ("now", "empty"):
            when = "now" if self.kind == "now" else "in an empty domain"
            return f"pods of shape {letters[self.shape or '']} that fit {when}"
        what = short_resource(self.resource or "")
        return f"free {what}" if self.kind == "free" else f"free {what} / allocatable"


def shape_letters(report: CapacityReport) -> dict[str, str]:
    """Shape name -> A, B, ... (S27, ... beyond Z), as the text tree labels them."""
    return {name: LETTERS[i] if i < len(LETTERS) else f"S{i + 1}"
            for i, (name, _) in enumerate(report.shapes)}


def check_kind(text: str) -> None:
    """A usage error for an unknown measure (before anything is loaded: its shape or
    resource is checked against the report)."""
    if text.partition(":")[0] not in KINDS:
        raise UsageError(f"--color-by {text!r}: expected one of {', '.join(KINDS)}, with an "
                         "optional :SHAPE or :RESOURCE (now:B, free:nvidia.com/gpu, ...)")


def parse_measure(text: str | None, report: CapacityReport) -> Measure:
    check_kind(text or "now")
    kind, _, arg = (text or "now").partition(":")
    if kind in ("now", "empty"):
        letters = {v: k for k, v in shape_letters(report).items()}
        if not letters:
            raise UsageError(f"--color-by {kind}: there is no shape (--shape or --for)")
        name = letters.get(arg or "A")
        if name is None:
            raise UsageError(f"--color-by {text!r}: no shape {arg!r} (shapes: "
                             f"{', '.join(letters)})")
        gang = report.gangs.get(name) if kind == "now" else None
        return Measure(kind, shape=name, gang=gang)
    have = report.total.allocatable
    resource = arg or next((r for r in sorted(have) if "/" in r), "cpu")
    if resource not in have:
        raise UsageError(f"--color-by {text!r}: no node has {resource!r} (resources: "
                         f"{', '.join(sorted(have))})")
    return Measure(kind, resource=resource)


@dataclass(frozen=True, slots=True)
class Bin:
    """Values in [low, high] take ``fill``; ``label`` says so in the legend."""

    low: float
    high: float
    fill: str
    label: str


def bins(measure: Measure, values: Sequence[float]) -> tuple[Bin, ...]:
    """The colour classes for these values: one for nothing (0), then ranges."""
    top = max(values, default=0)
    if measure.kind == "free-fraction":
        edges = [(0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0)]
        return (Bin(0, 0, NONE_FILL, "0%"), *(
            Bin(lo, hi, colour, f"{lo:.0%}–{hi:.0%}")
            for (lo, hi), colour in zip(edges, BLUES, strict=True)))
    zero = Bin(0, 0, NONE_FILL, measure.text(0))
    unit = _UNITS.get(measure.resource or "", 1) if measure.kind == "free" else 1
    if unit > 1:  # cores, bytes: even steps of a round size
        return (zero, *_steps(measure, top, unit, BLUES))
    gang = measure.gang
    if gang is None:
        return (zero, *_ranges(measure, 1, top, BLUES, ""))
    below = _ranges(measure, 1, min(top, gang - 1), ORANGES[:2], "")
    above = _ranges(measure, gang, top, BLUES[1:], " ✓")
    return (zero, *below, *above)


def _ranges(measure: Measure, low: float, high: float, fills: Sequence[str],
            mark: str) -> list[Bin]:
    """Up to len(fills) whole-number ranges covering [low, high], as even as they come."""
    if high < low:
        return []
    low, high = int(low), int(high)
    count = min(len(fills), high - low + 1)
    out = []
    for i in range(count):
        lo = low + (high - low + 1) * i // count
        hi = low + (high - low + 1) * (i + 1) // count - 1
        label = measure.text(lo) if lo == hi else f"{measure.text(lo)}–{measure.text(hi)}"
        out.append(Bin(lo, hi, fills[len(fills) - count + i], label + mark))
    return out


_UNITS = {"cpu": 1000, "memory": 1024**3, "ephemeral-storage": 1024**3}


def _steps(measure: Measure, top: float, unit: int, fills: Sequence[str]) -> list[Bin]:
    """Ranges of one round size up to ``top`` (1, 2, 2.5 or 5 times a power of ten cores; a
    power of two GiB): "0–100", "100–200", ... (a value on an edge takes the upper range)."""
    share = top / unit / len(fills)
    step = (_nice(share) if unit == 1000 else 2.0 ** math.ceil(math.log2(max(share, 1))))
    step *= unit
    out = []
    for i, colour in enumerate(fills):
        lo, hi = i * step, (i + 1) * step
        if lo >= top:
            break
        label = f"{measure.text(lo)}–{measure.text(hi)}"
        out.append(Bin(lo or 1, hi, colour, label))
    return [replace(b, fill=f) for b, f in zip(out, fills[len(fills) - len(out):],
                                                strict=True)]


def _nice(x: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten that is at least ``x``."""
    if x <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(x))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= x)


def fill(value: float, classes: Sequence[Bin]) -> str:
    """Nothing takes the first class's fill; more, the last range whose low end it reaches."""
    chosen = classes[0].fill
    if value > 0:
        for c in classes[1:]:
            if value >= c.low:
                chosen = c.fill
    return chosen
