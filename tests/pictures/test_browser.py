"""The pictures in a real browser: headless Chromium (Debian's package) loads the samples'
map and reports, renders them to PNG and prints them, and they load without errors and
without a single network request.

Skipped, with the reason, where Chromium is absent. In CI (``CI=true``) an absent browser
fails the test unless ``.ci/run`` said why it could not install one
(``TASPLAN_BROWSER_UNAVAILABLE``): the test must not pass silently there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
try:
    from browser import find_chromium, load
finally:
    sys.path.remove(str(REPO / "benchmarks"))

CHROMIUM = find_chromium()
GOLDEN = REPO / "tests" / "golden"
PNG = b"\x89PNG\r\n\x1a\n"


def _skip_reason() -> str | None:
    if CHROMIUM is not None:
        return None
    why = os.environ.get("TASPLAN_BROWSER_UNAVAILABLE")
    if os.environ.get("CI") == "true" and not why:
        pytest.fail("CI without Chromium and without TASPLAN_BROWSER_UNAVAILABLE: .ci/run "
                    "should have installed it (apt-get install chromium)")
    return ("Chromium not found (apt-get install chromium, or set TASPLAN_CHROMIUM): the "
            "browser tests of the pictures are skipped" + (f"; {why}" if why else ""))


@pytest.fixture(autouse=True)
def _browser() -> None:
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)


MAP_PROBE = ("(() => { const s = document.querySelector('svg'), b = s.getBoundingClientRect();"
             " return {rects: s.querySelectorAll('rect').length, width: b.width,"
             " height: b.height, texts: s.querySelectorAll('text').length}; })()")


@pytest.mark.parametrize("golden", ["capacity-map.svg", "capacity-nodes.svg"])
def test_the_map_renders_without_errors_or_requests(golden: str, tmp_path: Path) -> None:
    png = tmp_path / "map.png"
    page = load(GOLDEN / golden, png, probe=MAP_PROBE)
    assert page.errors == [] and page.foreign == []
    assert page.requests == [page.url]
    assert png.read_bytes().startswith(PNG) and png.stat().st_size > 10_000
    drawn = page.probe
    assert drawn["width"] == 1400 and drawn["height"] > 300  # laid out, not collapsed
    assert drawn["rects"] > 15 and drawn["texts"] > 15


@pytest.mark.parametrize("golden", ["capacity.html", "check-train-rack.html",
                                    "explain-train-too-big.html"])
def test_the_reports_load_fit_the_screen_and_print(golden: str, tmp_path: Path) -> None:
    """No request but the page itself, no console error; nothing wider than a 1,400-pixel
    window; the map inside is drawn at the page's width; printing gives a PDF."""
    pdf = tmp_path / "report.pdf"
    page = load(GOLDEN / golden, tmp_path / "report.png", probe=MAP_PROBE, pdf=pdf)
    assert page.errors == [] and page.foreign == []
    assert page.width <= 1400, "the page overflows a 1,400-pixel window"
    assert 1300 <= page.probe["width"] <= 1400 and page.probe["rects"] > 15
    assert pdf.read_bytes().startswith(b"%PDF") and page.pdf_pages >= 1


def test_a_page_that_asks_the_network_is_caught(tmp_path: Path) -> None:
    """The check above can fail: an image from elsewhere is a foreign request, a script
    error is an error (the port is closed; nothing leaves the machine)."""
    page_file = tmp_path / "bad.html"
    page_file.write_text('<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png">'
                         "<script>undefinedFunction()</script></body></html>")
    page = load(page_file)
    assert page.foreign == ["http://127.0.0.1:9/x.png"]
    assert any("undefinedFunction" in e for e in page.errors)


def test_the_gallery_command_draws_the_samples(tmp_path: Path) -> None:
    """``benchmarks/gallery.py`` (the docs' gallery) on the samples: one PNG per picture,
    each from a page that loaded cleanly (the command fails otherwise)."""
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "gallery.py"), "--out",
                           str(tmp_path)], capture_output=True, text=True, check=False,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    made = sorted(p.name for p in tmp_path.glob("*.png"))
    assert made == ["capacity-samples-nodes.png", "capacity-samples.png",
                    "check-train-rack.png", "explain-train-too-big.png"]
    assert all(p.read_bytes().startswith(PNG) for p in tmp_path.glob("*.png"))
