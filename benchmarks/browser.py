#!/usr/bin/env python3
"""Load a local page in headless Chromium and screenshot it, through the DevTools protocol
over a pipe (``--remote-debugging-pipe``: no port, no extra package).

    .venv/bin/python benchmarks/browser.py page.html page.png [--width 1400]

``load(path, png)`` returns what a test needs to know: every request the page made (a
self-contained page makes none but its own file), console errors and uncaught exceptions,
the page's width and height, and how long loading and first paint took. Flags are those
that work on this kind of machine (see the environment notes): headless, no sandbox (root),
no GPU, no QUIC, no background networking, a fresh profile.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-extensions", "--disable-default-apps", "--hide-scrollbars",
         "--force-device-scale-factor=1", "--mute-audio", "--remote-debugging-pipe")
TIMEOUT = 60.0  # seconds for any one step; a hung browser fails the call, never the caller


def find_chromium() -> str | None:
    """The browser's path: $TASPLAN_CHROMIUM, else the first of CANDIDATES on PATH."""
    explicit = os.environ.get("TASPLAN_CHROMIUM")
    if explicit:
        return explicit if Path(explicit).exists() else None
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


@dataclass
class PageLoad:
    url: str
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    errors: list[str] = field(default_factory=list)  # console errors, exceptions, failures
    width: int = 0  # document scroll width / height, CSS pixels
    height: int = 0
    load_ms: float = 0.0  # navigation start to load event end
    paint_ms: float = 0.0  # navigation start to first contentful paint
    probe: object = None  # what the ``probe`` expression returned
    pdf_pages: int = 0  # pages of the printed PDF, when one was asked for

    @property
    def foreign(self) -> list[str]:
        """Requests for anything but the page itself."""
        return [u for u in self.requests if u != self.url]


class BrowserError(RuntimeError):
    pass


class _Pipe:
    """One Chromium process and its DevTools pipe (fd 3 in, fd 4 out, NUL-separated)."""

    def __init__(self, binary: str, width: int, height: int) -> None:
        self.profile = tempfile.mkdtemp(prefix="tasplan-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # The child's fd 3 reads commands, fd 4 writes replies.
        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=_dup_fds(to_child_r, from_child_w))
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict] = []

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next += 1
        message: dict = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict:
        for i, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(i)
        while True:
            event = self._read()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def _read(self) -> dict:
        deadline = time.monotonic() + TIMEOUT
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_child], [], [], max(left, 0))
            if not ready:
                raise BrowserError(f"no answer from Chromium within {TIMEOUT:.0f} s")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its DevTools pipe (did it start?)")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


def _dup_fds(read_end: int, write_end: int):
    """In the child, before exec: the pipe ends onto fds 3 and 4 (via fds above 10, so
    that an end that already is 3 or 4 is not overwritten first)."""
    def setup() -> None:
        high_read = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10)
        high_write = fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
        os.dup2(high_read, 3)
        os.dup2(high_write, 4)
    return setup


def load(page: Path, png: Path | None = None, width: int = 1400, height: int = 600,
         binary: str | None = None, clip: tuple[int, int] | None = None,
         probe: str | None = None, pdf: Path | None = None) -> PageLoad:
    """Open ``page`` (a local file) at ``width`` CSS pixels, wait for its load event, and
    screenshot the whole page (or the rows ``clip`` = (top, bottom)) into ``png``;
    ``probe`` is a JavaScript expression evaluated in the page, ``pdf`` where to print it
    (A4, or the page size its CSS asks for, as a person would print it)."""
    binary = binary or find_chromium()
    if binary is None:
        raise BrowserError("no Chromium found (apt-get install chromium)")
    url = page.resolve().as_uri()
    pipe = _Pipe(binary, width, height)
    try:
        target = pipe.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            pipe.send(f"{domain}.enable", session=session)
        pipe.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session)
        pipe.send("Page.navigate", {"url": url}, session=session)
        pipe.wait_for("Page.loadEventFired")
        result = PageLoad(url)
        metrics = pipe.send("Runtime.evaluate", {"expression": _METRICS, "returnByValue": True},
                            session=session)["result"]["value"]
        result.width, result.height = metrics["width"], metrics["height"]
        result.load_ms, result.paint_ms = metrics["load"], metrics["paint"]
        if probe is not None:
            result.probe = pipe.send("Runtime.evaluate", {
                "expression": probe, "returnByValue": True}, session=session)["result"].get(
                    "value")
        if png is not None:
            top, bottom = clip or (0, result.height)
            shot = pipe.send("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": top, "width": max(result.width, width),
                         "height": min(bottom, result.height) - top, "scale": 1}},
                session=session)
            png.write_bytes(base64.b64decode(shot["data"]))
        if pdf is not None:
            printed = base64.b64decode(pipe.send("Page.printToPDF", {
                "paperWidth": 8.27, "paperHeight": 11.69, "printBackground": False,
                "preferCSSPageSize": True}, session=session)["data"])
            pdf.write_bytes(printed)
            result.pdf_pages = len(re.findall(rb"/Type\s*/Page(?!s)", printed))
        _collect(pipe.events, result)
        return result
    finally:
        pipe.close()


_METRICS = """(() => {
  const e = document.documentElement, t = performance.timing;
  const box = e.getBoundingClientRect();
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const svg = e.namespaceURI === 'http://www.w3.org/2000/svg';
  return {width: Math.ceil(svg ? box.width : e.scrollWidth),
          height: Math.ceil(svg ? box.height : e.scrollHeight),
          load: t.loadEventEnd > 0 ? t.loadEventEnd - t.navigationStart
                                   : performance.now(),
          paint: fcp ? fcp.startTime : -1};
})()"""


def _collect(events: list[dict], result: PageLoad) -> None:
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            result.requests.append(params["request"]["url"])
        elif method == "Network.loadingFailed":
            result.errors.append(f"loading failed: {params.get('errorText')}")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            thrown = details.get("exception", {}).get("description") or details.get("text")
            result.errors.append(f"exception: {thrown}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            result.errors.append("console: " + " ".join(
                str(a.get("value", a.get("description", ""))) for a in params.get("args", ())))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            result.errors.append(f"log: {params['entry'].get('text')}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page", type=Path)
    ap.add_argument("png", type=Path, nargs="?")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--clip", metavar="TOP,BOTTOM", help="screenshot only these rows")
    args = ap.parse_args(argv)
    clip = tuple(int(v) for v in args.clip.split(",")) if args.clip else None
    result = load(args.page, args.png, args.width, clip=clip)
    print(json.dumps({"requests": result.requests, "foreign": result.foreign,
                      "errors": result.errors, "width": result.width, "height": result.height,
                      "load_ms": round(result.load_ms, 1),
                      "paint_ms": round(result.paint_ms, 1)}, indent=2))
    return 1 if result.errors or result.foreign else 0


if __name__ == "__main__":
    sys.exit(main())
