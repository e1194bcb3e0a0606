"""Plain PyTorch code that rebuilds the learner's current state, for "show me the code".

The script imports only ``json``, ``math`` and ``torch``; it spells out every step the app
takes (vocabulary dict, OOV → UNK, padding with the PAD id, the seeded table, pooling, head,
optimizer, the same sentences per step, hand-set PAD rows) so that running it prints bitwise
the weights the app shows. Its last line is JSON, for tests and for the curious::

    {"ids": [[2, 0, 3], [2, 4, 1]], "lengths": [3, 2], "losses": [0.71, ...], "W": [[...], ...]}

Worked example (the chapter's vocabulary, 5 steps, the PAD row set by hand after step 2)::

    >>> code = script_for(recipe, 5, [(2, (0.5, -1.0, 2.0))], lang="ko")
    >>> [line for line in code.splitlines() if line.startswith(("UNK =", "PAD =", "STEPS"))]
    ['UNK = 0', 'PAD = 1', 'STEPS = 5']
    >>> pathlib.Path("rebuild.py").write_text(code)   # then: python rebuild.py

The model is built the chapter's way, ``torch.manual_seed(SEED)`` then
``nn.Embedding(V, E, padding_idx=PAD)``; the app draws the same numbers from a private
``torch.Generator`` seeded the same way (`core.model.seeded_embedding_weight`), and the LSTM and
the linear layer come from ``torch.manual_seed(SEED + 1)`` as the app's second generator, so the
script still prints the app's W bit for bit (tests run it and compare).

Comments are in the page's language (``lang``), from ``assets/strings/codegen.json``. Every value
from the learner is written with ``repr``: strings as Python literals (no way to inject code),
floats with all their digits; comments hold only our own text and validated numbers and names.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping, Sequence

import torch

from core.problems import Problem, require
from core.training import Recipe

COMMENTS_FILE = Path(__file__).resolve().parent.parent / "assets" / "strings" / "codegen.json"

_POOL_CODE = MappingProxyType({  # read-only: no module-level mutable state
    "masked_mean": """\
        T = vectors.shape[1]
        mask = (torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(-1)  # (B, T, 1)
        pooled = (vectors * mask).sum(dim=1) / lengths.unsqueeze(1).to(vectors.dtype)  # {pool_masked_mean}""",
    "mean": """\
        pooled = vectors.mean(dim=1)  # {pool_mean}""",
    "lstm": """\
        _, (h, _) = self.lstm(vectors)  # {pool_lstm}
        pooled = h[0]  # (B, E)""",
    "packed_lstm": """\
        packed = nn.utils.rnn.pack_padded_sequence(vectors, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)  # {pool_packed_lstm}
        pooled = h[0]  # (B, E)""",
})

_OPTIMIZER_CODE = MappingProxyType({
    "sgd": "torch.optim.SGD(model.parameters(), lr={lr!r}, weight_decay={wd!r}, fused=True)",
    "momentum": "torch.optim.SGD(model.parameters(), lr={lr!r}, momentum=0.9, weight_decay={wd!r}, fused=True)",
    "adam": "torch.optim.Adam(model.parameters(), lr={lr!r}, weight_decay={wd!r}, fused=True)  # {opt_adam}",
    "adamw": "torch.optim.AdamW(model.parameters(), lr={lr!r}, weight_decay={wd!r}, fused=True)  # {opt_adamw}",
})


@lru_cache(maxsize=2)
def comments(lang: str) -> Mapping[str, str]:
    """The script's comments in ``lang`` ('ko' or 'en'; anything else → 'en'), keyed without 'code.'."""
    lang = lang if lang in ("ko", "en") else "en"
    data = json.loads(COMMENTS_FILE.read_text(encoding="utf-8"))
    return MappingProxyType({key.removeprefix("code."): entry[lang] for key, entry in data.items()})


