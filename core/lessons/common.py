"""Shared pieces of the lessons: size bounds, the Demo record, and helpers that copy the learner's state."""


from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from core.model import seeded_embedding_weight
from core.training import Lab

# ---- bounds: every demo stays fast on the biggest table core allows (V·E ≤ 40M) -------------
MAX_COPY_FLOATS = 1_000_000  # W is copied whole up to this size; beyond it only the rows needed
EXTRA_UNUSED_ROWS = 8  # rows not looked up that a partial copy keeps, so "unused" can be shown
MAX_OUTPUT_FLOATS = 200_000  # b·T·E: demos that compute vectors use the first b sentences
ONE_HOT_MAX_MACS = 20_000_000  # n·V·E: the one-hot matmul of C4 runs on the first n tokens only
LSTM_HIDDEN = 8  # hidden size of the small seeded LSTMs of C10 and C15
LSTM_SENTENCES = 4  # sentences run through them one by one (C15)
STATS_MAX_FLOATS = 1_000_000  # C7: the first rows of a big table are enough for a mean and a std
PCA_MAX_ROWS = 1_000  # C9, X7: PCA of the first rows (and PAD) of a big table
SHOW_ROWS = 12  # rows in a displayed table
SHOW_COMPONENTS = 6  # vector components shown in a table cell
DRAW_ROWS = 12  # rows (tokens, positions) a figure draws
DRAW_DIMS = 16  # vector components a figure draws
DRAW_IDS = 40  # ids (one-hot columns, gradient rows) a figure draws
DRAW_SENTENCES = 4  # sentences (slabs of the (B, T, E) block) C3 draws
TRAIN_STEPS = 3  # steps on a copy (C9, C13, X7)
DECAY_LR, DECAY, DECAY_STEPS = 0.01, 0.01, 10  # C13: weight decay on a non-zero PAD row
X7_MAX_SNAPSHOTS = 8
X7_MAX_FLOATS = 4_000_000  # snapshots × V·E fitted by X7's PCAs

GRAD_ANSWERS = ("all", "used", "used_but_pad", "none")  # C8/C13: which rows get a gradient

CHAPTER_FILE = Path(__file__).resolve().parents[2] / "assets" / "chapter-4.4-code.py"
CHAPTER_CODE = CHAPTER_FILE.read_text(encoding="utf-8")  # the chapter's code block, verbatim, as the app shows it
CHAPTER_PREPROCESSING = CHAPTER_CODE[CHAPTER_CODE.index("encoded ="): CHAPTER_CODE.index("\nembedding =")]
CHAPTER_IDS = ((2, 0, 3), (2, 4, 1))  # the matrix printed in the chapter


HOLDS, FAILS, NOT_FINITE = "holds", "fails", "not_finite"  # the three verdicts a lesson can give


@dataclass(frozen=True)
class Demo:
    """What one demonstration saw. ``facts``, ``tables`` and ``figure`` hold plain Python values only.

    ``figure`` is the data a lesson draws (components.lessons turns it into a Plotly figure):
    ``{"kind": ..., **arrays as lists}``; empty when the lesson draws nothing.
    """

    id: str
    held: bool  # did the check this demo performs hold
    facts: dict[str, Any]
    tables: dict[str, list[list]] = field(default_factory=dict)
    figure: dict[str, Any] = field(default_factory=dict)
    checkable: bool = True  # False: W holds inf or NaN, so the check was not run

    @property
    def verdict(self) -> str:
        """HOLDS, FAILS, or NOT_FINITE (a non-finite W: the claim cannot be checked, not "did not hold")."""
        return NOT_FINITE if not self.checkable else HOLDS if self.held else FAILS


def _cut_short(facts: dict[str, Any]) -> bool:
    """Did the demo use only part of the batch or of W (big inputs)?"""
    return facts.get("full_table") is False or facts.get("sentences_used", 0) < facts.get("sentences", 0)


BOOKKEEPING = MappingProxyType({k: _cut_short for k in ("sentences_used", "sentences", "table_rows", "full_table")})


@dataclass(frozen=True)
class Lesson:
    """One lesson as one unit: its demo, what it shows, and (by its id) its strings.

    Its prose lives in ``assets/strings/lesson_<id>.json`` (keys ``lesson.<id>.*``): title, body,
    check, the label of every fact, and its prediction question if it asks one.
    """

    id: str
    demo: Callable[[Lab], Demo]
    headline: tuple[str, ...] = ()  # facts shown as metrics; the others go in its fact table
    shown_only_if: Mapping[str, Callable[[dict], bool]] = field(default_factory=lambda: BOOKKEEPING)  # facts that say nothing otherwise
    codes: tuple[str, ...] = ()  # facts whose value is a code, shown through ``lesson.value.<code>``
    predict: tuple[str, tuple[str, ...]] | None = None  # (fact holding the right answers, the choices)
    needs_finite: bool = True  # False: its check does not read W's values
    terms: tuple[str, ...] = ()  # jargon it uses, explained under its text (``lesson.term.<term>``)
    uses_frame: bool = False  # its demo takes the frame the training view draws in (X7)

    def run(self, lab: Lab, frame: Any = None) -> Demo:
        """The demo on ``lab``; on a non-finite W, a lesson that reads W's values says it cannot check.
        ``frame``: the training view's PCA frame (core.projection.Frame), for a lesson that draws in it."""
        if self.needs_finite and not _finite(lab.weight):
            bad = int((~torch.isfinite(lab.weight.detach())).any(dim=1).sum())
            return Demo(self.id, False, {"non_finite_rows": bad}, checkable=False)
        return self.demo(lab, frame) if self.uses_frame else self.demo(lab)


