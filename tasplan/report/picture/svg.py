"""Small pieces of SVG text: escaping, numbers, text that fits a width.

Everything is written with fixed precision and in a fixed order, so the same report gives
the same bytes. Text comes from inputs (names, labels, messages): it is cleaned of control
characters and escaped for XML before it is written.
"""

from __future__ import annotations

from html import escape

from tasplan.untrusted import clean

MONO = "DejaVu Sans Mono,Menlo,Consolas,monospace"
SANS = "DejaVu Sans,Helvetica,Arial,sans-serif"
CHAR = 0.61  # width of one monospace character, in ems (DejaVu Sans Mono: 0.602)


def esc(text: str) -> str:
    """Untrusted text, safe inside an XML/HTML element or attribute (one line)."""
    return escape(clean(text), quote=True)


def esc_lines(text: str) -> str:
    """As ``esc``, keeping line breaks (tooltips)."""
    return escape(clean(text, keep="\n"), quote=True)


def num(value: float) -> str:
    """A coordinate: one decimal, no trailing zeros."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def fits(text: str, width: float, size: float) -> bool:
    return len(text) * CHAR * size <= width


def shorten(text: str, width: float, size: float, least: int = 4) -> str:
    """``text`` cut with an ellipsis to fit ``width`` at ``size`` (monospace), or "" when
    not even ``least`` characters would fit."""
    room = int(width / (CHAR * size))
    if len(text) <= room:
        return text
    if room < least:
        return ""
    return text[:room - 1] + "…"
