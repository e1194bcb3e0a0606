"""Whether this machine has the memory a new lab will hold.

A session's lab is bounded (core/limits.py), but sessions add up: thirty learners opening the
100k × 300 preset would ask one server for tens of gigabytes. Rather than let the kernel kill the server, and
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

import threading
import weakref
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable

from core import limits
from core.problems import Problem, require

RESERVE_BYTES = 512 * 2**20  # left for the server itself and the other sessions' next steps
CHECK_ABOVE_BYTES = 128 * 2**20  # smaller labs are never refused
SLACK = 1.25  # allocator, step temporaries, the picture's points (bench_scale.py measures a 100k × 300 lab)
OPTIMIZER_STATE = MappingProxyType({"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2})  # W-sized buffers each optimizer keeps


LSTM_POOLINGS = ("lstm", "packed_lstm")
LOAD_ROW_S = 30e-6  # building a lab from an example, per vocabulary row (validation, the editor's table, W's init):
#   measured on the 100,000-row example (bench/RESULTS.md)
# Per-step CPU time at one torch thread (bench/bench_cost_model.py prints each shape next to this
# model; constants read off its rows on the 2-core development machine, 2026-11-30):
STEP_FIXED_S = 0.4e-3  # Python, autograd and bookkeeping of any step (a chapter-sized step)
PARAM_S = 4e-9  # per trained float: the dense V×E gradient (fresh memory every step) and the update
ACTIVATION_S = 8e-9  # per element of the (K, T, E) vectors, through a mean and back
LSTM_MAC_S = 0.03e-9  # per multiply-add of the LSTM's gate matmuls (3 × 8·E² per position, forward and
#   backward)
LSTM_FIXED_S = 8e-3  # an LSTM's own per-step overhead
LSTM_FIXED_BYTES = 40 * 2**20  # and its workspace (one word through E=512, less its gradient and Adam state)
# Bytes a step holds per element of the batch's (K, T, E) vectors at its peak, rounded up from the
# peak RSS growth measured: a mean keeps the vectors and their gradient (8.1 B masked, 4.1 B naive);
# torch's CPU LSTM keeps every position's gates, cell and hidden states and their gradients (93–95 B).
ACTIVATION_BYTES = MappingProxyType({"masked_mean": 12, "mean": 8, "lstm": 96, "packed_lstm": 104})


@dataclass(frozen=True)
class StepCost:
    """What one training step of a lab costs: CPU seconds, and bytes beyond the lab at rest."""

    seconds: float
    params: int  # every trained float: W, the LSTM's, the head's
    activation_bytes: int  # the step's activations at their peak (freed when it ends)
    state_bytes: int  # gradient and optimizer state: kept from the first step on

    @property
    def step_bytes(self) -> int:
        return self.activation_bytes + self.state_bytes


def step_cost(v: int, e: int, k: int, t: int, pooling: str = "masked_mean", optimizer: str = "adam",
              n_classes: int = 2) -> StepCost:
    """The cost of one step on K sentences padded to T over a V × E table.

    >>> c = step_cost(100_000, 300, 256, 50, "masked_mean", "adam")    # the generated large preset
    >>> round(c.seconds, 2), c.state_bytes // 2**20, c.activation_bytes // 2**20
    (0.15, 343, 43)
    """
    lstm = 8 * e * e + 8 * e if pooling in LSTM_POOLINGS else 0  # nn.LSTM(E, E): 4 gates × (W_ih, W_hh), biases
    params = v * e + lstm + n_classes * (e + 1)
    cells = k * t * e  # elements of the (K, T, E) vectors
    macs = 3 * 8 * e * k * t * e if pooling in LSTM_POOLINGS else 0
    seconds = (STEP_FIXED_S + PARAM_S * params + ACTIVATION_S * cells
               + (LSTM_FIXED_S + LSTM_MAC_S * macs if pooling in LSTM_POOLINGS else 0.0))
    state = 4 * params * (1 + OPTIMIZER_STATE.get(optimizer, 2))
    activations = cells * ACTIVATION_BYTES.get(pooling, 12) + (LSTM_FIXED_BYTES if pooling in LSTM_POOLINGS else 0)
    return StepCost(seconds, params, activations, state)


def load_seconds(rows: int) -> float:
    """CPU seconds to build a lab from an example of ``rows`` vocabulary rows."""
    return LOAD_ROW_S * rows


def recipe_step_cost(recipe) -> StepCost:
    """`step_cost` of a `core.training.Recipe`: K sentences a step (``batch_size``), T as padded."""
    cfg = recipe.config
    k, t = _batch_shape(recipe)
    return step_cost(recipe.vocab.size, cfg.embedding_dim, k, t, cfg.pooling, cfg.optimizer, max(2, len(recipe.classes)))


SLOW_STEP_S = 0.3  # a Step estimated slower than this shows a status while it runs
SLOW_TABLE_FLOATS = 1_000_000  # a table this large also costs the picture and the stage's data


def slow_step(recipe) -> bool:
    """Whether a Step of ``recipe`` may take SLOW_STEP_S or more (its estimate, or a large table)."""
    return (recipe.vocab.size * recipe.config.embedding_dim >= SLOW_TABLE_FLOATS
            or recipe_step_cost(recipe).seconds >= SLOW_STEP_S)


def lab_bytes(v: int, e: int, optimizer: str, pooling: str = "masked_mean", k: int = 0, t: int = 0) -> int:
    """What a lab of V × E holds once it has stepped: W and every other parameter, their gradient and
    the optimizer's buffers, the kept snapshots (at least the first and the latest), and the
    activations of a step over K sentences of T tokens. Lab.step reads W-before-the-step from the
    latest snapshot; its W-sized fallback copy (a step that starts with none kept) is in the slack."""
    cost = step_cost(v, e, k, t, pooling, optimizer)
    snapshots = max(2 * v * e, limits.SNAPSHOT_BUDGET_FLOATS)  # the first and latest, or the thinned history's budget
    return 4 * (cost.params + snapshots) + cost.step_bytes  # float32


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


def first_steps_bytes(v: int, e: int, optimizer: str, pooling: str = "masked_mean", k: int = 0, t: int = 0) -> int:
    """What a lab holds once it has taken its first steps: every parameter, its gradient and optimizer
    state, two snapshots of W, and a step's activations. The thinned history's further snapshots
    (up to the session's budget, `lab_bytes`) grow a step at a time, in view of the free memory."""
    cost = step_cost(v, e, k, t, pooling, optimizer)
    return 4 * (cost.params + 2 * v * e) + cost.step_bytes


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
    not hold yet. The one process-wide object of core: it holds numbers and weak references (a
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
        cfg, k, t = recipe.config, *_batch_shape(recipe)
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


# ---- work: refused before it runs -----------------------------------------------------------
def _batch_shape(recipe) -> tuple[int, int]:
    """(K sentences a step, T positions) of a `core.training.Recipe`."""
    cfg, b = recipe.config, len(recipe.sentences)
    k = cfg.batch_size if 0 < cfg.batch_size < b else b
    return k, cfg.fixed_len or max((len(s) for s in recipe.sentences), default=1)


def lab_problems(recipe) -> list[Problem]:
    """Problems with a lab's training cost, before anything is allocated: one step over the CPU budget
    (``step_too_slow``) or holding more activations than a session may (``step_too_large``).

    >>> [p.code for p in lab_problems(recipe_of_385_lines_of_256_tokens_e512_lstm)]
    ['step_too_slow', 'step_too_large']
    """
    cost = recipe_step_cost(recipe)
    problems = []
    if cost.seconds > limits.MAX_STEP_SECONDS:
        problems.append(Problem("step_too_slow", {"seconds": f"{cost.seconds:.1f}", "max_s": limits.MAX_STEP_SECONDS}))
    if cost.activation_bytes > limits.MAX_STEP_ACTIVATION_BYTES:
        problems.append(Problem("step_too_large", {"mb": -(-cost.activation_bytes // 2**20),
                                                   "max_mb": limits.MAX_STEP_ACTIVATION_BYTES // 2**20}))
    return problems


def work_problems(recipe, steps: int, kind: str = "run") -> list[Problem]:
    """Problems with ``steps`` steps of this recipe as one piece of work: a Run click (``run_too_long``)
    or a replay of a share link, an import or a going-back (``replay_too_long``), over its CPU budget.
    The Problem names the estimate, the limit and the most steps that fit.

    >>> work_problems(one_word_e512_lstm_recipe, 5000, "replay")[0].params
    {'steps': 5000, 'seconds': '85', 'max_s': 15.0, 'max_steps': 881}
    """
    per_step = recipe_step_cost(recipe).seconds
    limit = limits.MAX_REPLAY_SECONDS if kind == "replay" else limits.MAX_RUN_SECONDS
    if steps * per_step <= limit:
        return []
    code = "replay_too_long" if kind == "replay" else "run_too_long"
    return [Problem(code, {"steps": steps, "seconds": f"{steps * per_step:.0f}", "max_s": limit,
                           "max_steps": int(limit // per_step)})]
