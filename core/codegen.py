"""Plain PyTorch code that rebuilds the learner's current state, for "show me the code".

The script imports only ``json``, ``math`` and ``torch``; it spells out every step the app
takes (vocabulary dict, OOV → UNK, padding with the PAD id, the seeded table, pooling, head,
optimizer, the same sentences per step, hand-set PAD rows) so that running it prints bitwise
the weights the app shows. Its last line is JSON, for tests and for the curious::

    {"ids": [[2, 0, 3], [2, 4, 1]], "lengths": [3, 2], "losses": [0.71, ...], "W": [[...], ...]}

Worked example (the chapter's vocabulary, 5 steps, the PAD row set by hand after step 2)::

    >>> code = script_for(recipe, 5, [(2, (0.5, -1.0, 2.0))])
    >>> [line for line in code.splitlines() if line.startswith(("UNK_ID", "PAD_ID", "STEPS"))]
    ['UNK_ID = 0', 'PAD_ID = 1', 'STEPS = 5']
    >>> pathlib.Path("rebuild.py").write_text(code)   # then: python rebuild.py

Every value from the learner is written with ``repr``: strings as Python literals (no way to
inject code), floats with all their digits. The draw order of the random generators follows
`core.model.ToyClassifier` exactly; tests run the script and compare bit for bit.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Sequence

import torch

from core.problems import Problem, require
from core.training import Recipe

_POOL_CODE = MappingProxyType({  # read-only: no module-level mutable state
    "masked_mean": """\
        T = vectors.shape[1]
        mask = (torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(-1)  # (B, T, 1)
        pooled = (vectors * mask).sum(dim=1) / lengths.unsqueeze(1).to(vectors.dtype)  # (B, E): pads left out""",
    "mean": """\
        pooled = vectors.mean(dim=1)  # (B, E): pads are zeros counted in T (C15)""",
    "lstm": """\
        _, (h, _) = self.lstm(vectors)  # h: (1, B, E), after all T steps: pads update it too (C15)
        pooled = h[0]  # (B, E)""",
    "packed_lstm": """\
        packed = nn.utils.rnn.pack_padded_sequence(vectors, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)  # h: (1, B, E), after each sentence's true length
        pooled = h[0]  # (B, E)""",
})

_OPTIMIZER_CODE = MappingProxyType({
    "sgd": "torch.optim.SGD(model.parameters(), lr={lr!r}, weight_decay={wd!r}, fused=True)",
    "momentum": "torch.optim.SGD(model.parameters(), lr={lr!r}, momentum=0.9, weight_decay={wd!r}, fused=True)",
    "adam": "torch.optim.Adam(model.parameters(), lr={lr!r}, weight_decay={wd!r}, fused=True)  # L2 in the gradient",
    "adamw": "torch.optim.AdamW(model.parameters(), lr={lr!r}, weight_decay={wd!r}, fused=True)  # decoupled decay",
})


def script_for(recipe: Recipe, steps: int, pad_edits: Sequence[tuple[int, Sequence[float]]] = ()) -> str:
    """A runnable script that rebuilds ``replay(recipe, steps, pad_edits)`` and prints its W.

    PAD edits past ``steps`` are left out, as `core.training.replay` ignores them.
    Raises `InputError` when the recipe is invalid or steps are asked of unlabelled sentences.
    """
    require(recipe.problems())
    if not (isinstance(steps, int) and steps >= 0):
        raise ValueError("script_for: steps must be an int ≥ 0")
    missing = sum(label is None for label in recipe.labels)
    if steps > 0 and missing:
        require([Problem("labels_missing", {"n": missing})])
    edits = [(int(s), [float(x) for x in v]) for s, v in sorted(pad_edits, key=lambda e: e[0]) if 0 <= s <= steps]
    parts = [_header(recipe, steps), _data_code(recipe), _batch_code(recipe), _model_code(recipe),
             _train_code(recipe, steps, edits), _output_code()]
    return "\n\n".join(parts) + "\n"


def _header(recipe: Recipe, steps: int) -> str:
    cfg, v = recipe.config, recipe.vocab
    return f'''"""Embedding Explorer, rebuilt in plain PyTorch (written for torch {torch.__version__}).

V={v.size} tokens (UNK id {v.unk_id}, PAD id {v.pad_id}), {len(recipe.sentences)} sentences, E={cfg.embedding_dim}, seed {cfg.seed},
pooling {cfg.pooling}, optimizer {cfg.optimizer} (lr {cfg.lr!r}, weight decay {cfg.weight_decay!r}), {steps} steps.
Run it with `python this_file.py`. The last line printed is JSON with ids, losses and W.
"""
import json
import math

import torch
from torch import nn'''


def _data_code(recipe: Recipe) -> str:
    v = recipe.vocab
    vocab = "\n".join(f"    {t!r}: {i}," for i, t in enumerate(v.tokens))
    sentences = "\n".join(f"    {list(s)!r}," for s in recipe.sentences)
    return f'''# ---- 1. Vocabulary: token -> id. UNK and PAD are roles you chose, not names (C11, C12).
VOCAB = {{
{vocab}
}}
UNK_ID = {v.unk_id}
PAD_ID = {v.pad_id}
V = len(VOCAB)

# ---- 2. Sentences, split on whitespace, and their labels (an index into CLASSES).
CLASSES = {list(recipe.classes)!r}
SENTENCES = [
{sentences}
]
LABELS = {list(recipe.labels)!r}'''


