"""The server's upkeep: memory a closed session held goes back to the machine within a minute.

A 100k × 300 lab holds about a gigabyte. When its tab closes, Streamlit keeps the session for
``server.disconnectedSessionTTL`` (.streamlit/config.toml), then drops it; its tensors sit in
reference cycles that only a full collection frees (the app turns off Streamlit's collection after
every run: it cost 150–300 ms a click), and glibc keeps freed pages unless asked to give them back.
One daemon thread per server process collects and trims every PERIOD_S seconds. It holds no
session's data. bench/bench_rss.py measures the effect.

Before the thread starts, the objects alive then (the imported modules: torch, numpy, Streamlit,
~450,000 objects the collector tracks) are moved out of the collector's sight (``gc.freeze``).
They live as long as the process, and without this every full collection walked them all: a
250–300 ms pause of every session's script, which put the slowest clicks of a class at a quarter
of a second more (bench/bench_load.py). Frozen objects are still freed by reference counting.
"""

from __future__ import annotations

import ctypes
import gc
import threading
import time

PERIOD_S = 10.0
THREAD_NAME = "embedding-explorer-upkeep"


def _trim():
    """glibc's malloc_trim, or None where the C library has none (macOS, Windows, musl)."""
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def _loop() -> None:
    trim = _trim()
    while True:
        time.sleep(PERIOD_S)
        gc.collect()
        if trim is not None:
            trim(0)


def start_once() -> None:
    """Start the upkeep thread unless this process already runs it (every script run calls this).
    The first call also freezes what the process holds then: page.py calls this first, before any
    session builds a lab, so nothing of a session that could become garbage is frozen."""
    if not any(t.name == THREAD_NAME for t in threading.enumerate()):
        gc.collect()
        gc.freeze()
        threading.Thread(target=_loop, name=THREAD_NAME, daemon=True).start()
