"""The server's upkeep: memory a closed session held goes back to the machine within a minute.

A 100k × 300 lab holds about a gigabyte. When its tab closes, Streamlit keeps the session for
``server.disconnectedSessionTTL`` (.streamlit/config.toml), then drops it; its tensors sit in
reference cycles that only a full collection frees (the app turns off Streamlit's collection after
every run: it cost every click a pause, bench/RESULTS.md), and glibc keeps freed pages unless asked to give them back.
One daemon thread per server process, every PERIOD_S seconds, releases what closed sessions held,
collects (fully: only after it released a session, else once a minute) and trims. It holds no
session's data. bench/bench_rss.py measures the effect.

A dropped session can outlive its drop: Streamlit's message flush loop (``Runtime._loop_coroutine``)
keeps the last session it flushed in a loop variable until another session sends something, and
that session's widget callbacks and fragments hold its explorer. On a server where nobody else
does anything, a closed 100k tab then kept its gigabyte indefinitely. So the thread also finds the
sessions that can never run again (closed, or disconnected for longer than
``disconnectedSessionTTL``: Streamlit no longer resumes it, whether or not it has dropped it from
its store yet) and gives back what they hold (`release_state`): each lab's tensors are emptied in place
(`core.training.Lab.release`), so the memory is freed whoever still refers to the lab, and the
session's state, widget callbacks and fragments are cleared. A connected session, a session that
can still reconnect and a session whose script is still running are never touched.
This reads Streamlit's private session manager, through server/streamlit_private.py: where it is not as
expected the thread releases nothing and goes on collecting and trimming.

The first call also fixes two of glibc's malloc thresholds (``mallopt``): a block of MMAP_THRESHOLD
or more is mapped on its own and unmapped when freed, and a heap whose free top exceeds
TRIM_THRESHOLD gives it back at ``free``. By default glibc raises both after a large mapped block
is freed, and a script thread's heap then keeps free memory at its top that ``malloc_trim(0)``
does not give back (it trims only the main heap's top). Lower thresholds give back more but cost
a Step that allocates blocks above them fresh pages, so a 100k Step takes more page faults; a
chapter-sized click allocates no block that large (``bench/bench_rss.py --faults``; what it
measured is in bench/RESULTS.md).

Before the thread starts, the objects alive then (the imported modules: torch, numpy, Streamlit,
~450,000 objects the collector tracks) are moved out of the collector's sight (``gc.freeze``).
They live as long as the process, and without this every full collection walked them all: a
pause of every session's script, which the slowest clicks of a class paid for (bench/bench_load.py;
the figures in bench/RESULTS.md). Frozen objects are still freed by reference counting.
"""

from __future__ import annotations

import ctypes
import gc
import threading
import time
import weakref

from core.explorer import Explorer
from server import streamlit_private as private
from server.budget import BUDGET

PERIOD_S = 10.0
FULL_EVERY_S = 60.0  # a full collection at least this often, when no session was released before it
# Python starts a full collection by itself after this many collections of its middle generation
# (its default: 10). Under a class every session's objects soon live in the oldest generation, and
# such a collection, in whichever script thread allocated last, walks them all while holding the
# GIL: every click in flight waits. So Python's own full collections are made rare, and this
# thread runs them when they can free something (`collect_now`).
FULL_AFTER = 1000
THREAD_NAME = "embedding-explorer-upkeep"
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (glibc's malloc.h)
MMAP_THRESHOLD = 16 << 20
TRIM_THRESHOLD = 32 << 20


def _glibc(name: str):
    """glibc's function ``name``, or None where the C library has none (macOS, Windows, musl)."""
    try:
        return getattr(ctypes.CDLL("libc.so.6"), name)
    except (OSError, AttributeError):
        return None


def _fix_malloc_thresholds() -> None:
    mallopt = _glibc("mallopt")
    if mallopt is not None:
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)


