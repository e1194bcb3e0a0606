"""The lab: one learner's embedding, toy classifier and training history. One object per session.

Everything that decides the weights is in `Recipe` (vocabulary, sentences, labels, config,
seed). The same recipe and the same number of steps always give bitwise the same weights,
which is what Reset, the share link and the exported script rely on.

    >>> lab = Lab(recipe)            # step 0: W is the seeded N(0, 1) table, PAD row zero
    >>> rec = lab.step()             # one optimizer step → StepRecord
    >>> rec.loss, rec.grad_ids, rec.unused_grad_max     # unused rows: exactly 0.0 (C8)
    >>> lab.run(50)                  # "run 50 steps" is a loop here, not in the UI

Divergence is an outcome, not a crash: a step after which the loss or any parameter is not finite
is undone (the lab is rebuilt at the step before it, bitwise, by replaying its history), and
``lab.diverged`` says at which step and why; further steps are refused until ``lab.back_to(k)``
or a new lab.

    >>> lab = Lab(Recipe(..., Config(optimizer="sgd", lr=10.0, weight_decay=10.0)))
    >>> lab.run(50); lab.steps, lab.diverged
    (10, Problem(code='diverged', params={'step': 11, 'last': 10, 'cause': 'weight_decay', ...}))
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field, make_dataclass
from typing import Callable, Sequence

import numpy as np
import torch
from torch import nn

from core import limits
from core.batch import Batch, Line, make_batch
from core.classes import classes_of
from core.knobs import KNOBS, OPTIMIZERS  # noqa: F401  (OPTIMIZERS re-exported)
from core.cost import lab_problems, recipe_step_cost, work_problems
from core.model import ToyClassifier
from core.optimizers import make_optimizer  # noqa: F401  (re-exported)
from core.pretrained import Pretrained, model_args
from core.problems import Problem, require
from core.vocab import Vocab
from core.work import FREE, Work

MOVED_BLOCK_FLOATS = 2**20  # Lab._moved works on blocks of this many floats
HUGE_WEIGHT = 1e18  # a weight this large squares to within a few hundredfold of float32's maximum: "the weights" caused a divergence
SMALL_MODEL_FLOATS = 2**16  # up to this many parameters in all, Lab._finite sums numpy views
GRAD_STEPS_KEPT = 16  # Lab.grad_norms: the newest steps whose looked-up rows' gradient norms are kept


def _config_problems(self) -> list[Problem]:
    """Validate every knob a learner (or an imported file) can set; [] when fine."""
    return [p for k in KNOBS if (p := k.check(getattr(self, k.name))) is not None]


# Every training knob with its default, derived from core.knobs.KNOBS (the single home of
# defaults): Config(embedding_dim=3, seed=0, pooling="masked_mean", …).
Config = make_dataclass("Config", [(k.name, object, field(default=k.default)) for k in KNOBS],
                        frozen=True, namespace={"problems": _config_problems, "__module__": __name__})


@dataclass(frozen=True)
class Recipe:
    """All a lab is made from. Equal recipes make bitwise equal labs."""

    vocab: Vocab
    sentences: tuple[tuple[str, ...], ...]
    labels: tuple[int | None, ...]
    classes: tuple[str, ...]
    config: Config = field(default_factory=Config)
    pretrained: Pretrained | None = None  # rows of W from a vector file, and whether W trains (core/pretrained.py)

    @classmethod
    def of(cls, vocab: Vocab, lines: Sequence[Line], classes: Sequence[str], config: Config) -> "Recipe":
        """The recipe of parsed lines (core.batch.parse_sentences with the example's ``classes``): their labels define its classes."""
        return cls(vocab, tuple(l.tokens for l in lines), tuple(l.label for l in lines), classes_of(lines, classes), config)

    def problems(self) -> list[Problem]:
        p = self.config.problems() + (self.pretrained.problems(self.config.embedding_dim) if self.pretrained else [])
        if self.vocab.size * self.config.embedding_dim > limits.MAX_TABLE_FLOATS:
            p.append(Problem("table_too_large", {"v": self.vocab.size, "e": self.config.embedding_dim,
                                                 "max": limits.MAX_TABLE_FLOATS}))
        if not p and self.sentences:
            p += lab_problems(self)  # one step's estimated time and activations (core/cost.py)
        return p


@dataclass(frozen=True)
class StepRecord:
    """What one optimizer step did. Tensors are detached copies."""

    step: int  # the step number after this update (1 for the first step)
    loss: float  # loss of the batch before the update
    rows: torch.Tensor  # (K,) sentence indices of this step's batch
    grad_ids: torch.Tensor  # (K',) ids looked up in this step, sorted, PAD included if present
    grad_rows: torch.Tensor  # (K', E) dL/dW at those ids
    unused_grad_max: float  # max |dL/dW| over rows not looked up: exactly 0.0 (C8)
    delta: torch.Tensor  # (V,) L2 norm of how far each row of W moved in this step


class Lab:
    """One session's embedding lab: batch, model, optimizer, history of losses and W snapshots; ``work``
    (core/work.py) admits it, runs its replays and may stop a Run (every lab built from it shares it)."""

    def __init__(self, recipe: Recipe, work: Work = FREE):
        require(recipe.problems())
        self.work, self._ticket = work, work.admit(recipe)  # before allocating: the whole footprint, or InputError
        self.recipe = recipe
        self.uid = uuid.uuid4().hex  # names this lab in per-session caches: unlike id(), never reused, holds no reference
        vocab = recipe.vocab
        self.batch: Batch = make_batch(vocab, list(recipe.sentences), recipe.config.fixed_len)
        self._start()
        self._problems = self._label_problems()  # the recipe is frozen: computed once
        self._targets = None if self._problems else torch.tensor(recipe.labels, dtype=torch.long)  # (B,)
        # The batch twice, end to end: the next k sentences in turn are one slice of it (a view, no gather).
        self._twice = None if self._targets is None else tuple(torch.cat([a, a]) for a in (
            self.batch.ids, self.batch.lengths, self._targets))
        self._scratch: torch.Tensor | None = None
        self._ticket.hold(self.held_bytes)

    def held_bytes(self) -> int:
        """Bytes this lab's tensors held when it last measured them (`_measure`).

        Called from other sessions' threads (admission) while this lab may be stepping, so it reads
        a plain int and never a tensor: reading another thread's gradient while its backward pass or
        optimizer frees it crashed the server (a segmentation fault, bench/bench_load.py)."""
        return self._held

    def _measure(self) -> None:
        """Count, in this lab's own thread, the bytes its parameters, gradients, optimizer state and
        snapshots hold now, for `held_bytes`."""
        params = list(self._params)
        tensors = params + [p.grad for p in params if p.grad is not None]
        tensors += [v for state in self.optimizer.state.values() for v in state.values() if torch.is_tensor(v)]
        w = self._weight
        snapshots = len(self.snapshots) * w.numel() * w.element_size()  # every snapshot is a float32 copy of W
        snapshots += sum(i.nbytes + g.nbytes for i, g in self.grad_norms.values())
        self._held = sum(t.numel() * t.element_size() for t in tensors) + snapshots

    def _start(self) -> None:
        """Step 0: the seeded model, a fresh optimizer, an empty history."""
        cfg, vocab = self.recipe.config, self.recipe.vocab
        self.model = ToyClassifier(vocab.size, cfg.embedding_dim, max(2, len(self.recipe.classes)),
                                   vocab.pad_id, cfg.seed, cfg.pooling, **model_args(self.recipe))
        self.optimizer = make_optimizer(cfg.optimizer, self.model.parameters(), cfg.lr, cfg.weight_decay)
        self._weight = self.model.embedding.weight  # the same Parameter for the model's life (loads copy into it)
        self._params = tuple(self.model.parameters())
        # numpy views of the same storage (the optimizer and the loads write in place): a small
        # model's finiteness check reads them without torch's per-operation dispatch
        self._views = tuple(p.detach().numpy() for p in self._params)
        self._w_view = self._weight.detach().numpy()  # W's storage, read by each snapshot
        self._small = sum(p.numel() for p in self._params) <= SMALL_MODEL_FLOATS
        self.steps = 0
        self.losses: list[float] = []
        self.last: StepRecord | None = None
        # step → (ids looked up, sorted; their ‖dL/dW‖; every other row's is 0, C8), the newest steps only
        self.grad_norms: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.snapshots: dict[int, np.ndarray] = {0: self.weight_numpy()}
        self.pad_edits: list[tuple[int, tuple[float, ...]]] = []  # (step, vector) of hand-set PAD rows
        # Everything done to the weights besides stepping, in order: ("pad", step, vector) and
        # ("load", step, {name: tensor}). With the recipe it decides the weights at every step (back_to).
        self.events: list[tuple[str, int, object]] = []
        self.diverged: Problem | None = None  # set when a step made the loss or a parameter non-finite
        self._measure()

    # ---- looking up ----------------------------------------------------------------------
    @property
    def weight(self) -> torch.Tensor:
        """W, the live (V, E) parameter. Read it under no_grad or detach it."""
        return self._weight

    def weight_numpy(self) -> np.ndarray:
        return self.weight.detach().numpy().copy()  # (V, E) float32

    def vectors(self) -> torch.Tensor:
        """The (B, T, E) output of the embedding for the whole batch, detached."""
        with torch.no_grad():
            return self.model.embedding(self.batch.ids)

    def train_problems(self) -> list[Problem]:
        """Why training cannot run on this recipe or this lab now ([] when it can)."""
        return list(self._problems) + ([self.diverged] if self.diverged is not None else [])

    def _label_problems(self) -> list[Problem]:
        missing = sum(label is None for label in self.recipe.labels)
        return [Problem("labels_missing", {"n": missing})] if missing else []

    def step_rows(self, step: int) -> torch.Tensor:
        """Sentence indices used by step number ``step`` (1-based): all, or the next k in turn. (K,)"""
        start, k = self._window(step)
        return (torch.arange(k) + start) % self.batch.ids.shape[0]

    def _window(self, step: int) -> tuple[int, int]:
        """(first sentence, how many) of step ``step``'s sentences, which wrap around the batch."""
        B = self.batch.ids.shape[0]
        k = self.recipe.config.batch_size
        if k <= 0 or k >= B:
            return 0, B
        return ((step - 1) * k) % B, k

    def _step_batch(self, step: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(ids, lengths, targets) of step ``step``'s sentences, (K, T), (K,), (K,): the whole batch, or a
        slice of it laid twice (the same values, in the same order, as gathering `step_rows`)."""
        start, k = self._window(step)
        if k == self.batch.ids.shape[0]:
            return self.batch.ids, self.batch.lengths, self._targets
        return tuple(a[start:start + k] for a in self._twice)

    def predict(self) -> torch.Tensor:
        """Class probabilities for every sentence with the current weights. (B, C)"""
        with torch.no_grad():
            return torch.softmax(self.model(self.batch.ids, self.batch.lengths), dim=-1)

    def loss_of(self, rows: torch.Tensor) -> float:
        """The loss of sentences ``rows`` (K,) with the current weights, as a step computes it (no gradient)."""
        with torch.no_grad():
            logits = self.model(self.batch.ids[rows], self.batch.lengths[rows])
            return nn.functional.cross_entropy(logits, self._targets[rows]).item()

    # ---- training ------------------------------------------------------------------------
    def step(self, record: bool = True, snapshot: bool = True) -> StepRecord | None:
        """One optimizer step on this step's sentences; returns what it did.

        ``record=False`` skips the bookkeeping (gradient rows, movement) that only the last step
        of a run needs; the weights, losses and snapshots are the same either way.
        ``snapshot=False`` keeps no copy of W at this step: only for a step whose snapshot the next
        one would drop anyway (see ``run``).
        """
        require(self.train_problems())
        record_ = self._step(record, snapshot)
        self._measure()
        return record_

    def _step(self, record: bool, snapshot: bool) -> StepRecord | None:
        """`step` without its checks and its measuring (`_run` does both once per run)."""
        ids, lengths, targets = self._step_batch(self.steps + 1)
        w = self._weight.detach()  # (V, E)
        before = self._before(w) if record else None
        self.optimizer.zero_grad()  # set_to_none: backward writes a fresh gradient (no zeroing of a W-sized buffer, then an add)
        loss = nn.functional.cross_entropy(self.model(ids, lengths), targets)  # nn.CrossEntropyLoss's math, one call less
        loss.backward()
        used, grad_rows, unused_max = self._gradient_facts(ids) if record else (None, None, 0.0)
        norms = self._row_grad_norms(ids, used, grad_rows)
        self.optimizer.step()
        value = loss.item()
        if not (math.isfinite(value) and self._finite()):
            self._diverge(self.steps + 1)
            return None
        self.steps += 1
        self.losses.append(value)
        self.grad_norms[self.steps] = norms
        self.grad_norms.pop(self.steps - GRAD_STEPS_KEPT, None)
        if record:
            self.last = StepRecord(self.steps, value, self.step_rows(self.steps), used, grad_rows, unused_max,
                                   self._moved(w, before))
        if snapshot:
            self._keep_snapshot()
        return self.last

    def _finite(self) -> bool:
        """Every parameter finite? One sum per parameter and one of those sums, read once (far cheaper
        than an element-wise check of W): a sum is finite only if every term is; only an overflowing
        sum of finite terms needs the element-wise check. A small model sums its numpy views (torch's
        dispatch would cost more than the sums); a large one sums in torch, on every thread."""
        if self._small:
            with np.errstate(over="ignore", invalid="ignore"):  # inf − inf or an overflow is the answer, not a fault
                total = sum(float(a.sum()) for a in self._views)
            return math.isfinite(total) or all(bool(np.isfinite(a).all()) for a in self._views)
        with torch.no_grad():
            if bool(torch.isfinite(torch.stack([p.sum() for p in self._params]).sum())):
                return True
            return all(bool(torch.isfinite(p).all()) for p in self._params)

    # ---- divergence and going back -------------------------------------------------------
    def _diverge(self, step: int) -> None:
        """Step ``step`` made the loss or a parameter non-finite: go back to the step before it, name the cause.

        Going back replays this lab's history (`back_to`) rather than copying the state before
        every step: the copy would cost W, the optimizer's buffers and every other parameter at
        every step (at 100k×300 with Adam, a sizeable share of a Step) for the rare step that diverges,
        while the replay costs nothing until then and is bitwise by construction, the same path
        as Reset, a share link and `back_to`. No non-finite W is ever kept as a snapshot.
        """
        self._rewind(step - 1)
        self.diverged = Problem("diverged", {"step": step, "last": step - 1, "cause": self._divergence_cause(),
                                             "lr": self.recipe.config.lr, "wd": self.recipe.config.weight_decay,
                                             "factor": f"{1 - self.recipe.config.lr * self.recipe.config.weight_decay:g}"})

    def _divergence_cause(self) -> str:
        """"weights" when a loaded or hand-set weight is huge; "weight_decay" when decay alone makes W grow
        (|1 − lr·wd| > 1: SGD, momentum and AdamW multiply W by 1 − lr·wd each step); else "lr"."""
        cfg = self.recipe.config
        for kind, _, payload in self.events:
            tensors = payload.values() if kind == "load" else [torch.tensor(payload)]
            if any(float(t.abs().max()) >= HUGE_WEIGHT for t in tensors if t.numel()):
                return "weights"
        if cfg.optimizer != "adam" and cfg.lr * cfg.weight_decay > 2:
            return "weight_decay"
        return "lr"

    def back_to(self, step: int) -> None:
        """Go back to step ``step`` (0 ≤ step ≤ the current step), bitwise: the lab is rebuilt from its
        recipe and replayed, hand-set PAD rows and loaded tensors re-applied where they were.

        The snapshots kept up to ``step`` stay (the replay gives them bitwise again); the steps after
        it, their PAD edits and loads are forgotten, and so is a divergence.
        """
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= self.steps:
            require([Problem("back_to_range", {"step": str(step)[:20], "max": self.steps})])
        require(work_problems(self.recipe, step, "replay"))
        self._rewind(step)

    def _rewind(self, step: int) -> None:
        """`back_to` without its checks: a divergence must be undone whatever the replay costs."""
        kept = {s: a for s, a in self.snapshots.items() if s <= step}
        events = [e for e in self.events if e[1] <= step]
        self.model = self.optimizer = self._scratch = self._weight = self._params = None  # free the old tensors first
        self._start()
        self.uid = uuid.uuid4().hex  # the steps after ``step`` will be new: caches keyed by the old uid must not serve them
        _play(self, events, step)
        self.snapshots = kept | {self.steps: self.snapshots[self.steps]}
        self._measure()

    def _before(self, w: torch.Tensor) -> torch.Tensor:
        """W as it is before this step, read-only: the snapshot kept at this step, which is a copy of it
        (every Step and the last step of a Run start from one), else a copy into a reused buffer."""
        if self.steps in self.snapshots:
            return torch.from_numpy(self.snapshots[self.steps])
        if self._scratch is None or self._scratch.shape != w.shape:
            self._scratch = torch.empty_like(w)
        return self._scratch.copy_(w)

    @staticmethod
    def _moved(w: torch.Tensor, before: torch.Tensor) -> torch.Tensor:
        """‖W − before‖ per row, (V,), a block of rows at a time: the difference never needs a W-sized buffer."""
        v, e = w.shape
        rows = max(1, MOVED_BLOCK_FLOATS // max(1, e))
        out = torch.empty(v, dtype=w.dtype)
        diff = torch.empty((min(rows, v), e), dtype=w.dtype)
        for start in range(0, v, rows):
            stop = min(v, start + rows)
            d = torch.sub(w[start:stop], before[start:stop], out=diff[:stop - start])
            torch.linalg.vector_norm(d, dim=1, out=out[start:stop])
        return out

    def _gradient_facts(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, float]:
        """(ids looked up, their gradient rows, max |grad| over every other row) — the last is exactly 0 (C8).

        The looked-up rows are saved, zeroed in place for one aminmax over the whole gradient, and
        written back bitwise before the optimizer reads it (no (V−K, E) gather copies).
        """
        grad = self.weight.grad.detach() if self.weight.grad is not None else torch.zeros_like(self.weight)  # frozen: none
        if self._small:  # the same facts from numpy views: torch's dispatch would cost more than the work
            g, used = grad.numpy(), np.unique(ids.numpy())  # (V, E) view, (K',) sorted
            rest = np.delete(np.abs(g), used, axis=0)  # (V−K', E)
            return torch.from_numpy(used), torch.from_numpy(g[used]), float(rest.max()) if rest.size else 0.0
        used = torch.unique(ids)  # (K',) sorted
        grad_rows = grad.index_select(0, used)  # (K', E) copy
        if used.numel() == grad.shape[0]:
            return used, grad_rows, 0.0
        grad.index_fill_(0, used, 0.0)
        lo, hi = torch.aminmax(grad)
        grad.index_copy_(0, used, grad_rows)
        return used, grad_rows, float(torch.maximum(lo.abs(), hi.abs()))

    def _row_grad_norms(self, ids: torch.Tensor, used: torch.Tensor | None,
                        grad_rows: torch.Tensor | None) -> tuple[np.ndarray, np.ndarray]:
        """(ids looked up, sorted; each one's ‖dL/dW‖), from the looked-up rows only (no W-sized pass)."""
        grad = self._weight.grad
        if used is None:
            used = torch.from_numpy(np.unique(ids.numpy())) if self._small else torch.unique(ids)
            grad_rows = grad.detach().index_select(0, used) if grad is not None else None
        if grad is None or grad_rows is None:  # a frozen W has no gradient
            return used.numpy(), np.zeros(used.numel(), dtype=np.float32)
        return used.numpy(), torch.linalg.vector_norm(grad_rows, dim=1).numpy()

    def run(self, n: int, on_progress: Callable[[int, int], None] | None = None) -> StepRecord | None:
        """Take ``n`` steps (bounded by MAX_STEPS_PER_CLICK); report progress as (done, n)."""
        if not 1 <= n <= limits.MAX_STEPS_PER_CLICK:
            require([Problem("steps_range", {"max": limits.MAX_STEPS_PER_CLICK})])
        require(work_problems(self.recipe, n, "run"))  # estimated before the first step
        return self._run(n, on_progress)

    def _run(self, n: int, on_progress: Callable[[int, int], None] | None = None) -> StepRecord | None:
        """`run` without its checks (a replay checks its whole budget once)."""
        # With room for only the first and the latest snapshot (a big table), each step's snapshot
        # is dropped by the next: copy W once, at the end (a W-sized copy per step otherwise).
        # The step before the last keeps one too: the recorded last step reads it as "W before"
        # (_before); thinning hands its buffer to the last step's snapshot, so nothing is allocated.
        only_latest = self.snapshot_limit() <= 2
        require(self.train_problems())  # once: only a divergence changes them, and it ends the run
        try:
            for i in range(n):
                self._step(record=i == n - 1, snapshot=not only_latest or i >= n - 2)
                if self.diverged is not None:  # undone, named in self.diverged: stop here
                    break
                if on_progress is not None:
                    on_progress(i + 1, n)
                if i < n - 1:
                    self.work.checkpoint()  # the job this Run belongs to may have to stop (core/work.py)
        finally:
            if self.steps not in self.snapshots:  # stopped part-way (an exception): still keep the latest W
                self._keep_snapshot()
            self._measure()
        return self.last

    def set_pad_row(self, vector: list[float] | torch.Tensor) -> None:
        """Overwrite the PAD row by hand (C13): lookups return it; nothing re-zeroes it."""
        v = torch.as_tensor(vector, dtype=torch.float32).reshape(-1)
        if v.shape[0] != self.recipe.config.embedding_dim or not bool(torch.isfinite(v).all()):
            require([Problem("pad_vector_shape", {"e": self.recipe.config.embedding_dim})])
        with torch.no_grad():
            self.weight[self.recipe.vocab.pad_id] = v
        self.pad_edits.append((self.steps, tuple(float(x) for x in v)))
        self.events.append(("pad", self.steps, self.pad_edits[-1][1]))
        self.snapshots[self.steps] = self.weight_numpy()
        self._measure()

    def load_parameters(self, tensors: dict[str, torch.Tensor]) -> None:
        """Copy parameters in by name (``"embedding.weight"`` is W), as an imported file asks; kept as an
        event, so `back_to` re-applies them. Shapes must match; the values must be finite."""
        params = dict(self.model.named_parameters())
        copies = {n: torch.as_tensor(t, dtype=torch.float32).detach().clone() for n, t in tensors.items()}
        if any(n not in params or c.shape != params[n].shape or not bool(torch.isfinite(c).all())
               for n, c in copies.items()):
            raise ValueError("load_parameters: unknown name, wrong shape or non-finite values")
        with torch.no_grad():
            for n, c in copies.items():
                params[n].copy_(c)
        self.events.append(("load", self.steps, copies))
        self.snapshots[self.steps] = self.weight_numpy()
        self._measure()

    def release(self) -> None:
        """Give this lab's memory back for good, for a lab whose session is gone (server/upkeep.py):
        something may still refer to it (a closure of that session's page; Streamlit keeps the last
        session it flushed), so each parameter's data is replaced by an empty tensor in place, and the
        gradients, optimizer state, snapshots, loaded weights, batch and admission ticket go. The lab
        cannot be used afterwards."""
        for p in self.model.parameters():
            p.grad = None
            p.data = torch.empty(0, dtype=p.dtype)
        self.optimizer.state.clear()
        self.snapshots.clear()
        self.grad_norms.clear()
        self.events.clear()
        self.model = self.optimizer = self.batch = self._targets = self._scratch = self.last = None
        self._weight = self._params = self._twice = None
        self._ticket = None  # its admission's weak entry goes with it
        self._held = 0

    def snapshot_limit(self) -> int:
        """How many W snapshots fit the per-session budget (at least first and latest)."""
        return max(2, limits.SNAPSHOT_BUDGET_FLOATS // max(1, self._w_view.size))

    def _keep_snapshot(self) -> None:
        """Keep W at this step; past the budget, thin to every other step (first and latest kept).

        The array of a snapshot that thinning drops is reused for the new one.
        """
        w = self._w_view
        if len(self.snapshots) + 1 <= self.snapshot_limit():
            self.snapshots[self.steps] = w.copy()
            return
        steps = sorted(self.snapshots) + [self.steps]
        keep = set(steps[::2]) | {steps[0], steps[-1]}
        dropped = [self.snapshots.pop(s) for s in steps[:-1] if s not in keep]
        buf = dropped[0] if dropped and dropped[0].shape == w.shape else np.empty_like(w)
        np.copyto(buf, w)
        self.snapshots[self.steps] = buf


def replay(recipe: Recipe, steps: int, pad_edits: list[tuple[int, tuple[float, ...]]] = (), work: Work = FREE) -> Lab:
    """A fresh lab with ``steps`` steps taken, hand-set PAD rows re-applied at the step they were set.

    What Reset, a share link and an imported state reproduce: same recipe → bitwise same W.
    """
    require(work_problems(recipe, steps, "replay"))
    lab = Lab(recipe, work)
    _play(lab, [("pad", s, vec) for s, vec in sorted(pad_edits, key=lambda e: e[0])], steps)
    return lab


def _play(lab: Lab, events: list[tuple[str, int, object]], steps: int) -> None:
    """Take ``lab`` (at step 0) to ``steps``, applying each event when its step is reached, in order:
    one job of the lab's work (core/work.py), estimated by the cost model."""
    with lab.work.job("replay", steps * recipe_step_cost(lab.recipe).seconds):
        _play_events(lab, events, steps)


def _play_events(lab: Lab, events: list[tuple[str, int, object]], steps: int) -> None:
    for kind, at, payload in [e for e in events if e[1] <= steps] + [("end", steps, None)]:
        while lab.steps < at:
            lab._run(min(limits.MAX_STEPS_PER_CLICK, at - lab.steps))
            if lab.diverged is not None:  # a history that diverged before ``steps``: stop where it did
                return
        if kind == "pad":
            lab.set_pad_row(list(payload))
        elif kind == "load":
            lab.load_parameters(payload)
