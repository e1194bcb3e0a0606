"""The server's work budget: CPU in flight and memory, shared by every session of this process.

One learner's heavy job (the axes' preview at E = 512 with an LSTM, a Run of hundreds of such
steps, the replay of an imported file, W as CSV at 100k × 300, loading the 100k example) must not
stall the class. So every such job is estimated before it runs (core/cost.py's cost model) and:

- takes one of a few *lanes* (one per core the class can spare, `default_lanes`), waiting a
  bounded time for one, or is refused with ``server_busy``; a job estimated under
  ``LIGHT_SECONDS`` (a chapter-sized Step or Run) runs at once, outside the lanes;
- sets its memory aside in the same admission that counts the labs (`server.admission.ADMISSIONS`),
  or is refused with ``job_memory``;
- gives way at each checkpoint while it holds a lane (pauses as long as it ran, ``YIELD_RATIO``:
  about half a core), so the class keeps the rest;
- is cancelled between steps or chunks (`checkpoint`) when its session ends (the page asked to
  stop, e.g. the tab closed), when it overruns its estimate (CPU time of its thread past
  ``OVERRUN_FACTOR`` × the estimate + ``OVERRUN_SLACK_S``), or when the server stops (SIGTERM):
  `Cancelled`, an `InputError` whose problem names why and how far it got.

    >>> with BUDGET.job("run", seconds=40.0) as job:     # a lane, or InputError("server_busy")
    ...     for i in range(n):
    ...         lab.step(); BUDGET.checkpoint()           # Cancelled when the session ended

The session a job belongs to, and the test that tells whether it still wants it, come from
``Budget.binder`` (server/hooks.py reads them off the script thread's Streamlit context); a job
built in another thread (a download built when its button is clicked) names them itself. A lab is
given BUDGET as its work (core/work.py: `Budget.admit`, `Budget.job`, `Budget.checkpoint`). Like
ADMISSIONS this holds numbers, events and weak references, never a learner's data. Nothing here
imports streamlit.
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager, nullcontext
from typing import Callable, Iterator

from core.problems import InputError, Problem
from core.work import Cancelled
from server.admission import ADMISSIONS, Admissions, Ticket
from server.turn import TURN, hand_over_quickly

LIGHT_SECONDS = 0.25  # jobs estimated below this take no lane (a Step, a Run of the chapter)
WAIT_SECONDS = 5.0  # how long a job waits for a lane before it is refused
OVERRUN_FACTOR = 3.0  # a job is stopped past this many times its estimated CPU seconds …
OVERRUN_SLACK_S = 2.0  # … plus this (the cost model is read off a quiet machine)
POLL_SECONDS = 0.05  # how often a waiting job looks whether its session is still there
YIELD_RATIO = 1.0  # a job holding a lane pauses this long, per second it ran, at each checkpoint: about
#   half a core, so the class's Steps keep the rest (a whole core for two 100k CSV exports slowed
#   the class's Steps: bench/RESULTS.md, bench_limits)
MAX_PAUSE_S = 0.5
PAUSE_AFTER_S = 0.05  # … once it has run this long: a pause after every small step costs more CPU than the
#   steps (the caches and torch's threads go cold while it sleeps)

Alive = Callable[[], bool]  # whether the session a job works for still wants it


def default_lanes() -> int:
    """One lane per core the class can spare: every core this process may use but one, at least one."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 2
    return max(1, cores - 1)


