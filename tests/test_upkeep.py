"""upkeep.py: one thread per process, and the import-time objects out of the collector's sight."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_start_once_freezes_once_and_starts_one_thread():
    code = """
import gc, threading, upkeep
assert gc.get_freeze_count() == 0
upkeep.start_once()
frozen = gc.get_freeze_count()
junk = [[i] for i in range(1000)]  # objects made after the first call stay collectable
upkeep.start_once()
threads = [t for t in threading.enumerate() if t.name == upkeep.THREAD_NAME]
print(frozen, gc.get_freeze_count(), len(threads), threads[0].daemon)
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    frozen, frozen_after, threads, daemon = int(out[0]), int(out[1]), int(out[2]), out[3]
    assert frozen > 1000 and frozen_after == frozen and threads == 1 and daemon == "True"
