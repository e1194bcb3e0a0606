"""The chapter's claims (C1–C16) and the pitfalls after it (X1–X7) as live checks on a learner's Lab.

Each ``demo_<id>(lab)`` runs real torch code on private copies of the learner's current table
and batch, and returns a `Demo`: whether the check it performed held (``verdict``), the numbers
it saw (``facts``) and small tables for display. The learner's lab is never modified: demos
copy W (or, for big tables, the rows they need), build fresh layers from the copy, and draw
random numbers only from private ``torch.Generator`` objects (sessions share one process).

Worked example, on the chapter's lab (C16: ``<UNK>``=0, ``<PAD>``=1, V=6, E=3, ids
``[[2, 0, 3], [2, 4, 1]]``)::

    >>> d = run_demo("C4", lab)
    >>> d.verdict, d.facts["max_diff"], d.facts["bitwise_equal"]
    (True, 0.0, True)                           # one_hot(ids, 6).float() @ W == W[ids], bit for bit
    >>> d.facts["no_float_error"]["type"]
    'RuntimeError'                              # one_hot gives int64: the matmul needs .float()
    >>> d.facts["inf_matmul_nan"], d.facts["inf_lookup_finite"]
    (True, True)                                # 0 · inf = NaN poisons the matmul, not the lookup
    >>> run_demo("C13", lab).facts["pad_grad_max"]
    0.0                                         # PAD is in the batch, its gradient row is exactly 0

Tables are ``{name: [header, *rows]}``; each header entry is a column id that the interface
names from ``assets/strings/lessons.json`` (``lesson.col.<id>``), as it names every fact
(``lesson.<ID>.fact.<key>``, or ``lesson.fact.<key>`` for facts that several demos share).
A fact whose value is ``{"type": ..., "message": ...}`` is an exception that torch raised;
``None`` in its place means the call succeeded.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

from core.model import seeded_embedding_weight
from core.projection import fit_frame, spectrum_is_flat
from core.training import Lab, make_optimizer

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
TRAIN_STEPS = 3  # steps on a copy (C9, C13, X7)
DECAY_LR, DECAY, DECAY_STEPS = 0.01, 0.01, 10  # C13: weight decay on a non-zero PAD row
X7_MAX_SNAPSHOTS = 8
X7_MAX_FLOATS = 4_000_000  # snapshots × V·E fitted by X7's PCAs

LESSON_IDS = tuple(f"C{i}" for i in range(1, 17)) + tuple(f"X{i}" for i in range(1, 8))
GRAD_ANSWERS = ("all", "used", "used_but_pad", "none")  # C8/C13: which rows get a gradient

CHAPTER_CODE = '''import torch
from torch import nn

vocab = {
    "<UNK>": 0, "<PAD>": 1,
    "영화": 2, "좋다": 3, "나쁘다": 4, "재미있다": 5,
}
tokens = [["영화", "정말", "좋다"], ["영화", "나쁘다"]]
encoded = [[vocab.get(token, vocab["<UNK>"]) for token in seq]
           for seq in tokens]
max_len = max(len(seq) for seq in encoded)
padded = [seq + [vocab["<PAD>"]] * (max_len - len(seq))
          for seq in encoded]
inputs = torch.tensor(padded, dtype=torch.long)

embedding = nn.Embedding(len(vocab), 3, padding_idx=vocab["<PAD>"])
vectors = embedding(inputs)
'''  # the chapter's code, verbatim (tests check it against the seed text)
CHAPTER_PREPROCESSING = CHAPTER_CODE[CHAPTER_CODE.index("encoded ="): CHAPTER_CODE.index("\nembedding =")]
CHAPTER_IDS = ((2, 0, 3), (2, 4, 1))  # the matrix printed in the chapter


@dataclass(frozen=True)
class Demo:
    """What one demonstration saw. ``facts`` and ``tables`` hold plain Python values only."""

    id: str
    verdict: bool  # did the check this demo performs hold
    facts: dict[str, Any]
    tables: dict[str, list[list]] = field(default_factory=dict)


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
    """A row vector for a table cell: its first components, 4 decimals."""
    v = v.detach().reshape(-1)
    shown = ", ".join(f"{x:.4f}" for x in v[:SHOW_COMPONENTS].tolist())
    return f"[{shown}{', …' if v.numel() > SHOW_COMPONENTS else ''}]"


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


# ---- C1–C3: ids name rows; a lookup is indexing ------------------------------------------------
def _adjacent_pair(lab: Lab) -> tuple[int, int]:
    """Two ids next to each other, ordinary tokens if possible, never PAD if possible."""
    vocab = lab.recipe.vocab
    for skip in ({vocab.pad_id, vocab.unk_id}, {vocab.pad_id}, set()):
        for i in range(vocab.size - 1):
            if i not in skip and i + 1 not in skip:
                return i, i + 1
    return 0, 1


def demo_C1(lab: Lab) -> Demo:
    """Ids are names: renumber every token at random and the looked-up vectors are unchanged."""
    vocab = lab.recipe.vocab
    W = lab.weight.detach()  # (V, E)
    a, b = _adjacent_pair(lab)
    g = _gen(lab, 1)
    pool = torch.tensor([i for i in range(vocab.size) if i != vocab.pad_id]) if vocab.size > 2 else torch.arange(2)
    c, d = pool[torch.randperm(len(pool), generator=g)[:2]].tolist()
    cos = lambda i, j: float(F.cosine_similarity(W[i], W[j], dim=0))  # noqa: E731
    bench = _bench(lab)
    perm = torch.randperm(bench.weight.shape[0], generator=g)  # new id of each row
    renamed = torch.empty_like(bench.weight)  # (n, E)
    renamed[perm] = bench.weight  # row i moves to row perm[i]
    same = torch.equal(F.embedding(perm[bench.ids], renamed), F.embedding(bench.ids, bench.weight))
    facts = {"adjacent_ids": [a, b], "adjacent_tokens": [_token(lab, a), _token(lab, b)],
             "adjacent_cos": cos(a, b), "random_ids": [c, d],
             "random_tokens": [_token(lab, c), _token(lab, d)], "random_cos": cos(c, d),
             "random_gap": abs(c - d), "renamed_equal": same, **bench.facts(lab)}
    return Demo("C1", same, facts)


def demo_C2(lab: Lab) -> Demo:
    """Embedding(i) is row i of W: checked for every id the batch looks up."""
    emb, W = lab.model.embedding, lab.weight.detach()  # W: (V, E)
    ids = torch.unique(lab.batch.ids)  # (K,) sorted
    with torch.no_grad():
        all_equal = torch.equal(emb(ids), W[ids])  # (K, E) both
        rows = [["id", "token", "equal", "vector"]]
        for i in ids[:SHOW_ROWS].tolist():
            rows.append([i, _token(lab, i), torch.equal(emb(torch.tensor(i)), W[i]), _vec(W[i])])
    scalar_equal = all(r[2] for r in rows[1:])
    V, E = W.shape
    facts = {"vocab_size": V, "dim": E, "weight_shape": [V, E], "ids_checked": len(ids),
             "all_equal": all_equal, "scalar_equal": scalar_equal, "row0_token": _token(lab, 0)}
    ok = all_equal and scalar_equal and list(emb.weight.shape) == [lab.recipe.vocab.size, E]
    return Demo("C2", ok, facts, {"lookups": rows})


def demo_C3(lab: Lab) -> Demo:
    """Shapes: (B, T) → (B, T, E); (T,) → (T, E); () → (E,); an empty (2, 0) → (2, 0, E)."""
    emb, E = lab.model.embedding, lab.weight.shape[1]
    b = _sentences_used(lab)
    ids = lab.batch.ids[:b]  # (b, T)
    one = ids[0, : int(lab.batch.lengths[0])]  # (T0,) the first sentence without pads
    cases = {"batch": ids, "sentence": one, "scalar": ids[0, 0], "empty": torch.zeros(2, 0, dtype=torch.long)}
    rows, ok = [["case", "input_shape", "output_shape", "expected"]], True
    with torch.no_grad():
        for name, x in cases.items():
            out, expected = list(emb(x).shape), list(x.shape) + [E]
            ok &= out == expected
            rows.append([name, list(x.shape), out, expected])
    facts = {"dim": E, "batch_in": rows[1][1], "batch_out": rows[1][2], "sentence_out": rows[2][2],
             "scalar_out": rows[3][2], "empty_out": rows[4][2], "sentences_used": b,
             "sentences": int(lab.batch.ids.shape[0])}
    return Demo("C3", ok, facts, {"shapes": rows})


# ---- C4: the one-hot view ---------------------------------------------------------------------------
def _inf_table(lab: Lab, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, int, bool]:
    """A copy of W (or of the rows ``ids`` use, big tables) with inf in one row no id looks up.

    Returns (table (n, E), ids renumbered into it, the learner's id of the inf row or -1 for an
    extra row, whether every row of W is looked up).
    """
    W = lab.weight.detach()  # (V, E)
    V, E = W.shape
    used = torch.zeros(V, dtype=torch.bool)
    used[ids] = True
    if V * E <= MAX_COPY_FLOATS:
        table, rows = W.clone(), torch.arange(V)
    else:
        rows = torch.sort(torch.cat([used.nonzero()[:, 0], (~used).nonzero()[:1, 0]])).values
        table = W[rows].clone()
    new_ids = torch.searchsorted(rows, ids)
    free = (~used[rows]).nonzero()[:, 0]
    if len(free) == 0:  # every row is looked up: add one extra row to hold the inf
        table, inf_row, vocab_id = torch.cat([table, torch.zeros(1, E)]), len(rows), -1
    else:
        inf_row = int(free[0])
        vocab_id = int(rows[inf_row])
    table[inf_row, 0] = math.inf
    return table, new_ids, vocab_id, bool(used.all())


def demo_C4(lab: Lab) -> Demo:
    """one_hot(ids, V).float() @ W selects the rows a lookup returns, bit for bit; an inf breaks only the matmul."""
    W = lab.weight.detach()  # (V, E)
    V, E = W.shape
    flat = lab.batch.ids.reshape(-1)  # (B·T,)
    n = max(1, min(len(flat), ONE_HOT_MAX_MACS // (V * E)))
    ids = flat[:n]  # (n,)
    one_hot = F.one_hot(ids, V)  # (n, V) int64
    no_float = _error(lambda: one_hot @ W)
    with torch.no_grad():
        product = one_hot.float() @ W  # (n, V) @ (V, E) → (n, E)
        looked_up = lab.model.embedding(ids)  # (n, E)
    max_diff = float((product - looked_up).abs().max())
    bitwise = torch.equal(product, looked_up)
    table, inf_ids, inf_id, every_row_used = _inf_table(lab, ids)
    inf_product = F.one_hot(inf_ids, table.shape[0]).float() @ table  # (n, E), 0·inf = NaN
    inf_lookup = F.embedding(inf_ids, table)  # (n, E)
    facts = {"vocab_size": V, "dim": E, "tokens_compared": n, "tokens": len(flat),
             "one_hot_shape": list(one_hot.shape), "one_hot_dtype": str(one_hot.dtype).replace("torch.", ""),
             "max_diff": max_diff, "bitwise_equal": bitwise, "no_float_error": no_float,
             "inf_row": inf_id, "every_row_used": every_row_used,
             "inf_matmul_nan": bool(inf_product.isnan().any()), "inf_nan_cells": int(inf_product.isnan().sum()),
             "inf_lookup_finite": bool(inf_lookup.isfinite().all()),
             "lookup_cost": E, "matmul_cost": V * E, "cost_ratio": V, "one_hot_max_macs": ONE_HOT_MAX_MACS}
    ok = bitwise and _raised(no_float, "RuntimeError") and facts["inf_matmul_nan"] and facts["inf_lookup_finite"]
    return Demo("C4", ok, facts)


# ---- C5, C14: the parameters -----------------------------------------------------------------
def _parameter_facts(lab: Lab) -> dict[str, Any]:
    emb = lab.model.embedding
    V, E = lab.weight.shape
    names = [name for name, _ in emb.named_parameters()]
    return {"vocab_size": V, "dim": E, "param_names": names,
            "n_params": sum(p.numel() for p in emb.parameters()), "v_times_e": V * E,
            "has_bias": any("bias" in name for name in names)}


def demo_C5(lab: Lab) -> Demo:
    """The layer stores V·E weights, no bias; a longer input makes more lookups, not a bigger table."""
    facts = _parameter_facts(lab)
    b = _sentences_used(lab)
    ids = lab.batch.ids[:b]  # (b, T)
    longer = torch.cat([ids, ids], dim=1)  # (b, 2T): every token twice
    with torch.no_grad():
        out_short, out_long = lab.model.embedding(ids), lab.model.embedding(longer)  # (b, T, E), (b, 2T, E)
    after = sum(p.numel() for p in lab.model.embedding.parameters())
    facts.update({"lookups": ids.numel(), "lookups_longer": longer.numel(), "output_shape": list(out_short.shape),
                  "output_shape_longer": list(out_long.shape), "n_params_after_longer": after})
    ok = (facts["param_names"] == ["weight"] and facts["n_params"] == facts["v_times_e"] == after
          and not facts["has_bias"])
    return Demo("C5", ok, facts)


def demo_C14(lab: Lab) -> Demo:
    """The PAD row is a row of W: it counts in the V·E parameters and sits in the trainable tensor."""
    facts = _parameter_facts(lab)
    pad = lab.recipe.vocab.pad_id
    W = lab.weight.detach()
    facts.update({"pad_id": pad, "pad_row": _vec(W[pad]), "pad_row_params": W.shape[1],
                  "params_without_pad": (W.shape[0] - 1) * W.shape[1],
                  "weight_requires_grad": bool(lab.weight.requires_grad), "pad_row_in_table": 0 <= pad < W.shape[0]})
    ok = facts["n_params"] == facts["v_times_e"] and facts["pad_row_in_table"] and facts["param_names"] == ["weight"]
    return Demo("C14", ok, facts)


# ---- C6, C12: what the layer accepts ---------------------------------------------------------
def demo_C6(lab: Lab) -> Demo:
    """Valid ids are 0..V−1 (num_embeddings = V rows, not a length); other inputs raise."""
    emb, V = lab.model.embedding, lab.recipe.vocab.size
    sentence = lab.batch.ids[0]  # (T,)
    with torch.no_grad():
        errors = {"id_v": _error(lambda: emb(torch.tensor([V]))),
                  "id_negative": _error(lambda: emb(torch.tensor([-1]))),
                  "float_ids": _error(lambda: emb(sentence.float())),
                  "python_list": _error(lambda: emb(sentence.tolist())),
                  "string": _error(lambda: emb(_token(lab, int(sentence[0])))),
                  "int32": _error(lambda: emb(sentence.int()))}
        int32_equal = errors["int32"] is None and torch.equal(emb(sentence.int()), emb(sentence))
        long_len = V + 1 if V < 4096 else None
        long_out = list(emb(torch.arange(long_len) % V).shape) if long_len else None  # (V+1,) → (V+1, E)
    inputs = {"id_v": f"torch.tensor([{V}])", "id_negative": "torch.tensor([-1])",
              "float_ids": "ids.float()", "python_list": repr(sentence.tolist()[:6]),
              "string": repr(_token(lab, int(sentence[0]))), "int32": "ids.int()"}
    rows = [["case", "input", "error", "message"]]
    rows += [[k, inputs[k], e["type"] if e else "—", e["message"] if e else "—"] for k, e in errors.items()]
    facts = {"vocab_size": V, "num_embeddings": emb.num_embeddings, "sentence_length": int(lab.batch.ids.shape[1]),
             "max_id": V - 1, **{f"{k}_error": e for k, e in errors.items()}, "int32_equal": int32_equal,
             "longer_than_v_length": long_len, "longer_than_v_shape": long_out}
    ok = (_raised(errors["id_v"], "IndexError") and _raised(errors["id_negative"], "IndexError")
          and _raised(errors["float_ids"], "RuntimeError") and _raised(errors["python_list"], "TypeError")
          and _raised(errors["string"], "TypeError") and int32_equal and emb.num_embeddings == V)
    return Demo("C6", ok, facts, {"inputs": rows})


def _oov_example(lab: Lab) -> str:
    """A token the learner's vocabulary does not have: one from their sentences if possible."""
    index = lab.recipe.vocab.index
    for sentence in lab.recipe.sentences:
        for tok in sentence:
            if tok not in index:
                return tok
    tok = "정말"
    while tok in index:
        tok += "?"
    return tok


