"""A status line while the server works on something slow (loading an example, replaying a link or an import).

``st.spinner`` appears only after a delay; this shows at once, in a slot the page reserves at the same
place on every run (an ``st.empty()``, so no element below it moves), and is gone when the work is done.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator


@contextmanager
def busy(slot, text: str) -> Iterator[None]:
    """Show ``text`` with a running status in ``slot`` (an ``st.empty()``) while the block runs."""
    try:
        with slot.status(text, state="running"):
            yield
    finally:
        slot.empty()
