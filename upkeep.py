"""The server's upkeep: memory a closed session held goes back to the machine within a minute.

A 100k × 300 lab holds about a gigabyte. When its tab closes, Streamlit keeps the session for
``server.disconnectedSessionTTL`` (.streamlit/config.toml), then drops it; its tensors sit in
reference cycles that only a full collection frees (the app turns off Streamlit's collection after
every run: it cost 150–300 ms a click), and glibc keeps freed pages unless asked to give them back.
One daemon thread per server process collects and trims every PERIOD_S seconds. It holds no
session's data. bench/bench_rss.py measures the effect.
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
    """Start the upkeep thread unless this process already runs it (every script run calls this)."""
    if not any(t.name == THREAD_NAME for t in threading.enumerate()):
        threading.Thread(target=_loop, name=THREAD_NAME, daemon=True).start()