def script_for(recipe: Recipe, steps: int, pad_edits: Sequence[tuple[int, Sequence[float]]] = (),
               lang: str = "ko") -> str:
    """A runnable script that rebuilds ``replay(recipe, steps, pad_edits)`` and prints its W.

    Comments are in ``lang`` ('ko' or 'en'). PAD edits past ``steps`` are left out, as
    `core.training.replay` ignores them. Raises `InputError` when the recipe is invalid or steps
    are asked of unlabelled sentences.
    """
    require(recipe.problems())
    if not (isinstance(steps, int) and steps >= 0):
        raise ValueError("script_for: steps must be an int ≥ 0")
    missing = sum(label is None for label in recipe.labels)
    if steps > 0 and missing:
        require([Problem("labels_missing", {"n": missing})])
    edits = [(int(s), [float(x) for x in v]) for s, v in sorted(pad_edits, key=lambda e: e[0]) if 0 <= s <= steps]
    c = comments(lang)
    parts = [_header(recipe, steps, c), _data_code(recipe, c), _batch_code(recipe, c), _model_code(recipe, c),
             _train_code(recipe, steps, edits, c), _output_code(c)]
    return "\n\n".join(parts) + "\n"


def _header(recipe: Recipe, steps: int, c: Mapping[str, str]) -> str:
    cfg, v = recipe.config, recipe.vocab
    text = c["header"].format(torch=torch.__version__, v=v.size, unk=v.unk_id, pad=v.pad_id, b=len(recipe.sentences),
                              e=cfg.embedding_dim, seed=cfg.seed, pooling=cfg.pooling, optimizer=cfg.optimizer,
                              lr=repr(cfg.lr), wd=repr(cfg.weight_decay), steps=steps)
    return f'''"""{text}
"""
import json

import torch
from torch import nn'''


def _data_code(recipe: Recipe, c: Mapping[str, str]) -> str:
    v = recipe.vocab
    vocab = "\n".join(f"    {t!r}: {i}," for i, t in enumerate(v.tokens))
    sentences = "\n".join(f"    {list(s)!r}," for s in recipe.sentences)
    return f"""# ---- {c["vocab"]}
vocab = {{
{vocab}
}}
UNK = {v.unk_id}
PAD = {v.pad_id}
V = len(vocab)

# ---- {c["sentences"]}
CLASSES = {list(recipe.classes)!r}
SENTENCES = [
{sentences}
]
LABELS = {list(recipe.labels)!r}""" + _pretrained_data(recipe, c)


def _pretrained_data(recipe: Recipe, c: Mapping[str, str]) -> str:
    """PRETRAINED (token → the file's float32 values, each written as the Python float equal to it,
    so ``torch.tensor(..., dtype=torch.float32)`` gives the same bits) and FREEZE; '' without a file."""
    p = recipe.pretrained
    if p is None:
        return ""
    rows = "\n".join(f"    {t!r}: {row!r}," for t, row in zip(p.tokens, p.vectors().tolist()))
    return f"""

# ---- {c["pretrained"]}
PRETRAINED = {{
{rows}
}}
FREEZE = {p.freeze!r}"""


def _pretrained_model(recipe: Recipe, c: Mapping[str, str]) -> str:
    """The lines that put the file's rows into W and build the table with from_pretrained."""
    if recipe.pretrained is None:
        return ""
    return f"""
        W = self.embedding.weight.detach().clone()  # (V, E)
        for token, vector in PRETRAINED.items():  # {c["pretrained_rows"]}
            if token in vocab:
                W[vocab[token]] = torch.tensor(vector, dtype=torch.float32)
        # {c["from_pretrained"]}
        self.embedding = nn.Embedding.from_pretrained(W, freeze=FREEZE, padding_idx=PAD)"""