class Job:
    """One admitted job: its estimate, whose it is, and whether it must stop."""

    __slots__ = ("kind", "seconds", "nbytes", "owner", "alive", "reason", "lane", "_cpu0", "_limit",
                 "_ticket", "_thread", "_next_poll", "_since")

    def __init__(self, kind: str, seconds: float, nbytes: int, owner: str | None, alive: Alive | None):
        self.kind, self.seconds, self.nbytes, self.owner, self.alive = kind, seconds, nbytes, owner, alive
        self.reason: str | None = None  # set once: why it must stop
        self.lane = False
        self._cpu0 = time.thread_time()
        self._limit = OVERRUN_FACTOR * seconds + OVERRUN_SLACK_S
        self._ticket = None
        self._thread = threading.get_ident()
        self._next_poll = 0.0
        self._since = time.monotonic()  # when it last paused

    def pause(self) -> None:
        """Give way: once it has run PAUSE_AFTER_S since its last pause, sleep YIELD_RATIO × that time
        (a job holding a lane)."""
        ran = time.monotonic() - self._since
        if ran >= PAUSE_AFTER_S:
            time.sleep(min(MAX_PAUSE_S, YIELD_RATIO * ran))
            self._since = time.monotonic()

    def cancel(self, reason: str = "job_cancelled") -> None:
        """Ask the job to stop at its next checkpoint (any thread)."""
        if self.reason is None:
            self.reason = reason

    def used_seconds(self) -> float:
        """CPU seconds its thread spent since the job started (read in that thread)."""
        return time.thread_time() - self._cpu0

    def check(self) -> None:
        """Raise `Cancelled` if the job must stop: asked to, its session gone, or over its estimate."""
        if self.reason is None and self.alive is not None:
            now = time.monotonic()
            if now >= self._next_poll:
                self._next_poll = now + POLL_SECONDS
                if not _safe(self.alive):
                    self.reason = "job_cancelled"
        if self.reason is None and threading.get_ident() == self._thread and self.used_seconds() > self._limit:
            self.reason = "job_overrun"
        if self.reason is not None:
            raise Cancelled([Problem(self.reason, {"kind": self.kind, "seconds": seconds_text(self.seconds)})])


def seconds_text(seconds: float) -> str:
    """An estimate as the messages show it: one decimal below ten seconds, none above."""
    return f"{seconds:.1f}" if seconds < 10 else f"{seconds:.0f}"


def _safe(alive: Alive) -> bool:
    try:
        return bool(alive())
    except Exception:  # noqa: BLE001 - a test that cannot answer keeps the job
        return True


