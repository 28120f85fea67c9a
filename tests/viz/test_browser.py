"""The graph in a real browser: `python -m stablehlo_py.viz examples/viz/mlp.mlir` serves Model
Explorer, headless Chromium loads the page, and a screenshot must show drawn nodes, not a blank
canvas or an error page.  Skipped unless Model Explorer (the `viz` extra) and Chromium (Debian's
`chromium` package) are installed: CI has neither (docs/plans/issue-27-tools.md, decision 11).

Chromium is driven over its DevTools pipe (``--remote-debugging-pipe``: JSON messages on file
descriptors 3 and 4, no extra package): `--screenshot` alone shoots when the page has loaded,
before Model Explorer has fetched and drawn the graph, and `--virtual-time-budget` never ends on
this page (its server-event stream keeps a request open).  So the test takes a screenshot every
few seconds until the graph shows or a deadline passes.

What "drawn" means: the example's top level shows its six arguments as Input nodes, which the
adapter fills with :data:`~stablehlo_py.viz.graph.INPUT_STYLE`'s colour (Model Explorer's own op
fill is white, like its background); the PNG must hold that colour in >= 3 separate blobs of node
size.  WebGL draws through SwiftShader (``--use-angle=swiftshader``): without it the canvas stays
blank.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
import zlib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("model_explorer", reason="the graph view needs the viz extra: "
                    "pip install 'stablehlo-py[viz]'")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("Chromium is not installed (apt-get install chromium): the browser test of the "
                "graph view is skipped", allow_module_level=True)

from stablehlo_py.viz.graph import INPUT_STYLE  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "viz" / "mlp.mlir"
SERVER_WAIT = 60.0
GRAPH_WAIT = 90.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def _kill(proc: subprocess.Popen) -> None:
    """End a process this test started and its children (its own session: its process group)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait(timeout=30)


