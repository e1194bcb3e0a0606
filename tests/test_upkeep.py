"""server/upkeep.py: one thread per process, the import-time objects out of the collector's sight, glibc's thresholds fixed."""

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from server import upkeep

ROOT = Path(__file__).resolve().parent.parent


def test_start_once_freezes_once_and_starts_one_thread():
    code = """
import gc, threading
from server import upkeep
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


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc's malloc")
def test_start_once_maps_large_blocks_on_their_own_even_after_a_larger_one_was_freed():
    """glibc raises its mmap threshold to the size of a mapped block that is freed; upkeep fixes it,
    so a 20 MiB block after a freed 30 MiB one is still mapped on its own (and unmapped when freed)."""
    code = """
import ctypes, sys
from server import upkeep
if sys.argv[1] == "upkeep":
    upkeep.start_once()
class Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                "fsmblks", "uordblks", "fordblks", "keepcost")]
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype, libc.malloc.argtypes, libc.free.argtypes = ctypes.c_void_p, [ctypes.c_size_t], [ctypes.c_void_p]
libc.mallinfo2.restype = Mallinfo2
libc.free(libc.malloc(30 << 20))
mapped = libc.mallinfo2().hblks
block = libc.malloc(upkeep.MMAP_THRESHOLD + (4 << 20))
print(libc.mallinfo2().hblks - mapped)
libc.free(block)
"""
    run = lambda how: subprocess.run([sys.executable, "-c", code, how], cwd=ROOT, capture_output=True, text=True,
                                     check=True).stdout.split()[-1]
    assert run("default") == "0"  # glibc alone: the block comes from a heap, whose free top it keeps
    assert run("upkeep") == "1"


def test_a_full_collection_runs_after_a_release_or_once_a_minute_not_every_round():
    assert upkeep.collect_now(released=1, since_full_s=0.0)  # a closed session's cycles are garbage now
    assert upkeep.collect_now(released=-1, since_full_s=0.0)  # the session manager could not be read
    assert not upkeep.collect_now(released=0, since_full_s=upkeep.PERIOD_S)  # a class clicking: no pause
    assert upkeep.collect_now(released=0, since_full_s=upkeep.FULL_EVERY_S)
    assert upkeep.FULL_EVERY_S >= 5 * upkeep.PERIOD_S


def test_python_s_own_full_collections_are_left_to_the_upkeep_thread():
    code = """
import gc
from server import upkeep
before = gc.get_threshold()
upkeep.start_once()
print(*before, *gc.get_threshold())
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    b0, b1, b2, a0, a1, a2 = map(int, out)
    assert (a0, a1) == (b0, b1)  # the young generations are collected as Python does
    assert a2 == upkeep.FULL_AFTER and a2 >= 50 * b2
