"""The app on a server too busy for a download: every download's job is refused when its button is
clicked (``server_busy``), as server.budget refuses one that waited its turn in vain. The page is the
app's own (page.main); only the budget the downloads ask is replaced.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from server import download_jobs  # noqa: E402
from core.problems import InputError, Problem  # noqa: E402


class _Busy:
    """No lane ever frees: every job is refused before it starts."""

    def job(self, kind, seconds, *args, **kwargs):
        raise InputError([Problem("server_busy", {"kind": kind, "seconds": f"{seconds:.0f}", "wait_s": "0",
                                                  "lanes": 1})])


download_jobs.BUDGET = _Busy()

import page  # noqa: E402

page.main()
