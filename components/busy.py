"""A status line while the server works on something slow (loading an example, replaying a link or an import),
and a progress report that reaches the browser at a bounded rate.

``st.spinner`` appears only after a delay; this shows at once, in a slot the page reserves at the same
place on every run (an ``st.empty()``, so no element below it moves), and is gone when the work is done.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator

PROGRESS_EVERY_S = 0.2  # a progress bar moves at most this often


@contextmanager
def busy(slot, text: str) -> Iterator[None]:
    """Show ``text`` with a running status in ``slot`` (an ``st.empty()``) while the block runs."""
    try:
        with slot.status(text, state="running"):
            yield
    finally:
        slot.empty()


def throttled(report, every_s: float = PROGRESS_EVERY_S):
    """``report(done, n)`` at most once per ``every_s`` seconds: each bar update is a message to the
    browser, and 50 of them cost more than 50 chapter-sized steps."""
    last = [time.perf_counter()]

    def call(done: int, n: int) -> None:
        now = time.perf_counter()
        if now - last[0] >= every_s:
            last[0] = now
            report(done, n)
    return call
