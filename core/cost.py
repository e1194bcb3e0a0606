"""The cost model: what a lab and its work cost, estimated before anything is allocated or run.

Pure estimates from a recipe's shape (V, E, K sentences of T tokens, the pooling and the
optimizer): CPU seconds of a step (`step_cost`, `recipe_step_cost`), the bytes a lab holds
(`lab_bytes`, `first_steps_bytes`), and the work a session may ask for (`lab_problems`,
`work_problems`: a step, a Run or a replay over its budget in core/limits.py). Whether the machine
has the memory is the server's question (server/admission.py), asked with these estimates.

    >>> lab_bytes(100_000, 300, "adam") // 2**20          # W, grad, Adam's 2 moments, 2 snapshots
    686
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from core import limits
from core.problems import Problem, require

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


# Reading a vector file (core/vector_file.py) and matching it to a vocabulary, per byte of the file:
# CPU (bench/bench_vector_file.py) and the memory held at the peak (the bytes, their decoded text,
# its lines, and the float32 rows kept).
VECTOR_FILE_S = 60e-9
VECTOR_FILE_BYTES = 8


def vector_file_cost(nbytes: int) -> tuple[float, int]:
    """(CPU seconds, peak bytes) of reading a vector file of ``nbytes`` and matching it to a vocabulary.

    >>> vector_file_cost(20_000_000)      # the largest file an import may be
    (1.2, 160000000)
    """
    return round(VECTOR_FILE_S * nbytes, 6), VECTOR_FILE_BYTES * int(nbytes)


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
    k, t = batch_shape(recipe)
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


def first_steps_bytes(v: int, e: int, optimizer: str, pooling: str = "masked_mean", k: int = 0, t: int = 0) -> int:
    """What a lab holds once it has taken its first steps: every parameter, its gradient and optimizer
    state, two snapshots of W, and a step's activations. The thinned history's further snapshots
    (up to the session's budget, `lab_bytes`) grow a step at a time, in view of the free memory."""
    cost = step_cost(v, e, k, t, pooling, optimizer)
    return 4 * (cost.params + 2 * v * e) + cost.step_bytes


# ---- work: refused before it runs -----------------------------------------------------------
def batch_shape(recipe) -> tuple[int, int]:
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