def _batch_code(recipe: Recipe, c: Mapping[str, str]) -> str:
    return f"""# ---- {c["encode"]}
FIXED_LEN = {recipe.config.fixed_len!r}  # {c["fixed_len"]}
encoded = [[vocab.get(token, UNK) for token in sentence] for sentence in SENTENCES]
T = FIXED_LEN if FIXED_LEN is not None else max(len(e) for e in encoded)
ids = torch.full((len(encoded), T), PAD, dtype=torch.long)  # (B, T)
for b, e in enumerate(encoded):
    row = e[:T]
    ids[b, : len(row)] = torch.tensor(row, dtype=torch.long)
lengths = torch.tensor([min(len(e), T) for e in encoded], dtype=torch.long)  # (B,) {c["lengths"]}"""


def _model_code(recipe: Recipe, c: Mapping[str, str]) -> str:
    cfg = recipe.config
    lstm = ("\n        self.lstm = nn.LSTM(E, E, batch_first=True)"
            if cfg.pooling in ("lstm", "packed_lstm") else "")
    return f"""# ---- {c["model"].format(pooling=cfg.pooling)}
E = {cfg.embedding_dim}
SEED = {cfg.seed}
N_CLASSES = {max(2, len(recipe.classes))}


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(SEED)  # {c["seed"]}
        self.embedding = nn.Embedding(V, E, padding_idx=PAD)  # {c["embedding"]}{_pretrained_model(recipe, c)}
        torch.manual_seed(SEED + 1)  # {c["seed_head"]}{lstm}
        self.head = nn.Linear(E, N_CLASSES)

    def forward(self, ids, lengths):
        vectors = self.embedding(ids)  # (B, T) -> (B, T, E)
{_POOL_CODE[cfg.pooling].format_map(c)}
        return self.head(pooled)  # (B, N_CLASSES) {c["logits"]}"""


def _train_code(recipe: Recipe, steps: int, edits: list[tuple[int, list[float]]], c: Mapping[str, str]) -> str:
    cfg = recipe.config
    optimizer = _OPTIMIZER_CODE[cfg.optimizer].format(lr=cfg.lr, wd=cfg.weight_decay, **c)
    pad_edits = "".join(f"\n    ({s}, {v!r})," for s, v in edits)
    step_line = "f" + repr(c["print_step"].format(step="{done + 1}", loss="{loss.item():.6f}"))
    return f'''
# ---- {c["train"]}
model = Classifier()
# {c["fused"]}
optimizer = {optimizer}
loss_fn = nn.CrossEntropyLoss()
STEPS = {steps}
BATCH_SIZE = {cfg.batch_size}  # {c["batch_size"]}
PAD_EDITS = [{pad_edits}
]  # {c["pad_edits"]}


def step_rows(step):
    """{c["step_rows"]}"""
    B = ids.shape[0]
    if BATCH_SIZE <= 0 or BATCH_SIZE >= B:
        return torch.arange(B)
    start = ((step - 1) * BATCH_SIZE) % B
    return (torch.arange(BATCH_SIZE) + start) % B


losses = []
for done in range(STEPS + 1):
    for at, vector in PAD_EDITS:
        if at == done:
            with torch.no_grad():  # {c["pad_set"]}
                model.embedding.weight[PAD] = torch.tensor(vector, dtype=torch.float32)
    if done == STEPS:
        break
    rows = step_rows(done + 1)  # (K,)
    targets = torch.tensor([LABELS[i] for i in rows.tolist()], dtype=torch.long)  # (K,)
    optimizer.zero_grad()
    loss = loss_fn(model(ids[rows], lengths[rows]), targets)
    loss.backward()  # {c["pad_grad"]}
    optimizer.step()
    losses.append(loss.item())
    print({step_line})'''


def _output_code(c: Mapping[str, str]) -> str:
    more = "f" + repr(c["more_rows"].format(n="{V - 50}"))
    return f"""# ---- {c["results"]}
W = model.embedding.weight.detach()  # (V, E)
print("ids:", ids.tolist())
for i, row in enumerate(W.tolist()[:50]):
    print(i, row)
if V > 50:
    print({more})
print(json.dumps({{"ids": ids.tolist(), "lengths": lengths.tolist(), "losses": losses, "W": W.tolist()}}))"""
