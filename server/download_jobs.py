"""The downloads as jobs of the server's work budget: each file built on click, estimated, admitted,
stopped between chunks when its session ends or the server stops.

What a file costs is core's (core/exports.py); here it becomes a job of BUDGET, run by Streamlit
in a thread of its own when the button is clicked; a builder given BUDGET as its work (core/work.py)
checks the job between the chunks it writes.
"""

from __future__ import annotations

from typing import Callable

from core.exports import export_cost
from server.budget import BUDGET, Alive

WAIT_SECONDS = 120.0  # a download waits this long for a lane: its button can show only one fixed message (chrome.download_failed)


def deferred(kind: str, build: Callable[[], bytes], v: int, e: int, token_bytes: int, owner: str | None,
             alive: Alive | None) -> Callable[[], bytes]:
    """``build`` as one job of the budget, run when called (by Streamlit, in a thread of its own, when
    the button is clicked): ``owner`` and ``alive`` say whose it is and whether that session still wants it."""
    seconds, nbytes = export_cost(kind, v, e, token_bytes)

    def run() -> bytes:
        with BUDGET.job(kind, seconds, nbytes, wait_seconds=WAIT_SECONDS, owner=owner, alive=alive):
            return build()

    return run
