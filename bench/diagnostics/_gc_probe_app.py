"""page.main() with every garbage collection of the server logged (generation, ms, objects freed), for
spy_load.py's finding that upkeep's full collections held the GIL under a class. ``BENCH_GC_LOG``
names the log file (one line per collection). Never a mode of the app."""

import gc
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

if not any(getattr(cb, "_bench_gc_probe", False) for cb in gc.callbacks):
    _started: dict = {}

    def _probe(phase, info):
        if phase == "start":
            _started["t"] = time.perf_counter()
            if info["generation"] == 2:  # who asked: the innermost frames of the thread that collects
                import traceback

                _started["who"] = " < ".join(f"{f.name}@{Path(f.filename).name}:{f.lineno}"
                                             for f in reversed(traceback.extract_stack()[-7:-1]))
            return
        ms = (time.perf_counter() - _started.get("t", time.perf_counter())) * 1e3
        with open(os.environ.get("BENCH_GC_LOG", "/dev/null"), "a") as f:
            f.write(f"{time.time():.3f} {info['generation']} {ms:.2f} {info['collected']} {threading.current_thread().name}"
                    f"{' ' + _started.pop('who', '') if info['generation'] == 2 else ''}\n")

    _probe._bench_gc_probe = True
    gc.callbacks.append(_probe)

import page  # noqa: E402

page.main()
