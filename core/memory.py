"""Whether this machine has the memory a new lab will hold.

A session's lab is bounded (core/limits.py), but sessions add up: thirty learners opening the
100k × 300 preset would ask one server for ~30 GB. Rather than let the kernel kill the server, and
every session on it, a lab that does not fit in what the machine has left is refused with a
message, and the learner keeps the lab they had.

    >>> lab_bytes(100_000, 300, "adam") // 2**20          # W, grad, Adam's 2 moments, 2 snapshots
    686
    >>> memory_problems(100_000, 300, "adam", available=1200 * 2**20)
    [Problem(code='server_memory', params={'need_mb': 859, 'free_mb': 1200, 'reserve_mb': 512})]
    >>> memory_problems(100_000, 300, "adam", available=8 * 2**30)
    []
"""

from __future__ import annotations

from types import MappingProxyType

from core import limits
from core.problems import Problem

RESERVE_BYTES = 512 * 2**20  # left for the server itself and the other sessions' next steps
CHECK_ABOVE_BYTES = 128 * 2**20  # smaller labs are never refused
SLACK = 1.25  # allocator, step temporaries, the picture's points: 0.92 GB measured for a first 100k × 300 lab, 0.75 GB for the next (bench_scale.py)
OPTIMIZER_STATE = MappingProxyType({"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2})  # W-sized buffers each optimizer keeps


def lab_bytes(v: int, e: int, optimizer: str, pooling: str = "masked_mean") -> int:
    """What a lab of V × E holds once it has stepped: W, its gradient, the optimizer's buffers and the
    kept snapshots (at least the first and the latest). Lab.step reads W-before-the-step from the
    latest snapshot; its W-sized fallback copy (a step that starts with none kept) is in the slack."""
    table = v * e
    snapshots = max(2 * table, limits.SNAPSHOT_BUDGET_FLOATS)  # the first and latest, or the thinned history's budget
    lstm = 8 * e * e + 8 * e if pooling in ("lstm", "packed_lstm") else 0  # nn.LSTM(E, E): 4 gates × (W_ih, W_hh), biases
    per_param = 2 + OPTIMIZER_STATE.get(optimizer, 2)  # the value, its gradient, the optimizer's buffers
    return 4 * (per_param * (table + lstm) + snapshots)  # float32


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
                    available: int | None = None) -> list[Problem]:
    """[Problem("server_memory", …)] when a V × E lab would not fit in this machine's free memory."""
    need = int(SLACK * lab_bytes(v, e, optimizer, pooling))
    if need <= CHECK_ABOVE_BYTES:
        return []
    free = available_bytes() if available is None else available
    if free is None or need + RESERVE_BYTES <= free:
        return []
    return [Problem("server_memory", {"need_mb": -(-need // 2**20), "free_mb": free // 2**20,
                                      "reserve_mb": RESERVE_BYTES // 2**20})]
