"""Shared helpers for the benchmark scripts: statistics, markdown tables, machine notes, RSS; servers,
Chromium and labs come from the kit the tests use (support/).

Benchmarks, not timed tests: nothing here asserts a time. Every script prints medians with a
spread (p10/p90 and the interquartile range) and the number of samples, and puts the things it
compares side by side in one run, interleaved, so that a noisy machine slows both sides alike.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from support.browser import CHROMIUM, LAUNCH_ARGS as CHROMIUM_ARGS, launch, launch_args  # noqa: E402, F401  (bench_classroom)
from support.labs import preset_lab as build_lab  # noqa: E402, F401  (a preset's lab with some knobs changed)
from support.server import Server as KitServer, free_port  # noqa: E402, F401


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


def cpu_seconds(pid: int, main_thread: bool = False) -> float:
    """User + system CPU seconds of a process (its threads' so far, exited ones included), or of its
    main thread alone (``main_thread``: a server's event loop), from /proc; NaN when unreadable."""
    stat = f"/proc/{pid}/task/{pid}/stat" if main_thread else f"/proc/{pid}/stat"
    try:
        fields = Path(stat).read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


# ---- the kit the tests use too (support/) ---------------------------------------------------
class Server(KitServer):
    """support.server.Server, with the server's resident memory."""

    def rss(self) -> int:
        return rss_bytes(self.proc.pid)


launch_chromium = launch  # Debian's Chromium through Playwright (never ``playwright install``)