def only_if(**rules: Callable[[dict], bool]) -> Mapping[str, Callable[[dict], bool]]:
    """The bookkeeping rules plus a lesson's own: ``only_if(rows_used=lambda f: ...)``."""
    return MappingProxyType({**BOOKKEEPING, **rules})


def _finite(w: torch.Tensor) -> bool:
    return bool(torch.isfinite(w.detach()).all())


# ---- helpers ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Bench:
    """A private copy of (part of) W with the first b sentences renumbered into it."""

    weight: torch.Tensor  # (n, E) copy: all V rows, or the rows looked up + PAD, UNK, a few unused
    rows: torch.Tensor  # (n,) the learner's id of each row of `weight`
    ids: torch.Tensor  # (b, T) the first b sentences, ids renumbered into `weight`
    lengths: torch.Tensor  # (b,)
    mask: torch.Tensor  # (b, T) True at real tokens
    pad: int  # PAD's row in `weight`
    unk: int  # UNK's row in `weight`
    full: bool  # True when `weight` is all of W (then rows == arange(V))

    def embedding(self, pad_row: torch.Tensor | None = None, **options) -> nn.Embedding:
        """A fresh trainable layer on a copy of the bench's table, like the lab's (from_pretrained)."""
        w = self.weight.clone()  # (n, E)
        if pad_row is not None:
            w[self.pad] = pad_row
        return nn.Embedding.from_pretrained(w, freeze=False, padding_idx=self.pad, **options)

    def vocab_id(self, row: int) -> int:
        return int(self.rows[row])

    def facts(self, lab: Lab) -> dict[str, Any]:
        return {"sentences_used": int(self.ids.shape[0]), "sentences": int(lab.batch.ids.shape[0]),
                "table_rows": int(self.weight.shape[0]), "full_table": self.full}