def demo_C12(lab: Lab) -> Demo:
    """Preprocessing maps strings and unknown tokens to ids; the layer reads neither."""
    vocab, emb = lab.recipe.vocab, lab.model.embedding
    oov = _oov_example(lab)
    with torch.no_grad():
        tensor_of_str = _error(lambda: torch.tensor([oov]))
        str_input = _error(lambda: emb(oov))
        out_of_range = _error(lambda: emb(torch.tensor([vocab.size])))
    facts = {"pad_id": vocab.pad_id, "unk_id": vocab.unk_id, "padding_idx": emb.padding_idx,
             "pad_token": _token(lab, vocab.pad_id), "unk_token": _token(lab, vocab.unk_id),
             "ids_agree": emb.padding_idx == vocab.pad_id, "oov_token": oov, "oov_encoded": vocab.encode([oov])[0],
             "tensor_of_str_error": tensor_of_str, "str_input_error": str_input,
             "out_of_range_id": vocab.size, "out_of_range_error": out_of_range}
    ok = (facts["ids_agree"] and facts["oov_encoded"] == vocab.unk_id and _raised(tensor_of_str, "ValueError")
          and _raised(str_input, "TypeError") and _raised(out_of_range, "IndexError"))
    return Demo("C12", ok, facts)


# ---- C7, C9: a fresh table knows nothing ---------------------------------------------------------
def _normal_stats(x: torch.Tensor) -> dict[str, float]:
    x = x.reshape(-1).double()
    return {"mean": float(x.mean()), "std": float(x.std(correction=0)),
            "within_1sd": float((x.abs() < 1).double().mean()), "within_2sd": float((x.abs() < 2).double().mean())}