class _Lines:
    """A process's output lines, read by a thread (so waiting for one is bounded)."""

    def __init__(self, proc: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            self.lines.append(line.rstrip("\n"))

    def text(self) -> str:
        return "\n".join(self.lines)


class _DevTools:
    """Chromium with ``--remote-debugging-pipe``: commands on its fd 3, replies on its fd 4."""

    def __init__(self, url: str, profile: Path) -> None:
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()
        # move the child's ends above 3 and 4 first, so dup2 onto 3 and 4 never meets itself
        hi_r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 10)
        hi_w = fcntl.fcntl(res_w, fcntl.F_DUPFD_CLOEXEC, 10)

        def child() -> None:
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [CHROMIUM, "--headless", "--remote-debugging-pipe", f"--user-data-dir={profile}",
                "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                "--window-size=1600,1000", "--no-first-run", "--disable-gpu-sandbox"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.proc = subprocess.Popen([*args, url], preexec_fn=child, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        for fd in (cmd_r, res_w, hi_r, hi_w):
            os.close(fd)
        self.buffer = b""
        self.last_id = 0

    def send(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 30.0) -> dict:
        self.last_id += 1
        message = {"id": self.last_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self.cmd_w, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.last_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"Chromium did not answer {method} in {timeout} s")
            ready, _, _ = select.select([self.res_r], [], [], left)
            if ready:
                chunk = os.read(self.res_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                self.buffer += chunk

    def page_session(self) -> str:
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        return self.send("Target.attachToTarget",
                         {"targetId": page["targetId"], "flatten": True})["sessionId"]

    def close(self) -> None:
        os.close(self.cmd_w)
        os.close(self.res_r)
        _kill(self.proc)


def read_png(data: bytes) -> np.ndarray:
    """An 8-bit RGB or RGBA non-interlaced PNG (what Chromium writes) as an (h, w, channels)
    array: the chunks, zlib, and the five row filters."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    assert header is not None, "PNG without IHDR"
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and not interlace, f"unexpected PNG format {header}"
    ch = 3 if color == 2 else 4
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(height, 1 + width * ch)
    out = np.zeros((height, width * ch), np.int64)
    prev = np.zeros(width * ch, np.int64)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        if kind == 0:
            cur = line
        elif kind == 1:  # Sub: a running sum along the row, per channel
            cur = (np.cumsum(line.reshape(width, ch), axis=0) & 255).reshape(-1)
        elif kind == 2:  # Up
            cur = (line + prev) & 255
        else:  # Average, Paeth: each byte needs its decoded left neighbour
            cur = line.tolist()
            up = prev.tolist()
            for x in range(len(cur)):
                a = cur[x - ch] if x >= ch else 0
                b = up[x]
                if kind == 3:
                    cur[x] = (cur[x] + ((a + b) >> 1)) & 255
                else:
                    c = up[x - ch] if x >= ch else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    cur[x] = (cur[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            cur = np.array(cur, np.int64)
        out[y] = cur
        prev = cur
    return out.reshape(height, width, ch)[:, :, :3].astype(np.uint8)


def blobs(mask: np.ndarray, min_size: int) -> list[tuple[int, tuple[int, int, int, int]]]:
    """Connected regions (8-neighbour) of ``mask`` with at least ``min_size`` pixels: (size,
    (top, left, bottom, right))."""
    seen = np.zeros_like(mask, bool)
    found = []
    height, width = mask.shape
    for y0, x0 in zip(*np.nonzero(mask), strict=True):
        if seen[y0, x0]:
            continue
        seen[y0, x0] = True
        stack, size, box = [(y0, x0)], 0, [y0, x0, y0, x0]
        while stack:
            y, x = stack.pop()
            size += 1
            box = [min(box[0], y), min(box[1], x), max(box[2], y), max(box[3], x)]
            for yy in (y - 1, y, y + 1):
                for xx in (x - 1, x, x + 1):
                    if 0 <= yy < height and 0 <= xx < width and mask[yy, xx] and not seen[yy, xx]:
                        seen[yy, xx] = True
                        stack.append((yy, xx))
        if size >= min_size:
            found.append((size, (int(box[0]), int(box[1]), int(box[2]), int(box[3]))))
    return found


def _fill_blobs(png: bytes) -> list[tuple[int, tuple[int, int, int, int]]]:
    hex_colour = INPUT_STYLE["backgroundColor"].lstrip("#")
    colour = np.array([int(hex_colour[i : i + 2], 16) for i in (0, 2, 4)])
    image = read_png(png).astype(np.int64)
    mask = np.abs(image - colour).sum(axis=2) <= 6
    return blobs(mask, min_size=150)


def test_read_png_and_blobs_on_a_known_image() -> None:
    """The decoder and the blob finder on an image made here (every row filter)."""
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (12, 9, 3), dtype=np.uint8)
    image[2:5, 1:4] = (206, 234, 214)
    image[7:11, 5:8] = (206, 234, 214)
    rows = []
    for y in range(12):
        kind = y % 5
        line = image[y].astype(np.int64).reshape(-1)
        prev = image[y - 1].astype(np.int64).reshape(-1) if y else np.zeros_like(line)
        left = np.concatenate([np.zeros(3, np.int64), line[:-3]])
        upleft = np.concatenate([np.zeros(3, np.int64), prev[:-3]])
        if kind == 0:
            enc = line
        elif kind == 1:
            enc = line - left
        elif kind == 2:
            enc = line - prev
        elif kind == 3:
            enc = line - ((left + prev) >> 1)
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
            enc = line - pred
        rows.append(bytes([kind]) + bytes((enc & 255).astype(np.uint8)))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 9, 12, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))
    assert (read_png(png) == image).all()
    mask = (read_png(png).astype(int) == (206, 234, 214)).all(axis=2)
    assert sorted(blobs(mask, 4)) == [(9, (2, 1, 4, 3)), (12, (7, 5, 10, 7))]
    assert blobs(mask, 10) == [(12, (7, 5, 10, 7))]


def test_page_shows_the_graph(tmp_path: Path) -> None:
    port = _free_port()
    started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "stablehlo_py.viz", str(EXAMPLE), f"--port={port}",
         "--no_open_in_browser"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    output = _Lines(server)
    browser = None
    try:
        url = None
        while url is None:
            assert server.poll() is None, f"the launcher exited:\n{output.text()}"
            assert time.monotonic() - started < SERVER_WAIT, (
                f"no server after {SERVER_WAIT} s:\n{output.text()}")
            url = next((w for ln in output.lines for w in ln.split()
                        if w.startswith(f"http://localhost:{port}/?data=")), None)
            time.sleep(0.2)
        with urllib.request.urlopen(f"http://localhost:{port}/check_health", timeout=10) as r:
            assert r.read() == b"model_explorer_ok"
        served = time.monotonic()

        browser = _DevTools(url, tmp_path / "profile")
        session = browser.page_session()
        shot = tmp_path / "graph.png"
        blob_list: list = []
        while len(blob_list) < 3:
            assert time.monotonic() - served < GRAPH_WAIT, (
                f"no graph drawn after {GRAPH_WAIT} s ({len(blob_list)} input nodes in the last "
                f"screenshot, {shot}); server output:\n{output.text()}")
            time.sleep(2.0)
            png = base64.b64decode(
                browser.send("Page.captureScreenshot", {"format": "png"}, session)["data"])
            shot.write_bytes(png)
            blob_list = _fill_blobs(png)
        drawn = time.monotonic()
        print(f"\nbrowser: server up in {served - started:.1f} s, graph drawn "
              f"{drawn - served:.1f} s later; {len(blob_list)} input nodes in {shot}")
        assert len(blob_list) >= 3
        # node-sized: wider than tall, each at least 20 x 8 pixels, none covering the page
        for _, (top, left, bottom, right) in blob_list:
            assert 20 <= right - left <= 400 and 8 <= bottom - top <= 100
        assert "Traceback" not in output.text()
    finally:
        if browser is not None:
            browser.close()
        _kill(server)
    assert server.returncode is not None
