"""One self-contained HTML page: inline styles, inline SVG, nothing fetched (a
Content-Security-Policy forbids it), readable on a 1,400-pixel screen and on paper."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tasplan.report.picture.svg import esc

CSS = """
:root { color: #1a1a1a; background: #fff; }
body { font: 14px/1.45 "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 16px auto;
       max-width: 1400px; padding: 0 12px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 6px; }
h3 { font-size: 15px; margin: 18px 0 6px; }
p, ul, ol { margin: 4px 0 8px; }
svg { display: block; width: 100%; height: auto; margin: 8px 0; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid #d0d0d0; padding: 2px 7px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.selected td { font-weight: bold; background: #deebf7; }
tr.infeasible td { color: #6b6b6b; }
.verdict { font-weight: bold; } .ok { color: #08519c; } .bad { color: #b2182b; }
.whatif { border-left: 4px solid #c51b8a; padding: 4px 10px; background: #fcf0f7; }
.muted { color: #6b6b6b; } code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas,
  monospace; font-size: 12px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f7f7f7;
      padding: 8px; border: 1px solid #e0e0e0; }
.wide { overflow-x: auto; }
@page { size: A4 landscape; margin: 10mm; }
@media print {
  body { margin: 0; max-width: none; font-size: 10pt; }
  section { break-inside: auto; } tr, svg { break-inside: avoid; }
  .wide { overflow: visible; } tr.selected td { background: none; }
}
"""
POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def page(title: str, parts: Iterable[str]) -> str:
    """A whole HTML document; ``parts`` are already escaped HTML."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{CSS}</style></head>\n<body>\n"
            + "".join(parts) + "</body></html>\n")


def table(headers: Sequence[str], rows: Iterable[Sequence[str]],
          numeric: Iterable[int] = (), classes: Sequence[str] | None = None) -> str:
    """An HTML table of plain-text cells (escaped here); columns in ``numeric`` align
    right; ``classes`` gives each row a class (selected, infeasible, ...)."""
    right = set(numeric)
    out = ['<div class="wide"><table><thead><tr>',
           *(f"<th>{esc(h)}</th>" for h in headers), "</tr></thead><tbody>"]
    for i, row in enumerate(rows):
        cls = classes[i] if classes is not None and i < len(classes) else ""
        out.append(f'<tr class="{esc(cls)}">' if cls else "<tr>")
        out.extend(f'<td class="n">{esc(c)}</td>' if j in right else f"<td>{esc(c)}</td>"
                   for j, c in enumerate(row))
        out.append("</tr>")
    out.append("</tbody></table></div>\n")
    return "".join(out)


def paragraph(text: str, cls: str = "") -> str:
    return f'<p class="{cls}">{esc(text)}</p>\n' if cls else f"<p>{esc(text)}</p>\n"


def items(texts: Iterable[str], ordered: bool = False) -> str:
    tag = "ol" if ordered else "ul"
    return f"<{tag}>" + "".join(f"<li>{esc(t)}</li>" for t in texts) + f"</{tag}>\n"


def what_if(applied: Sequence) -> str:
    """The what-if edits the report was made with (AppliedEdit), or nothing."""
    if not applied:
        return ""
    return ('<div class="whatif"><p class="verdict">WHAT-IF: planned on the cluster with '
            f"{len(applied)} edit(s), not the cluster as it is</p>"
            + items((f"{e.op} {e.target} → {e.effect}" for e in applied), ordered=True)
            + "</div>\n")
