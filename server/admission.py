"""Whether this machine has the memory a new lab, or a download being built, will hold.

A session's lab is bounded (core/limits.py), but sessions add up: thirty learners opening the
100k × 300 preset would ask one server for tens of gigabytes. Rather than let the kernel kill the server, and
every session on it, a lab that does not fit in what the machine has left is refused with a
message, and the learner keeps the lab they had. The bytes come from core's cost model
(core/cost.py); the lab asks for its ticket through the work it was given (core/work.py).

    >>> memory_problems(100_000, 300, "adam", available=1200 * 2**20)
    [Problem(code='server_memory', params={'need_mb': 859, 'free_mb': 1200, 'reserve_mb': 512})]
    >>> memory_problems(100_000, 300, "adam", available=8 * 2**30)
    []
"""

from __future__ import annotations

import threading
import weakref
from typing import Callable

from core.cost import batch_shape, first_steps_bytes, lab_bytes
from core.problems import Problem, require

RESERVE_BYTES = 512 * 2**20  # left for the server itself and the other sessions' next steps
CHECK_ABOVE_BYTES = 128 * 2**20  # smaller labs are never refused
SLACK = 1.25  # allocator, step temporaries, the picture's points (bench_scale.py measures a 100k × 300 lab)


CGROUP_FILES = (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),  # cgroup v2
                 ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"))  # v1


def available_bytes() -> int | None:
    """What this process may still allocate: MemAvailable (/proc/meminfo), or less where a container's
    cgroup limit is nearer (a container sees the host's MemAvailable, and its own limit kills first).
    None where neither can be read (then nothing is refused)."""
    free = [x for x in (_meminfo_available(), *(_cgroup_room(limit, usage) for limit, usage in CGROUP_FILES))
            if x is not None]
    return min(free) if free else None


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_room(limit_path: str, usage_path: str) -> int | None:
    """limit − usage of a cgroup, or None when there is no limit ("max", or v1's near-2**63 default)."""
    try:
        with open(limit_path, encoding="ascii") as f:
            limit = f.read().strip()
        with open(usage_path, encoding="ascii") as f:
            usage = int(f.read().strip())
        if limit == "max" or int(limit) >= 2**60:
            return None
        return max(0, int(limit) - usage)
    except (OSError, ValueError):
        return None


def memory_problems(v: int, e: int, optimizer: str, pooling: str = "masked_mean",
                    available: int | None = None, k: int = 0, t: int = 0, promised: int = 0) -> list[Problem]:
    """[Problem("server_memory", …)] when a V × E lab (stepping over K × T) would not fit in this
    machine's free memory once the memory ``promised`` to labs already admitted is set aside."""
    need = int(SLACK * lab_bytes(v, e, optimizer, pooling, k, t))
    if need <= CHECK_ABOVE_BYTES:
        return []
    free = available_bytes() if available is None else available
    if free is None or need + promised + RESERVE_BYTES <= free:
        return []
    return [Problem("server_memory", {"need_mb": -(-need // 2**20), "free_mb": free // 2**20,
                                      "reserve_mb": (RESERVE_BYTES + promised) // 2**20})]


# ---- admission: what admitted labs will still allocate --------------------------------------
class Ticket:
    """One admitted lab's promise: ``need`` bytes (`first_steps_bytes`); ``held()`` is what it holds now."""

    __slots__ = ("need", "held", "__weakref__")

    def __init__(self, need: int):
        self.need = need
        self.held: Callable[[], int] = lambda: 0

    def hold(self, held: Callable[[], int]) -> None:
        """Count what the lab holds through ``held`` (a bound method, kept weakly: the lab stays collectable)."""
        ref = weakref.WeakMethod(held)
        self.held = lambda: (ref() or (lambda: self.need))()


class Admissions:
    """The machine's memory is shared by every session in this process, and a lab allocates its
    gradient, optimizer state and activations only at its first step: ten sessions loading the
    100k example were all admitted against the memory free, then their first Steps went gigabytes past it.
    So each admission also sets aside what the labs admitted before it have been promised but do
    not hold yet. One object per server process: it holds numbers and weak references (a
    dropped lab's promise goes with it), never a user's data.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tickets: weakref.WeakSet[Ticket] = weakref.WeakSet()

    def promised(self) -> int:
        """Bytes the live admitted labs may still allocate."""
        total = 0
        for t in list(self._tickets):
            try:
                total += max(0, t.need - t.held())
            except (RuntimeError, AttributeError):  # a lab being rebuilt (back_to) this instant: count its whole promise
                total += t.need
        return total

    def admit(self, recipe) -> Ticket:
        """A ticket for a lab of this `core.training.Recipe`, or `InputError` (``server_memory``)."""
        cfg, k, t = recipe.config, *batch_shape(recipe)
        with self._lock:  # two sessions admitted at once must not both count the same free memory
            require(memory_problems(recipe.vocab.size, cfg.embedding_dim, cfg.optimizer, cfg.pooling,
                                    k=k, t=t, promised=self.promised()))
            ticket = Ticket(int(SLACK * first_steps_bytes(recipe.vocab.size, cfg.embedding_dim, cfg.optimizer,
                                                          cfg.pooling, k, t)))
            self._tickets.add(ticket)
            return ticket

    def reserve(self, need: int, available: int | None = None, code: str = "job_memory") -> Ticket:
        """A ticket for ``need`` bytes of a job that is not a lab (an export being built), counted like
        a lab's promise while the caller holds it, or `InputError` (``code``: ``job_memory``)."""
        with self._lock:
            free = available_bytes() if available is None else available
            promised = self.promised()
            if need > CHECK_ABOVE_BYTES and free is not None and need + promised + RESERVE_BYTES > free:
                require([Problem(code, {"need_mb": -(-need // 2**20), "free_mb": free // 2**20,
                                        "reserve_mb": (RESERVE_BYTES + promised) // 2**20})])
            ticket = Ticket(need)
            self._tickets.add(ticket)
            return ticket


ADMISSIONS = Admissions()