def release_state(state) -> int:
    """Give back what a session's state holds, for a session that will never run again: every
    explorer's lab releases its tensors, then the state, its widget values and its widget callbacks
    (whose arguments hold the explorer) are cleared. Returns the number of labs released.

    A state cleared this way that did run again would start afresh: session.explorer builds a new
    explorer when it finds none."""
    labs = 0
    for key in list(state):
        try:
            value = state[key]
        except (KeyError, TypeError, ValueError):  # a widget value Streamlit cannot read back: not an explorer
            continue
        if isinstance(value, Explorer) and value.lab.model is not None:
            value.lab.release()
            labs += 1
    state.clear()
    private.clear_widget_callbacks(state)
    return labs


def _gone_sessions(mgr, watched: dict) -> list:
    """The sessions that will never run again, among those seen before (``watched``: session id →
    weak reference, kept by the caller between calls).

    Every session seen connected or waiting for its tab is watched; once it is neither connected
    nor resumable from the store (its TTL passed, or Streamlit dropped or closed it), nothing can
    run it again. Read under the manager's storage lock, which a reconnection holds while it moves
    a session from the store to the connected ones, so no reconnecting session looks gone. Private
    API (Streamlit 1.67): any surprise raises, and the caller then releases nothing.
    """
    with private.storage_lock(mgr):
        alive = {s.id: s for s in private.connected_sessions(mgr) + private.stored_sessions(mgr)}
    for sid, session in alive.items():
        watched.setdefault(sid, weakref.ref(session))
    gone = []
    for sid, ref in list(watched.items()):
        session = ref()
        if session is None:  # collected: nothing to give back
            del watched[sid]
        elif sid not in alive and not private.script_running(session):  # a script still running finishes first
            gone.append(session)
            del watched[sid]
    return gone


def _release_gone(mgr, watched: dict) -> int:
    """Release the gone sessions; returns how many there were (-1: Streamlit's internals were not as expected)."""
    try:
        gone = _gone_sessions(mgr, watched)
        for session in gone:
            BUDGET.cancel_owner(session.id)  # a download it asked for, still being built, stops too
            release_state(session.session_state)
            private.clear_fragments(session)  # the fragments' closures hold the explorer
        return len(gone)
    except Exception:  # noqa: BLE001 - Streamlit's internals not as expected: collect and trim only
        watched.clear()
        return -1


def collect_now(released: int, since_full_s: float) -> bool:
    """Whether this round runs a full collection: after sessions were released (their cycles are
    garbage now), when the session manager could not be read, and at least every FULL_EVERY_S.

    A full collection walks every object the live sessions hold, and holds the GIL meanwhile: with
    a class connected, no one's click runs until it ends (bench/RESULTS.md, "Where a click's CPU
    goes"). Garbage that no release made is Python's own collector's to find, as it is anyway."""
    return released != 0 or since_full_s >= FULL_EVERY_S


def _loop() -> None:
    trim = _glibc("malloc_trim")
    watched: dict = {}  # session id → weak reference: every session seen, until it is gone
    last_full = time.monotonic()
    while True:
        time.sleep(PERIOD_S)
        mgr = private.session_manager()
        released = _release_gone(mgr, watched) if mgr is not None else -1
        if collect_now(released, time.monotonic() - last_full):
            gc.collect()
            last_full = time.monotonic()
        if trim is not None:
            trim(0)


def start_once() -> None:
    """Start the upkeep thread unless this process already runs it (every script run calls this).
    The first call also freezes what the process holds then: page.py calls this first, before any
    session builds a lab, so nothing of a session that could become garbage is frozen. It fixes
    glibc's malloc thresholds too, and leaves the process's full collections to the thread (FULL_AFTER)."""
    if not any(t.name == THREAD_NAME for t in threading.enumerate()):
        _fix_malloc_thresholds()
        gc.collect()
        gc.freeze()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_AFTER)  # full collections are this thread's (collect_now)
        threading.Thread(target=_loop, name=THREAD_NAME, daemon=True).start()
