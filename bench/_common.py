"""Shared helpers for the benchmark scripts: statistics, markdown tables, machine notes, RSS, presets.

Benchmarks, not timed tests: nothing here asserts a time. Every script prints medians with a
spread (p10/p90 and the interquartile range) and the number of samples, and puts the things it
compares side by side in one run, interleaved, so that a noisy machine slows both sides alike.
"""

from __future__ import annotations

import contextlib
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


# ---- statistics -----------------------------------------------------------------------------
def quantile(xs: list[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default), without numpy."""
    s = sorted(xs)
    if not s:
        return float("nan")
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary(xs: list[float]) -> dict:
    """n, p50, p10, p90, IQR (p75 − p25), min, max."""
    if not xs:
        return {"n": 0, "p50": float("nan"), "p10": float("nan"), "p90": float("nan"), "iqr": float("nan"),
                "min": float("nan"), "max": float("nan")}
    return {"n": len(xs), "p50": statistics.median(xs), "p10": quantile(xs, 0.10), "p90": quantile(xs, 0.90),
            "iqr": quantile(xs, 0.75) - quantile(xs, 0.25), "min": min(xs), "max": max(xs)}


def fmt_ms(seconds: float) -> str:
    if seconds != seconds:  # NaN
        return "–"
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def fmt_ratio(r: float) -> str:
    return "–" if r != r else f"{r:.2f}×"


def fmt_bytes(n: float) -> str:
    if n != n:
        return "–"
    sign, n = ("−", -n) if n < 0 else ("", n)
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{sign}{n / size:.2f} {unit}"
    return f"{sign}{int(n)} B"


def ms_cells(xs: list[float]) -> list[str]:
    """p50, p10–p90, IQR, n as table cells (milliseconds)."""
    s = summary(xs)
    return [fmt_ms(s["p50"]), f"{fmt_ms(s['p10'])}–{fmt_ms(s['p90'])}", fmt_ms(s["iqr"]), str(s["n"])]


def table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub markdown table, columns padded so it also reads in a terminal."""
    cols = [header] + rows
    widths = [max(len(str(r[i])) for r in cols) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    return "\n".join([line(header), "| " + " | ".join("-" * w for w in widths) + " |"] + [line(r) for r in rows])


def goal(ok: bool | None) -> str:
    return "–" if ok is None else "met" if ok else "MISSED"


# ---- the machine ----------------------------------------------------------------------------
def machine_note() -> str:
    """One line saying what these numbers were measured on, and how busy it was."""
    try:
        import torch

        threads = f"torch {torch.__version__} threads={torch.get_num_threads()}"
    except ImportError:  # pragma: no cover
        threads = "torch not installed"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"python {platform.python_version()}, {os.cpu_count()} CPUs, {threads}, "
            f"load average {load} (1/5/15 min) at {time.strftime('%Y-%m-%d %H:%M:%S')}")


def _status_bytes(field: str, pid: int | str) -> int:
    """A memory line of /proc/<pid>/status (e.g. VmRSS), in bytes; 0 when unreadable."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def rss_bytes(pid: int | str = "self") -> int:
    """Resident set size (VmRSS), in bytes; 0 when unreadable."""
    return _status_bytes("VmRSS", pid)


def hwm_bytes(pid: int | str = "self") -> int:
    """Peak resident set size (VmHWM), in bytes."""
    return _status_bytes("VmHWM", pid)


# ---- the app's data -------------------------------------------------------------------------
def build_lab(preset_id: str, **config_changes):
    """Vocab → lines → Recipe → Lab exactly as session._from_preset builds them."""
    from assets import presets
    from core.batch import parse_sentences
    from core.training import Config, Lab, Recipe
    from core.vocab import Vocab

    p = presets.load(preset_id)
    vocab = Vocab.from_rows(p["vocab"])
    classes = tuple(p["classes"])
    lines = parse_sentences(p["sentences"], classes)
    cfg = Config(**{**p.get("config", {}), **config_changes})
    return Lab(Recipe.of(vocab, lines, classes, cfg))


# ---- servers --------------------------------------------------------------------------------
def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``python -m streamlit run FILE`` on a free loopback port; polled until /_stcore/health says ok."""

    def __init__(self, script: str | Path, timeout: float = 90.0, env: dict | None = None,
                 extra: list[str] | None = None, log=None):
        """``extra``: more command-line options; ``log``: an open file for the server's output (default: none kept)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
               "--server.address", "127.0.0.1", "--server.port", str(self.port),
               "--browser.gatherUsageStats", "false", *(extra or [])]
        self.log = log if log is not None else open(os.devnull, "w")
        t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})})
        deadline = t0 + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode} before becoming healthy: {cmd}")
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                    if r.read().decode().strip() == "ok":
                        self.ready_s = time.monotonic() - t0  # from the start until the health check said ok
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"streamlit not healthy after {timeout:.0f}s: {cmd}")
            time.sleep(0.2)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss(self) -> int:
        return rss_bytes(self.proc.pid)

    def stop(self) -> None:
        """Stop only the process this object started (by its pid)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def launch_chromium(p):
    """Debian's Chromium through Playwright (never ``playwright install``)."""
    return p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