def _batch_code(recipe: Recipe) -> str:
    return f'''# ---- 3. Encode (a token missing from VOCAB -> UNK_ID) and right-pad with PAD_ID, not 0 (X1).
FIXED_LEN = {recipe.config.fixed_len!r}  # None: pad to the longest sentence
encoded = [[VOCAB.get(tok, UNK_ID) for tok in sentence] for sentence in SENTENCES]
T = FIXED_LEN if FIXED_LEN is not None else max(len(e) for e in encoded)
ids = torch.full((len(encoded), T), PAD_ID, dtype=torch.long)  # (B, T)
for b, e in enumerate(encoded):
    row = e[:T]
    ids[b, : len(row)] = torch.tensor(row, dtype=torch.long)
lengths = torch.tensor([min(len(e), T) for e in encoded], dtype=torch.long)  # (B,) true lengths'''


def _model_code(recipe: Recipe) -> str:
    cfg = recipe.config
    lstm = '''
        self.lstm = nn.LSTM(E, E, batch_first=True)
        bound = 1 / math.sqrt(E)  # nn.LSTM's own init, drawn from our generator
        with torch.no_grad():
            for p in self.lstm.parameters():
                p.uniform_(-bound, bound, generator=g)''' if cfg.pooling in ("lstm", "packed_lstm") else ""
    return f'''# ---- 4. The model: embedding -> pooling ({cfg.pooling}) -> linear, every draw from seeded generators.
E = {cfg.embedding_dim}
SEED = {cfg.seed}
N_CLASSES = {max(2, len(recipe.classes))}


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(SEED)
        W = torch.randn(V, E, generator=g)  # (V, E), N(0, 1) like nn.Embedding (C7)
        W[PAD_ID].zero_()  # nn.Embedding zeroes the padding row once, at construction (C13)
        self.embedding = nn.Embedding.from_pretrained(W, freeze=False, padding_idx=PAD_ID)
        g = torch.Generator().manual_seed(SEED + 1){lstm}
        self.head = nn.Linear(E, N_CLASSES)
        with torch.no_grad():  # nn.Linear's own init, drawn from our generator
            nn.init.kaiming_uniform_(self.head.weight, a=math.sqrt(5), generator=g)
            bound = 1 / math.sqrt(E)
            self.head.bias.uniform_(-bound, bound, generator=g)

    def forward(self, ids, lengths):
        vectors = self.embedding(ids)  # (B, T) -> (B, T, E)
{_POOL_CODE[cfg.pooling]}
        return self.head(pooled)  # (B, N_CLASSES) logits'''


def _train_code(recipe: Recipe, steps: int, edits: list[tuple[int, list[float]]]) -> str:
    cfg = recipe.config
    optimizer = _OPTIMIZER_CODE[cfg.optimizer].format(lr=cfg.lr, wd=cfg.weight_decay)
    pad_edits = "".join(f"\n    ({s}, {v!r})," for s, v in edits)
    return f'''
# ---- 5. Training: the same sentences per step and the same optimizer as the app.
model = Classifier()
# fused=True: one kernel for the whole update, as the app uses (same math as the default; the last bit may differ)
optimizer = {optimizer}
loss_fn = nn.CrossEntropyLoss()
STEPS = {steps}
BATCH_SIZE = {cfg.batch_size}  # 0: every sentence in every step; k: the next k sentences in turn
PAD_EDITS = [{pad_edits}
]  # (step, vector): the PAD row set by hand after that many steps (C13)


def step_rows(step):
    """Sentence indices used by step number `step` (1-based). (K,)"""
    B = ids.shape[0]
    if BATCH_SIZE <= 0 or BATCH_SIZE >= B:
        return torch.arange(B)
    start = ((step - 1) * BATCH_SIZE) % B
    return (torch.arange(BATCH_SIZE) + start) % B


losses = []
for done in range(STEPS + 1):
    for at, vector in PAD_EDITS:
        if at == done:
            with torch.no_grad():  # lookups return the new row; nothing re-zeroes it (C13)
                model.embedding.weight[PAD_ID] = torch.tensor(vector, dtype=torch.float32)
    if done == STEPS:
        break
    rows = step_rows(done + 1)  # (K,)
    targets = torch.tensor([LABELS[i] for i in rows.tolist()], dtype=torch.long)  # (K,)
    optimizer.zero_grad()
    loss = loss_fn(model(ids[rows], lengths[rows]), targets)
    loss.backward()  # the PAD row's gradient is exactly 0 (padding_idx)
    optimizer.step()
    losses.append(loss.item())
    print(f"step {{done + 1}}: loss {{loss.item():.6f}}")'''


def _output_code() -> str:
    return '''# ---- 6. Results: W with every digit of each float32 (repr of a Python float is exact).
W = model.embedding.weight.detach()  # (V, E)
print("ids:", ids.tolist())
for i, row in enumerate(W.tolist()[:50]):
    print(i, row)
if V > 50:
    print(f"... {V - 50} more rows in the JSON below")
print(json.dumps({"ids": ids.tolist(), "lengths": lengths.tolist(), "losses": losses, "W": W.tolist()}))'''