def demo_C7(lab: Lab) -> Demo:
    """A fresh table's ordinary rows are N(0, 1) draws (same stream as nn.Embedding); its PAD row is 0."""
    vocab, cfg = lab.recipe.vocab, lab.recipe.config
    V, E, pad = vocab.size, cfg.embedding_dim, vocab.pad_id
    small = V * E <= MAX_COPY_FLOATS
    fresh = seeded_embedding_weight(V, E, pad, cfg.seed) if small else torch.from_numpy(_fresh_table(lab))  # (V, E)
    rows = max(2, min(V, STATS_MAX_FLOATS // E))  # the first rows: all of them unless the table is big
    ordinary = torch.arange(rows) != pad  # (rows,)
    n = int(ordinary.sum()) * E
    stats = _normal_stats(fresh[:rows][ordinary])
    now = _normal_stats(lab.weight.detach()[:rows][ordinary])
    z_mean = stats["mean"] * math.sqrt(n)  # ~N(0, 1) for N(0, 1) draws
    z_var = (stats["std"] ** 2 - 1) / math.sqrt(2 / n) if n > 0 else 0.0  # ~N(0, 1) for large n
    same_as_nn = None
    if small:  # nn.Embedding draws from the global RNG: fork it, never touch it
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(cfg.seed)
            same_as_nn = torch.equal(nn.Embedding(V, E, padding_idx=pad).weight.detach(), fresh)
    facts = {"vocab_size": V, "dim": E, "seed": cfg.seed, "samples": n, "rows_used": rows, "fresh_mean": stats["mean"],
             "fresh_std": stats["std"], "fresh_within_1sd": stats["within_1sd"],
             "fresh_within_2sd": stats["within_2sd"], "z_mean": z_mean, "z_var": z_var,
             "pad_row_zero": bool(torch.count_nonzero(fresh[pad]) == 0), "same_as_nn_embedding": same_as_nn,
             "steps": lab.steps, "now_mean": now["mean"], "now_std": now["std"]}
    ok = facts["pad_row_zero"] and abs(z_mean) < 5 and abs(z_var) < 5 and same_as_nn is not False
    return Demo("C7", ok, facts)


def _train_table(lab: Lab, bench: _Bench, objective: str) -> torch.Tensor:
    """W after TRAIN_STEPS steps of the learner's optimizer on a copy, for one objective. (n, E)

    "mine": the learner's loss; "labels_shifted": every label moved to the next class;
    "labels_all_first": every label set to the first class; "sign_flipped": minus the sum of logits.
    """
    cfg, n_classes = lab.recipe.config, max(2, len(lab.recipe.classes))
    labels = lab.recipe.labels[: bench.ids.shape[0]]
    emb = bench.embedding()
    model = _model_copy(lab, emb)
    opt = make_optimizer(cfg.optimizer, model.parameters(), cfg.lr, cfg.weight_decay)
    for _ in range(TRAIN_STEPS):
        opt.zero_grad()
        logits = model(bench.ids, bench.lengths)  # (b, C)
        if objective in ("mine", "sign_flipped") and not all(label is not None for label in labels):
            loss = -logits.sum() if objective == "sign_flipped" else logits.sum()
        else:
            target = [0 if objective == "labels_all_first" else (label + (objective == "labels_shifted")) % n_classes
                      for label in labels]
            loss = F.cross_entropy(logits, torch.tensor(target))  # (b,) targets
        loss.backward()
        opt.step()
    return emb.weight.detach()


def _objective_tables(lab: Lab, bench: _Bench) -> tuple[torch.Tensor, torch.Tensor, str]:
    """The learner's objective vs the first other objective that trains the copy differently.

    Shifting every label can give the same gradient (identical sentences with balanced labels);
    then every label is set to the first class. Returns both tables and the other objective.
    """
    mine = _train_table(lab, bench, "mine")
    labelled = all(label is not None for label in lab.recipe.labels[: bench.ids.shape[0]])
    for other in (("labels_shifted", "labels_all_first") if labelled else ("sign_flipped",)):
        table = _train_table(lab, bench, other)
        if not torch.equal(table, mine):
            break
    return mine, table, other


def demo_C9(lab: Lab) -> Demo:
    """Vectors take whatever shape the objective gives them; an untrained table's PCA is noise."""
    V, E = lab.weight.shape
    seed = lab.recipe.config.seed
    k = min(E, 3)
    keep, _ = _pca_rows(lab)
    fresh_frame = fit_frame([_fresh_table(lab)[keep]], n_components=k)
    now_frame = fit_frame([lab.weight.detach().numpy()[keep]], n_components=k)
    random_frame = fit_frame([np.random.default_rng(seed).standard_normal((len(keep), E))], n_components=k)
    spectra = (fresh_frame.spectrum, now_frame.spectrum, random_frame.spectrum)
    rows = [["component", "fresh_share", "now_share", "random_share"]]
    for c in range(min(SHOW_ROWS, max(len(s) for s in spectra))):
        rows.append([c + 1] + [round(float(s[c]), 4) if c < len(s) else None for s in spectra])
    bench = _bench(lab)
    mine, other, kind = _objective_tables(lab, bench)
    differ = (mine != other).any(dim=1)  # (n,)
    facts = {"vocab_size": V, "dim": E, "steps": lab.steps, "one_dimension": E == 1, "pca_rows": len(keep),
             "fresh_top_share": float(fresh_frame.spectrum[0]), "now_top_share": float(now_frame.spectrum[0]),
             "random_top_share": float(random_frame.spectrum[0]), "flat_share": 1 / min(V, E),
             "fresh_flat": spectrum_is_flat(fresh_frame, len(keep), seed) if E > 1 else None,
             "now_flat": spectrum_is_flat(now_frame, len(keep), seed) if E > 1 and lab.steps > 0 else None,
             "train_steps": TRAIN_STEPS, "other_objective": kind, "rows_differing": int(differ.sum()),
             "objective_max_diff": float((mine - other).abs().max()), **bench.facts(lab)}
    return Demo("C9", facts["rows_differing"] > 0, facts, {"spectrum": rows})


# ---- C8: what training does to the rows ----------------------------------------------------------
def _backward(lab: Lab, bench: _Bench):
    """One backward pass of the learner's loss on a copy; also dL/d(vector) at every position."""
    emb = bench.embedding()
    model = _model_copy(lab, emb)
    seen: list[torch.Tensor] = []

    def keep(_module, _inputs, output):
        output.retain_grad()
        seen.append(output)

    hook = emb.register_forward_hook(keep)
    loss, kind = _model_loss(lab, model, bench)
    loss.backward()
    hook.remove()
    return emb, model, seen[0].grad, kind  # per-position grads: (b, T, E)


def _absent_row_moves(lab: Lab, bench: _Bench, row: int) -> dict[str, float]:
    """Step 1 on the batch, step 2 with ``row`` replaced by PAD: how far ``row`` moves in step 2.

    The probe loss gives ``row`` a sizeable gradient in step 1 even when the learner's loss has
    saturated (a tiny gradient would move Adam's row but vanish in SGD's rounding).
    """
    second = torch.where(bench.ids == row, bench.pad, bench.ids)  # (b, T) row absent
    moves = {}
    for name in ("sgd", "momentum", "adam", "adamw"):
        emb = bench.embedding()
        opt = make_optimizer(name, [emb.weight], lab.recipe.config.lr, 0.0)
        g = _gen(lab, 8)
        for ids in (bench.ids, second):
            before = emb.weight.detach()[row].clone()  # (E,)
            opt.zero_grad()
            _probe_loss(emb, ids, g).backward()
            opt.step()
        moves[name] = float((emb.weight.detach()[row] - before).norm())
    return moves


def demo_C8(lab: Lab) -> Demo:
    """The gradient reaches only the looked-up rows (a repeated id: the sum over its positions); ids never change."""
    bench = _bench(lab)
    emb, model, per_position, kind = _backward(lab, bench)
    grad = emb.weight.grad  # (n, E)
    unused = torch.ones(grad.shape[0], dtype=torch.bool)
    unused[bench.ids.reshape(-1)] = False
    row, count = _most_repeated(bench.ids, grad.shape[0], bench.pad)
    facts = {"loss_kind": kind, "rows_looked_up": int((~unused).sum()), "rows_not_looked_up": int(unused.sum()),
             "unused_grad_max": float(grad[unused].abs().max()) if bool(unused.any()) else 0.0,
             "pad_grad_max": float(grad[bench.pad].abs().max()), "grad_rows": _grad_answers(grad, bench.ids, bench.pad),
             "repeated_id": None if row is None else bench.vocab_id(row), "repeated_count": count,
             **bench.facts(lab)}
    tables, sum_ok, moves = {}, True, {}
    if row is not None:
        at_row = per_position[bench.ids == row]  # (count, E)
        facts["repeated_sum_diff"] = float((at_row.sum(dim=0) - grad[row]).abs().max())
        sum_ok = bool(torch.allclose(at_row.sum(dim=0), grad[row], rtol=1e-5, atol=1e-6))
        tables["positions"] = [["position", "grad"]] + [
            [list(p), _vec(v)] for p, v in zip((bench.ids == row).nonzero().tolist()[:SHOW_ROWS], at_row)]
        tables["positions"].append(["Σ", _vec(at_row.sum(dim=0))])
        tables["positions"].append(["dL/dW", _vec(grad[row])])
        moves = _absent_row_moves(lab, bench, row)
        facts.update({f"absent_move_{k}": v for k, v in moves.items()})
    facts["repeated_sum_close"] = sum_ok
    facts.update(_step_facts(lab, bench, emb, model))
    ok = (facts["unused_grad_max"] == 0.0 and facts["pad_grad_max"] == 0.0 and sum_ok and facts["ids_unchanged"]
          and (not moves or (moves["sgd"] == 0.0 and moves["momentum"] > 0 and moves["adam"] > 0)))
    return Demo("C8", ok, facts, tables)


def _step_facts(lab: Lab, bench: _Bench, emb: nn.Embedding, model: nn.Module) -> dict[str, Any]:
    """One optimizer step (the learner's optimizer, fresh state): rows move, ids stay."""
    cfg, vocab = lab.recipe.config, lab.recipe.vocab
    sentences = lab.batch.tokens[: bench.ids.shape[0]]
    ids_before = [vocab.encode(s) for s in sentences]
    before = emb.weight.detach().clone()  # (n, E)
    make_optimizer(cfg.optimizer, model.parameters(), cfg.lr, cfg.weight_decay).step()
    moved = (emb.weight.detach() - before).norm(dim=1) > 0  # (n,)
    used = torch.zeros_like(moved)
    used[bench.ids.reshape(-1)] = True
    return {"optimizer": cfg.optimizer, "rows_moved": int(moved.sum()),
            "rows_moved_not_looked_up": int((moved & ~used).sum()),
            "ids_unchanged": [vocab.encode(s) for s in sentences] == ids_before,
            "lookup_after_is_row": torch.equal(emb(bench.ids).detach(), emb.weight.detach()[bench.ids])}


# ---- C10, C11: same id → same vector; UNK vs PAD ---------------------------------------------------
def demo_C10(lab: Lab) -> Demo:
    """The same id gives bitwise the same vector at every position; an LSTM after it gives context."""
    bench = _bench(lab)
    vectors = F.embedding(bench.ids, bench.weight)  # (b, T, E)
    row, count = _most_repeated(bench.ids, bench.weight.shape[0], bench.pad)
    ids, constructed = bench.ids, False
    if count < 2:  # no ordinary id repeats: look one up in two made-up sentences
        row = row if row is not None else bench.pad
        other = bench.pad if row != bench.pad else (row + 1) % bench.weight.shape[0]
        ids, constructed = torch.tensor([[row, other], [other, row]]), True
        vectors = F.embedding(ids, bench.weight)  # (2, 2, E)
    where = (ids == row).nonzero()  # (k, 2) positions (sentence, t)
    at = vectors[ids == row]  # (k, E)
    same = all(torch.equal(at[0], v) for v in at) and torch.equal(vectors, bench.weight[ids])
    with torch.no_grad():
        outputs, _ = _seeded_lstm(bench.weight.shape[1], _gen(lab, 10))(vectors)  # (b, T, H)
    context = outputs[ids == row]  # (k, H)
    rows = [["position", "vector", "lstm_output"]]
    rows += [[p, _vec(v), _vec(h)] for p, v, h in zip(where.tolist()[:SHOW_ROWS], at, context)]
    facts = {"id": bench.vocab_id(row), "token": _token(lab, bench.vocab_id(row)), "positions": len(where),
             "constructed": constructed, "all_equal": same,
             "lstm_max_diff": float((context - context[0]).abs().max()), **bench.facts(lab)}
    return Demo("C10", same, facts, {"positions": rows})


def demo_C11(lab: Lab) -> Demo:
    """UNK (a real token missing from the vocabulary) and PAD (an empty slot) have different ids."""
    vocab, batch = lab.recipe.vocab, lab.batch
    ids, mask = batch.ids, batch.mask  # (B, T)
    oov = [tok for sentence in batch.tokens for tok in sentence if tok not in vocab.index]
    expected = torch.full_like(ids, vocab.pad_id)  # what each cell must hold, from the tokens
    for b, sentence in enumerate(batch.tokens):
        if sentence:
            expected[b, : len(sentence)] = torch.tensor(vocab.encode(sentence))
    W = lab.weight.detach()
    facts = {"unk_id": vocab.unk_id, "pad_id": vocab.pad_id, "unk_token": _token(lab, vocab.unk_id),
             "pad_token": _token(lab, vocab.pad_id), "ids_differ": vocab.unk_id != vocab.pad_id,
             "unk_cells": int(((ids == vocab.unk_id) & mask).sum()), "oov_count": len(oov),
             "oov_tokens": list(dict.fromkeys(oov))[:SHOW_ROWS], "pad_cells": int((~mask).sum()),
             "pad_typed": int(((ids == vocab.pad_id) & mask).sum()), "cells": ids.numel(),
             "unk_row": _vec(W[vocab.unk_id]), "pad_row": _vec(W[vocab.pad_id])}
    rows = [["sentence", "tokens", "ids"]]
    rows += [[b, " ".join(s), ids[b].tolist()] for b, s in enumerate(batch.tokens[:SHOW_ROWS])]
    ok = facts["ids_differ"] and torch.equal(ids, expected) and bool((ids[~mask] == vocab.pad_id).all())
    return Demo("C11", ok, facts, {"batch": rows})


# ---- C13: padding_idx ---------------------------------------------------------------------------------
def _with_pad_column(bench: _Bench) -> tuple[torch.Tensor, bool]:
    """The bench's ids, with one PAD column appended if no PAD is looked up. (b, T or T+1)"""
    if bool((bench.ids == bench.pad).any()):
        return bench.ids, True
    return torch.cat([bench.ids, torch.full((bench.ids.shape[0], 1), bench.pad)], dim=1), False


def _pad_gradient(lab: Lab, bench: _Bench) -> dict[str, Any]:
    """Every position gets a random non-zero gradient; padding_idx still leaves the PAD row's at 0."""
    ids, in_batch = _with_pad_column(bench)
    with_idx = bench.embedding()
    _probe_loss(with_idx, ids, _gen(lab, 13)).backward()
    without = nn.Embedding.from_pretrained(bench.weight.clone(), freeze=False)  # no padding_idx
    _probe_loss(without, ids, _gen(lab, 13)).backward()
    return {"pad_in_batch": in_batch, "pad_cells": int((ids == bench.pad).sum()),
            "pad_grad_max": float(with_idx.weight.grad[bench.pad].abs().max()),
            "pad_grad_without_idx": float(without.weight.grad[bench.pad].norm()),
            "grad_rows": _grad_answers(with_idx.weight.grad, ids, bench.pad)}


def _train_pad(lab: Lab, bench: _Bench, name: str, pad_row: torch.Tensor, lr: float, wd: float, steps: int):
    """The PAD row after ``steps`` probe-loss steps of ``name`` (first sentence + a PAD), starting from ``pad_row``."""
    emb = bench.embedding(pad_row=pad_row)
    ids = torch.cat([bench.ids[:1], torch.full((1, 1), bench.pad)], dim=1)  # (1, T+1) first sentence + a PAD
    opt = make_optimizer(name, [emb.weight], lr, wd)
    g = _gen(lab, 131)
    for _ in range(steps):
        opt.zero_grad()
        _probe_loss(emb, ids, g).backward()
        opt.step()
    return emb.weight.detach()[bench.pad]  # (E,)


def _pad_vector(lab: Lab) -> torch.Tensor:
    """The PAD row a learner might set by hand: theirs if it is not zero, else 0.5 everywhere. (E,)"""
    row = lab.weight.detach()[lab.recipe.vocab.pad_id]
    return row.clone() if bool(row.any()) else torch.full_like(row, 0.5)


def _pad_rules(lab: Lab, bench: _Bench) -> dict[str, Any]:
    """Zero PAD stays zero; a hand-set PAD is looked up, not re-zeroed, and shrunk by weight decay."""
    cfg, E = lab.recipe.config, bench.weight.shape[1]
    zero, v = torch.zeros(E), _pad_vector(lab)
    facts: dict[str, Any] = {
        f"zero_after_{n}": float(_train_pad(lab, bench, n, zero, cfg.lr, 0.1, TRAIN_STEPS).abs().max())
        for n in ("sgd", "momentum", "adam", "adamw")}
    emb = bench.embedding(pad_row=v)
    with torch.no_grad():
        looked_up = emb(torch.tensor(bench.pad))  # (E,)
    after = _train_pad(lab, bench, "sgd", v, cfg.lr, 0.0, TRAIN_STEPS)
    start = torch.full((E,), 0.5)  # a fixed start, so "Adam's L2 is faster" does not hinge on the scale
    adam, adamw = (_train_pad(lab, bench, n, start, DECAY_LR, DECAY, DECAY_STEPS) for n in ("adam", "adamw"))
    W = bench.weight.clone()
    W[bench.pad] = v
    pretrained = nn.Embedding.from_pretrained(W, padding_idx=bench.pad).weight[bench.pad]
    V = lab.recipe.vocab.size
    facts.update({"hand_vector": _vec(v), "hand_lookup_equal": torch.equal(looked_up, v),
                  "hand_kept_after_steps": torch.equal(after, v), "decay_lr": DECAY_LR, "decay": DECAY,
                  "decay_steps": DECAY_STEPS, "norm_start": float(start.norm()), "norm_adam_l2": float(adam.norm()),
                  "norm_adamw": float(adamw.norm()), "from_pretrained_kept": torch.equal(pretrained, v),
                  "minus_one_means": nn.Embedding(V, E, padding_idx=-1, device="meta").padding_idx,
                  "out_of_range_error": _error(lambda: nn.Embedding(V, E, padding_idx=V, device="meta"))})
    return facts


def demo_C13(lab: Lab) -> Demo:
    """padding_idx: no gradient to the PAD row, zero stays zero, but nothing re-zeroes a hand-set row."""
    bench = _bench(lab)
    facts = {"pad_id": lab.recipe.vocab.pad_id, "vocab_size": lab.recipe.vocab.size,
             **_pad_gradient(lab, bench), **_pad_rules(lab, bench), **bench.facts(lab)}
    zero_kept = all(facts[f"zero_after_{n}"] == 0.0 for n in ("sgd", "momentum", "adam", "adamw"))
    ok = (facts["pad_grad_max"] == 0.0 and zero_kept and facts["hand_lookup_equal"] and facts["hand_kept_after_steps"]
          and facts["norm_adam_l2"] < facts["norm_adamw"] < facts["norm_start"] and facts["from_pretrained_kept"]
          and facts["minus_one_means"] == facts["vocab_size"] - 1
          and _raised(facts["out_of_range_error"], "AssertionError"))
    return Demo("C13", ok, facts)


# ---- C15: zero vectors are still computed on --------------------------------------------------------
@torch.no_grad()
def _lstm_pads(lab: Lab, bench: _Bench) -> dict[str, Any]:
    """An LSTM's final state with and without zero inputs after the shortest sentence."""
    x_all = F.embedding(bench.ids, bench.weight) * bench.mask.unsqueeze(-1)  # (b, T, E) real tokens only
    live = x_all.any(dim=2).any(dim=1)  # (b,) sentences with a non-zero input
    if bool(live.any()):  # the shortest such sentence
        b = int(torch.where(live, bench.lengths, bench.lengths.max() + 1).argmin())
        length = int(bench.lengths[b])
        x = x_all[b: b + 1, :length]  # (1, L, E)
    else:  # only zero rows typed (e.g. <PAD> as a word): one token of the first non-zero row
        b, length = None, 1
        rows = bench.weight.any(dim=1).nonzero()[:1, 0]
        x = bench.weight[rows][None] if len(rows) else torch.ones(1, 1, bench.weight.shape[1])  # (1, 1, E)
    n_pads = max(1, bench.ids.shape[1] - length)
    padded = torch.cat([x, torch.zeros(1, n_pads, x.shape[2])], dim=1)  # (1, L + n_pads, E)
    facts: dict[str, Any] = {"sentence": b, "length": length, "zero_steps": n_pads}
    for bias in (True, False):
        lstm = _seeded_lstm(x.shape[2], _gen(lab, 15), bias=bias)
        _, (h_real, _) = lstm(x)  # (1, 1, H)
        _, (h_pad, _) = lstm(padded)
        facts[f"state_diff_{'bias' if bias else 'no_bias'}"] = float((h_pad - h_real).abs().max())
    return facts


@torch.no_grad()
def _packed(lab: Lab, bench: _Bench) -> dict[str, Any]:
    """pack_padded_sequence over the padded batch ≈ running each sentence alone, unpadded."""
    k = min(LSTM_SENTENCES, bench.ids.shape[0])
    x = F.embedding(bench.ids[:k], bench.weight)  # (k, T, E)
    lstm = _seeded_lstm(x.shape[2], _gen(lab, 16))
    packed = pack_padded_sequence(x, bench.lengths[:k], batch_first=True, enforce_sorted=False)
    _, (h_packed, _) = lstm(packed)  # (1, k, H)
    alone = torch.cat([lstm(x[i: i + 1, : int(bench.lengths[i])])[1][0] for i in range(k)], dim=1)  # (1, k, H)
    _, (h_padded, _) = lstm(x)  # (1, k, H), pads included
    return {"packed_max_diff": float((h_packed - alone).abs().max()),
            "packed_close": bool(torch.allclose(h_packed, alone, atol=1e-6)),
            "padded_max_diff": float((h_padded - alone).abs().max())}


def demo_C15(lab: Lab) -> Demo:
    """Zero pads still go through the computation: LSTM state moves, a plain mean is diluted by L/T."""
    bench = _bench(lab)
    facts = {**_lstm_pads(lab, bench), **_packed(lab, bench), **bench.facts(lab)}
    x = F.embedding(bench.ids, bench.weight)  # (b, T, E)
    T = x.shape[1]
    length = bench.lengths.unsqueeze(1).float()  # (b, 1)
    mask = bench.mask.unsqueeze(-1)  # (b, T, 1)
    naive = x.mean(dim=1)  # (b, E), pads in the denominator
    masked = (x * mask).sum(dim=1) / length  # (b, E)
    pad_part = (x * ~mask).sum(dim=1) / T  # (b, E): zero when the PAD row is zero
    mean_ok = bool(torch.allclose(naive, masked * length / T + pad_part, atol=1e-6))
    rows = [["sentence", "length", "ratio", "naive_norm", "masked_norm"]]
    rows += [[i, int(bench.lengths[i]), round(int(bench.lengths[i]) / T, 4), round(float(naive[i].norm()), 4),
              round(float(masked[i].norm()), 4)] for i in range(min(SHOW_ROWS, x.shape[0]))]
    facts.update({"padded_length": T, "pad_row_zero": not bool(bench.weight[bench.pad].any()), "mean_relation": mean_ok,
                  "output_shape": list(x.shape)})
    ok = (facts["state_diff_bias"] > 0 and facts["state_diff_no_bias"] > 0 and facts["packed_close"] and mean_ok)
    return Demo("C15", ok, facts, {"means": rows})


# ---- C16: the chapter's own code -------------------------------------------------------------------
def _run_chapter(seed: int) -> dict[str, Any]:
    """Execute CHAPTER_CODE as written; nn.Embedding's global-RNG init runs in a forked RNG."""
    namespace: dict[str, Any] = {}
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        exec(compile(CHAPTER_CODE, "<chapter 4.4>", "exec"), namespace)  # noqa: S102 - fixed text
    return namespace


def _learner_through_chapter(lab: Lab) -> tuple[list | None, dict[str, str] | None]:
    """The chapter's preprocessing lines run on the learner's vocabulary and sentences."""
    namespace: dict[str, Any] = {"torch": torch, "vocab": dict(lab.recipe.vocab.index),
                                 "tokens": [list(s) for s in lab.recipe.sentences]}
    err = _error(lambda: exec(compile(CHAPTER_PREPROCESSING, "<chapter 4.4>", "exec"), namespace))  # noqa: S102
    return (namespace["inputs"].tolist() if err is None else None), err


def demo_C16(lab: Lab) -> Demo:
    """The chapter's code, run as written: ids [[2, 0, 3], [2, 4, 1]], shape (2, 3, 3), vectors[1, 2] = 0."""
    seed = lab.recipe.config.seed
    ns = _run_chapter(seed)
    inputs, vectors, weight = ns["inputs"], ns["vectors"].detach(), ns["embedding"].weight.detach()
    learner_ids, learner_error = _learner_through_chapter(lab)
    chapter_ids = [list(row) for row in CHAPTER_IDS]
    facts = {"inputs": inputs.tolist(), "inputs_as_chapter": inputs.tolist() == chapter_ids,
             "vectors_shape": list(vectors.shape), "pad_vector": vectors[1, 2].tolist(),
             "pad_vector_zero": bool(torch.count_nonzero(vectors[1, 2]) == 0),
             "unknown_became": int(inputs[0, 1]), "seed": seed,
             "same_as_seeded": torch.equal(weight, seeded_embedding_weight(6, 3, 1, seed)),
             "learner_ids": learner_ids, "learner_error": learner_error,
             "learner_matches_batch": learner_ids == lab.batch.ids.tolist(),
             "learner_is_chapter": lab.batch.ids.tolist() == chapter_ids}
    rows = [["token", "id", "vector"]] + [[t, i, _vec(weight[i])] for t, i in ns["vocab"].items()]
    ok = facts["inputs_as_chapter"] and facts["vectors_shape"] == [2, 3, 3] and facts["pad_vector_zero"]
    return Demo("C16", ok, facts, {"chapter_table": rows})


# ---- X1–X7: pitfalls after the chapter -----------------------------------------------------------
def demo_X1(lab: Lab) -> Demo:
    """pad_sequence pads with 0 unless told: 0 is whatever token has id 0 (the chapter's <UNK>)."""
    vocab, batch = lab.recipe.vocab, lab.batch
    seqs = [torch.tensor(vocab.encode(s), dtype=torch.long) for s in batch.tokens]  # B × (L_b,)
    default = pad_sequence(seqs, batch_first=True)  # (B, L_max), pads = 0
    with_pad = pad_sequence(seqs, batch_first=True, padding_value=vocab.pad_id)  # (B, L_max)
    L = default.shape[1]
    rest_is_pad = bool((batch.ids[:, L:] == vocab.pad_id).all())  # a fixed T longer than L_max
    empty = ~batch.mask[:, :L]  # (B, L) cells that padding fills
    facts = {"pad_id": vocab.pad_id, "token_at_0": _token(lab, 0), "filled_cells": int(empty.sum()),
             "default_value": 0, "default_equals_batch": torch.equal(default, batch.ids[:, :L]) and rest_is_pad,
             "with_pad_equals_batch": torch.equal(with_pad, batch.ids[:, :L]) and rest_is_pad,
             "default_wrote": int((default[empty] == 0).sum()), "pad_is_zero": vocab.pad_id == 0}
    rows = [["sentence", "default", "padding_value_pad"]]
    rows += [[b, default[b].tolist(), with_pad[b].tolist()] for b in range(min(SHOW_ROWS, len(seqs)))]
    expect_default = vocab.pad_id == 0 or facts["filled_cells"] == 0
    ok = facts["with_pad_equals_batch"] and facts["default_equals_batch"] == expect_default
    return Demo("X1", ok, facts, {"padded": rows})


def demo_X2(lab: Lab) -> Demo:
    """max_norm rescales the looked-up rows of the weight itself, even under torch.no_grad()."""
    bench = _bench(lab)
    used = torch.unique(bench.ids)  # (K,)
    norms = bench.weight.norm(dim=1)  # (n,)
    top = float(norms[used].max())
    max_norm = top / 2 if top > 0 else 1.0
    emb = bench.embedding(max_norm=max_norm)
    before = emb.weight.detach().clone()  # (n, E)
    with torch.no_grad():
        emb(bench.ids)  # the forward pass renormalizes rows of emb.weight in place
    after = emb.weight.detach()
    unused = torch.ones(len(norms), dtype=torch.bool)
    unused[used] = False
    changed = (after != before).any(dim=1)  # (n,)
    facts = {"max_norm": max_norm, "rows_looked_up": len(used), "rows_changed": int(changed.sum()),
             "largest_norm_before": top, "largest_norm_after": float(after[used].norm(dim=1).max()),
             "unused_unchanged": torch.equal(after[unused], before[unused]), "under_no_grad": True, **bench.facts(lab)}
    rows = [["id", "token", "looked_up", "norm_before", "norm_after"]]
    for r in torch.cat([used[:SHOW_ROWS], unused.nonzero()[:3, 0]]).tolist():
        rows.append([bench.vocab_id(r), _token(lab, bench.vocab_id(r)), not bool(unused[r]),
                     round(float(before[r].norm()), 4), round(float(after[r].norm()), 4)])
    ok = (facts["largest_norm_after"] <= max_norm * (1 + 1e-5) and facts["unused_unchanged"]
          and (top == 0 or facts["rows_changed"] > 0))
    return Demo("X2", ok, facts, {"norms": rows})


def demo_X3(lab: Lab) -> Demo:
    """scale_grad_by_freq=True divides each row's gradient by how often its id occurs in the batch."""
    bench = _bench(lab)
    plain, scaled = bench.embedding(), bench.embedding(scale_grad_by_freq=True)
    for emb in (plain, scaled):
        _probe_loss(emb, bench.ids, _gen(lab, 3)).backward()
    counts = torch.bincount(bench.ids.reshape(-1), minlength=bench.weight.shape[0])  # (n,)
    used = (counts > 0).nonzero()[:, 0]
    used = used[used != bench.pad]  # (K,) the PAD row has no gradient either way
    g_plain, g_scaled = plain.weight.grad[used], scaled.weight.grad[used]  # (K, E)
    restored = g_scaled * counts[used].unsqueeze(1)  # (K, E)
    rows = [["id", "token", "count", "plain_norm", "scaled_norm"]]
    rows += [[bench.vocab_id(r), _token(lab, bench.vocab_id(r)), int(counts[r]), round(float(p.norm()), 4),
              round(float(s.norm()), 4)] for r, p, s in zip(used.tolist()[:SHOW_ROWS], g_plain, g_scaled)]
    facts = {"rows_checked": len(used), "max_count": int(counts[used].max()) if len(used) else 0,
             "max_diff": float((restored - g_plain).abs().max()) if len(used) else 0.0,
             "close": bool(torch.allclose(restored, g_plain, rtol=1e-5, atol=1e-6)), **bench.facts(lab)}
    return Demo("X3", facts["close"], facts, {"grads": rows})


def _sparse_step(bench: _Bench, lab: Lab, name: str) -> dict[str, str] | None:
    emb = bench.embedding(sparse=True)
    _probe_loss(emb, bench.ids, _gen(lab, 4)).backward()
    lr = lab.recipe.config.lr
    opts = {"sgd": lambda p: torch.optim.SGD(p, lr=lr), "sparse_adam": lambda p: torch.optim.SparseAdam(p, lr=lr),
            "adam": lambda p: torch.optim.Adam(p, lr=lr), "adamw": lambda p: torch.optim.AdamW(p, lr=lr)}
    return _error(lambda: opts[name]([emb.weight]).step())


def demo_X4(lab: Lab) -> Demo:
    """sparse=True: the gradient is a sparse tensor of the looked-up rows; SGD and SparseAdam take it, Adam(W) raise."""
    bench = _bench(lab)
    sparse, dense = bench.embedding(sparse=True), bench.embedding()
    for emb in (sparse, dense):
        _probe_loss(emb, bench.ids, _gen(lab, 4)).backward()
    g = sparse.weight.grad
    errors = {name: _sparse_step(bench, lab, name) for name in ("sgd", "sparse_adam", "adam", "adamw")}
    V, E = lab.weight.shape
    facts = {"is_sparse": bool(g.is_sparse), "layout": str(g.layout).replace("torch.", ""),
             "rows_stored": int(g.coalesce().indices().shape[1]), "vocab_size": V, "dim": E,
             "dense_floats": V * E, "dense_max_diff": float((g.to_dense() - dense.weight.grad).abs().max()),
             "same_as_dense": bool(torch.allclose(g.to_dense(), dense.weight.grad, rtol=1e-5, atol=1e-6)),
             **{f"{k}_error": v for k, v in errors.items()}}
    ok = (facts["is_sparse"] and facts["same_as_dense"] and errors["sgd"] is None and errors["sparse_adam"] is None
          and _raised(errors["adam"], "RuntimeError") and _raised(errors["adamw"], "RuntimeError"))
    return Demo("X4", ok, facts)


def demo_X5(lab: Lab) -> Demo:
    """from_pretrained(W) freezes by default and uses W's memory: change W and the layer changes."""
    given = _bench(lab).weight  # (n, E) a private copy: we may write into it
    frozen = nn.Embedding.from_pretrained(given)
    trainable = nn.Embedding.from_pretrained(given, freeze=False)
    before = float(frozen.weight[0, 0])
    given[0, 0] += 1.0  # write into the tensor we passed
    facts = {"default_requires_grad": bool(frozen.weight.requires_grad),
             "freeze_false_requires_grad": bool(trainable.weight.requires_grad),
             "shares_memory": frozen.weight.data_ptr() == given.data_ptr(),
             "freeze_false_shares_memory": trainable.weight.data_ptr() == given.data_ptr(),
             "value_before": before, "value_after": float(frozen.weight[0, 0]),
             "lab_requires_grad": bool(lab.weight.requires_grad)}
    ok = (not facts["default_requires_grad"] and facts["shares_memory"] and facts["value_after"] != before
          and facts["freeze_false_requires_grad"] and facts["freeze_false_shares_memory"])
    return Demo("X5", ok, facts)


def demo_X6(lab: Lab) -> Demo:
    """EmbeddingBag(mode="mean", padding_idx=PAD) is the mean over non-PAD ids, whatever the PAD row holds."""
    bench = _bench(lab)
    bag = nn.EmbeddingBag.from_pretrained(bench.weight, mode="mean", padding_idx=bench.pad)
    odd = bench.weight.clone()
    odd[bench.pad] = 7.0  # a PAD row nobody would average in
    odd_bag = nn.EmbeddingBag.from_pretrained(odd, mode="mean", padding_idx=bench.pad)
    with torch.no_grad():
        pooled, pooled_odd = bag(bench.ids), odd_bag(bench.ids)  # (b, E) each
    x = F.embedding(bench.ids, bench.weight)  # (b, T, E)
    keep = (bench.ids != bench.pad).unsqueeze(-1)  # (b, T, 1)
    masked = (x * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1)  # (b, E)
    naive = x.mean(dim=1)  # (b, E)
    facts = {"max_diff": float((pooled - masked).abs().max()), "close": bool(torch.allclose(pooled, masked, atol=1e-6)),
             "ignores_pad_row": bool(torch.allclose(pooled_odd, pooled, atol=1e-6)),
             "naive_max_diff": float((naive - masked).abs().max()), "pad_cells": int((~keep).sum()),
             **bench.facts(lab)}
    return Demo("X6", facts["close"] and facts["ignores_pad_row"], facts)


def _x7_snapshots(lab: Lab) -> tuple[list[int], list[np.ndarray], int, bool]:
    """Stored W snapshots (evenly thinned), or a few steps of a copy when fewer than two are stored.

    Returns steps, the tables (their first rows and PAD when W is big), PAD's row in them, and
    whether they come from training a copy.
    """
    keep, pad = _pca_rows(lab)
    limit = max(2, min(X7_MAX_SNAPSHOTS, X7_MAX_FLOATS // (len(keep) * lab.weight.shape[1])))
    steps = sorted(lab.snapshots)
    if len(steps) >= 2:
        pick = sorted({steps[round(i * (len(steps) - 1) / (limit - 1))] for i in range(limit)})
        return pick, [lab.snapshots[s][keep] for s in pick], pad, False
    bench = _bench(lab)
    emb = bench.embedding()
    cfg = lab.recipe.config
    opt = make_optimizer(cfg.optimizer, [emb.weight], cfg.lr, cfg.weight_decay)
    tables = [emb.weight.detach().numpy().copy()]
    g = _gen(lab, 7)
    for _ in range(TRAIN_STEPS):  # the probe loss: every looked-up row moves, even if the real loss has saturated
        opt.zero_grad()
        _probe_loss(emb, bench.ids, g).backward()
        opt.step()
        tables.append(emb.weight.detach().numpy().copy())
    return [lab.steps + i for i in range(TRAIN_STEPS + 1)], tables, bench.pad, True


def demo_X7(lab: Lab) -> Demo:
    """Refitting PCA every step moves the PAD point; one fixed frame keeps it still while its row is still."""
    steps, tables, pad, trained_copy = _x7_snapshots(lab)
    fixed = fit_frame(tables, n_components=2)
    refits = [fit_frame([w], n_components=2) for w in tables]
    p_fixed = [fixed.transform(w[pad: pad + 1])[0] for w in tables]  # each (k,)
    p_refit = [f.transform(w[pad: pad + 1])[0] for f, w in zip(refits, tables)]
    move = lambda pts: max(float(np.linalg.norm(p - pts[0])) for p in pts)  # noqa: E731
    flips = sum(float(np.dot(a.axes[0], b.axes[0])) < 0 for a, b in zip(refits, refits[1:]))
    pad_changed = any(not np.array_equal(w[pad], tables[0][pad]) for w in tables)
    rows = [["step", "pad_refit", "pad_fixed"]]
    rows += [[s, [round(float(c), 4) for c in a], [round(float(c), 4) for c in b]]
             for s, a, b in zip(steps, p_refit, p_fixed)]
    facts = {"snapshots": len(tables), "rows": len(tables[0]), "trained_copy": trained_copy,
             "refit_move": move(p_refit),
             "fixed_move": move(p_fixed), "axis_flips": flips, "pad_row_changed": pad_changed}
    others_moved = any(not np.array_equal(np.delete(w, pad, 0), np.delete(tables[0], pad, 0)) for w in tables)
    facts["other_rows_moved"] = others_moved
    ok = (facts["fixed_move"] == 0.0) == (not pad_changed) and (facts["refit_move"] > 0 or not others_moved)
    return Demo("X7", ok, facts, {"pad_points": rows})


# ---- registry -------------------------------------------------------------------------------------
DEMOS: MappingProxyType = MappingProxyType({i: globals()[f"demo_{i}"] for i in LESSON_IDS})


def run_demo(lesson_id: str, lab: Lab) -> Demo:
    """The demonstration of one claim (``"C1"``..``"C16"``, ``"X1"``..``"X7"``) on ``lab``."""
    if lesson_id not in DEMOS:
        raise KeyError(f"unknown lesson {lesson_id!r}; one of {LESSON_IDS}")
    return DEMOS[lesson_id](lab)


def run_all(lab: Lab) -> dict[str, Demo]:
    """Every demonstration, in LESSON_IDS order."""
    return {i: run_demo(i, lab) for i in LESSON_IDS}