def _sentences_used(lab: Lab) -> int:
    """How many sentences (from the first) a demo runs through layers: b·T·E ≤ MAX_OUTPUT_FLOATS."""
    B, T = lab.batch.ids.shape
    E = lab.weight.shape[1]
    return max(1, min(B, MAX_OUTPUT_FLOATS // max(1, T * E)))


def _bench(lab: Lab) -> _Bench:
    """Copy W whole when small; otherwise only the rows the first b sentences look up."""
    vocab, batch = lab.recipe.vocab, lab.batch
    b = _sentences_used(lab)
    ids = batch.ids[:b]  # (b, T)
    W = lab.weight.detach()  # (V, E), read only
    V, E = W.shape
    if V * E <= MAX_COPY_FLOATS:
        return _Bench(W.clone(), torch.arange(V), ids.clone(), batch.lengths[:b].clone(),
                      batch.mask[:b].clone(), vocab.pad_id, vocab.unk_id, True)
    used = torch.zeros(V, dtype=torch.bool)
    used[ids.reshape(-1)] = True
    used[[vocab.pad_id, vocab.unk_id]] = True
    unused = (~used).nonzero()[:EXTRA_UNUSED_ROWS, 0]
    rows = torch.sort(torch.cat([used.nonzero()[:, 0], unused])).values  # (n,)
    renumber = lambda i: int(torch.searchsorted(rows, torch.tensor(i)))  # noqa: E731
    return _Bench(W[rows].clone(), rows, torch.searchsorted(rows, ids), batch.lengths[:b].clone(),
                  batch.mask[:b].clone(), renumber(vocab.pad_id), renumber(vocab.unk_id), False)


def _error(fn: Callable[[], Any]) -> dict[str, str] | None:
    """Run ``fn``; the exception it raised as {"type", "message"}, or None when it ran."""
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - recording what torch raises is the point
        return {"type": type(exc).__name__, "message": str(exc)[:300]}
    return None


def _raised(err: dict[str, str] | None, name: str) -> bool:
    return err is not None and err["type"] == name


def _vec(v: torch.Tensor) -> str:
    """A row vector for a table cell: its first components, 4 significant digits."""
    v = v.detach().reshape(-1)
    shown = ", ".join("0" if x == 0 else f"{x:.4g}" for x in v[:SHOW_COMPONENTS].tolist())
    return f"[{shown}{', …' if v.numel() > SHOW_COMPONENTS else ''}]"


def _grid(x: torch.Tensor) -> list[list[float]]:
    """The first DRAW_ROWS × DRAW_DIMS block of a matrix, as lists for a figure. (≤12, ≤16)"""
    return x.detach()[:DRAW_ROWS, :DRAW_DIMS].double().tolist()


def _absmax(lab: Lab) -> float:
    """W's largest finite |value|: the ends of the stage's colour scale when it shows every row."""
    w = lab.weight.detach()
    finite = w[torch.isfinite(w)]
    return float(finite.abs().max()) if finite.numel() else 1.0


def _token(lab: Lab, i: int) -> str:
    return lab.recipe.vocab.tokens[i]


def _gen(lab: Lab, salt: int) -> torch.Generator:
    """A private generator: the recipe's seed mixed with a per-demo salt, never the global RNG."""
    return torch.Generator().manual_seed(lab.recipe.config.seed * 1_000 + salt)


def _probe_loss(emb: nn.Embedding, ids: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """A loss that sends a random, non-zero gradient to every position, pads included."""
    vectors = emb(ids)  # (b, T, E)
    direction = torch.randn(vectors.shape, generator=g)  # (b, T, E)
    return (vectors * direction).sum()


def _model_copy(lab: Lab, emb: nn.Embedding) -> nn.Module:
    """A deep copy of the learner's classifier with ``emb`` in place of its embedding."""
    model = copy.deepcopy(lab.model, memo={id(lab.model.embedding): emb})
    for p in model.parameters():
        p.grad = None
    return model


def _model_loss(lab: Lab, model: nn.Module, bench: _Bench, ids: torch.Tensor | None = None):
    """Cross-entropy on the recipe's labels when every used sentence has one; else sum of logits."""
    ids = bench.ids if ids is None else ids
    logits = model(ids, bench.lengths)  # (b, C)
    labels = lab.recipe.labels[: ids.shape[0]]
    if all(label is not None for label in labels):
        return F.cross_entropy(logits, torch.tensor(labels, dtype=torch.long)), "cross_entropy"
    return logits.sum(), "sum_of_logits"


def _grad_answers(grad: torch.Tensor, ids: torch.Tensor, pad: int) -> list[str]:
    """Every answer of GRAD_ANSWERS that names exactly the rows of ``grad`` that are non-zero.

    Two can be right at once (no PAD in the batch: "used" and "used_but_pad" are the same rows).
    """
    nonzero = set((grad != 0).any(dim=1).nonzero()[:, 0].tolist())
    used = set(torch.unique(ids).tolist())
    rows = {"all": set(range(grad.shape[0])), "used": used, "used_but_pad": used - {pad}, "none": set()}
    return [answer for answer in GRAD_ANSWERS if rows[answer] == nonzero]


def _seeded_lstm(input_size: int, g: torch.Generator, bias: bool = True) -> nn.LSTM:
    """An LSTM initialised like nn.LSTM (uniform ±1/√H) from ``g``; built on meta: no global RNG."""
    lstm = nn.LSTM(input_size, LSTM_HIDDEN, batch_first=True, bias=bias, device="meta").to_empty(device="cpu")
    bound = 1 / math.sqrt(LSTM_HIDDEN)
    with torch.no_grad():
        for p in lstm.parameters():
            p.uniform_(-bound, bound, generator=g)
    return lstm


def _fresh_table(lab: Lab) -> np.ndarray:
    """W at step 0: the stored snapshot when no PAD row was set by hand at step 0, else re-seeded. (V, E)"""
    if 0 in lab.snapshots and not any(step == 0 for step, _ in lab.pad_edits):
        return lab.snapshots[0]
    vocab, cfg = lab.recipe.vocab, lab.recipe.config
    return seeded_embedding_weight(vocab.size, cfg.embedding_dim, vocab.pad_id, cfg.seed).numpy()


def _pca_rows(lab: Lab) -> tuple[np.ndarray, int]:
    """Rows of W a PCA demo uses: all, or the first PCA_MAX_ROWS and PAD; and PAD's place among them."""
    V, pad = lab.recipe.vocab.size, lab.recipe.vocab.pad_id
    if V <= PCA_MAX_ROWS:
        return np.arange(V), pad
    keep = np.arange(PCA_MAX_ROWS) if pad < PCA_MAX_ROWS else np.append(np.arange(PCA_MAX_ROWS), pad)
    return keep, int(np.flatnonzero(keep == pad)[0])


def _most_repeated(ids: torch.Tensor, n_rows: int, exclude: int) -> tuple[int | None, int]:
    """The id looked up most often (not ``exclude``) and its count; (None, 0) if there is none."""
    counts = torch.bincount(ids.reshape(-1), minlength=n_rows)  # (n,)
    counts[exclude] = 0
    best = int(counts.argmax())
    return (best, int(counts[best])) if int(counts[best]) > 0 else (None, 0)
