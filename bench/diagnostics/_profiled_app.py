"""page.main() (what app.py runs) under cProfile, for profile_server.py: each script run's profile is added to one file.

AppTest runs the script in its own thread, which a profiler started in the test's thread never
sees; this wrapper profiles inside the script run. ``BENCH_PROFILE_OUT`` names the stats file.
"""

import cProfile
import os
import pstats
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import page  # noqa: E402

_out = os.environ.get("BENCH_PROFILE_OUT")
_prof = cProfile.Profile()
_prof.enable()
try:
    page.main()
finally:
    _prof.disable()
    if _out:
        stats = pstats.Stats(_prof)
        if os.path.exists(_out):
            stats.add(_out)
        stats.dump_stats(_out)