class Budget:
    """Lanes of CPU and the memory admission, shared by every session of the process."""

    def __init__(self, lanes: int | None = None, admissions: Admissions = ADMISSIONS,
                 wait_seconds: float = WAIT_SECONDS):
        self.lanes = lanes or default_lanes()
        self.wait_seconds = wait_seconds
        self._admissions = admissions
        self._cond = threading.Condition()
        self._jobs: set[Job] = set()  # every heavy job admitted and not finished
        self._busy = 0  # lanes taken
        self._queue: list[Job] = []  # jobs waiting for a lane, first come first
        self._local = threading.local()  # .stack: the jobs this thread runs, outermost first
        self.binder: Callable[[], tuple[str | None, Alive | None]] | None = None
        self.stopping = False

    # ---- whose work this thread does --------------------------------------------------------
    def bound(self) -> tuple[str | None, Alive | None]:
        """The session the calling thread works for and its still-wanted test, from ``binder`` (set by
        the server's hooks, server/hooks.py); (None, None) without one."""
        if self.binder is None:
            return None, None
        try:
            return self.binder()
        except Exception:  # noqa: BLE001 - no session to name: the job is nobody's
            return None, None

    def current(self) -> Job | None:
        """This thread's innermost running job."""
        stack = getattr(self._local, "stack", None)
        return stack[-1] if stack else None

    # ---- admission ------------------------------------------------------------------------
    def admit(self, recipe) -> Ticket:
        """A new lab's memory ticket (`Admissions.admit`): what a lab given this budget asks first
        (core/work.py)."""
        return self._admissions.admit(recipe)

    @contextmanager
    def job(self, kind: str, seconds: float, nbytes: int = 0, wait_seconds: float | None = None,
            owner: str | None = None, alive: Alive | None = None) -> Iterator[Job]:
        """Run a job of ``seconds`` estimated CPU seconds holding ``nbytes`` beyond what the labs hold.

        Raises `InputError` before it starts: ``server_busy`` (no lane within ``wait_seconds``),
        ``job_memory`` (``nbytes`` do not fit), ``server_stopping``. A job inside another job of
        the same thread shares its lane."""
        outer = self.current()
        heavy = float(seconds) >= LIGHT_SECONDS and outer is None
        if heavy and owner is None and alive is None:
            owner, alive = self.bound()
        job = Job(kind, float(seconds), int(nbytes), owner, alive)
        if self.stopping:
            raise Cancelled([Problem("server_stopping", {"kind": kind})])
        if nbytes > 0:
            job._ticket = self._admissions.reserve(int(nbytes))  # InputError("job_memory")
        # a laned job waits and runs without the interpreter's turn (server/turn.py), taken again once the lane is free
        with TURN.outside() if heavy else nullcontext():
            if heavy:
                self._take_lane(job, self.wait_seconds if wait_seconds is None else wait_seconds)
            stack = self._local.__dict__.setdefault("stack", [])
            stack.append(job)
            try:
                yield job
            finally:
                stack.pop()
                job._ticket = None
                if job.lane:
                    with self._cond:
                        self._busy -= 1
                        if self._busy == 0:
                            hand_over_quickly(False)
                        self._jobs.discard(job)
                        self._cond.notify_all()

    def _take_lane(self, job: Job, wait_seconds: float) -> None:
        """Wait for a lane in turn: jobs get lanes in the order they asked (a download waiting two
        minutes must not lose every free lane to Runs clicked again and again meanwhile)."""
        deadline = time.monotonic() + max(0.0, wait_seconds)
        with self._cond:
            self._queue.append(job)
            try:
                while not (self._busy < self.lanes and self._queue.index(job) < self.lanes - self._busy):
                    left = deadline - time.monotonic()
                    if left <= 0 or self.stopping or (job.alive is not None and not _safe(job.alive)):
                        job._ticket = None
                        code = "server_stopping" if self.stopping else "server_busy"
                        raise InputError([Problem(code, {"kind": job.kind, "seconds": seconds_text(job.seconds),
                                                         "wait_s": f"{wait_seconds:.0f}", "lanes": self.lanes})])
                    self._cond.wait(min(left, POLL_SECONDS * 4))
            finally:
                self._queue.remove(job)
                self._cond.notify_all()  # the next in line may be let in, or a refused one gone
            self._busy += 1
            if self._busy == 1:
                hand_over_quickly(True)
            job.lane = True
            self._jobs.add(job)

    # ---- cancellation ---------------------------------------------------------------------
    def cancel_owner(self, owner: str) -> int:
        """Cancel every running job of one session; returns how many."""
        with self._cond:
            jobs = [j for j in self._jobs if j.owner == owner]
        for j in jobs:
            j.cancel("job_cancelled")
        return len(jobs)

    def stop(self, wait_seconds: float = 5.0) -> bool:
        """The server is stopping: refuse new jobs, cancel every running one, and wait until they have
        ended (at their next checkpoint). True when none is left."""
        deadline = time.monotonic() + wait_seconds
        with self._cond:
            self.stopping = True
            for j in self._jobs:
                j.cancel("server_stopping")
            self._cond.notify_all()
            while self._jobs and time.monotonic() < deadline:
                self._cond.wait(max(0.0, min(POLL_SECONDS, deadline - time.monotonic())))
            return not self._jobs

    def checkpoint(self) -> None:
        """Between two steps or chunks: raise `Cancelled` if a job this thread runs must stop (an outer
        job's session may have ended while an inner one, e.g. a divergence's replay, runs)."""
        stack = getattr(self._local, "stack", ())
        for job in stack:
            job.check()
        if stack and stack[0].lane and YIELD_RATIO > 0:
            stack[0].pause()

    def in_flight(self) -> dict:
        """What runs now: lanes taken of how many, and each job's kind, estimate and bytes."""
        with self._cond:
            return {"lanes": self.lanes, "busy": self._busy,
                    "jobs": [(j.kind, j.seconds, j.nbytes, j.owner) for j in self._jobs]}


BUDGET = Budget()
