"""The answer key: training written out in plain torch, as a learner would type it after the chapter.

`PlainLoop` starts from its own nn.Embedding and nn.Linear, initialised here from the recipe's
seed the way torch's own ``reset_parameters`` draws them (a private generator, no global RNG),
pads the sentences itself, and trains with torch's fused optimizer. Tests compare the app's W and
losses with it; bench/bench_training.py times the app's loop against it (``from_lab`` starts it
from a lab's weights, so only the bookkeeping differs).
"""

from __future__ import annotations

import math

import numpy as np  # noqa: F401  (the snapshots' type)

import torch
from torch import nn


def _optimizer(name: str, params, lr: float, weight_decay: float) -> torch.optim.Optimizer:
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr, weight_decay=weight_decay, fused=True)
    if name == "momentum":
        return torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=weight_decay, fused=True)
    cls = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[name]
    return cls(params, lr=lr, weight_decay=weight_decay, fused=True)


class PlainLoop:
    """Masked-mean pooling, padding to the longest sentence, a linear head; each step takes every
    sentence, or (``batch_size`` k) the next k sentences in turn, wrapping around to the first."""

    def __init__(self, recipe, from_lab=None, keep_snapshots: bool = False):
        cfg = recipe.config
        assert cfg.pooling == "masked_mean" and cfg.fixed_len is None, \
            "the plain loop is written for masked_mean, padding to the longest sentence"
        vocab = recipe.vocab
        v, e, pad, unk = vocab.size, cfg.embedding_dim, vocab.pad_id, vocab.unk_id
        n_classes = len(recipe.classes)
        self.emb = nn.Embedding(v, e, padding_idx=pad)
        self.head = nn.Linear(e, n_classes)
        with torch.no_grad():
            if from_lab is None:
                nn.init.normal_(self.emb.weight, generator=torch.Generator().manual_seed(cfg.seed))
                self.emb.weight[pad] = 0
                g = torch.Generator().manual_seed(cfg.seed + 1)
                nn.init.kaiming_uniform_(self.head.weight, a=math.sqrt(5), generator=g)
                self.head.bias.uniform_(-1 / math.sqrt(e), 1 / math.sqrt(e), generator=g)
            else:
                self.emb.weight.copy_(from_lab.model.embedding.weight)
                self.head.weight.copy_(from_lab.model.head.weight)
                self.head.bias.copy_(from_lab.model.head.bias)
        rows = [[vocab.index.get(tok, unk) for tok in sentence] for sentence in recipe.sentences]
        T = max(len(r) for r in rows)
        self.ids = torch.tensor([r + [pad] * (T - len(r)) for r in rows])  # (B, T)
        self.lengths = torch.tensor([len(r) for r in rows])  # (B,)
        self.targets = torch.tensor(recipe.labels, dtype=torch.long)  # (B,)
        B = len(rows)
        self.k = cfg.batch_size if 0 < cfg.batch_size < B else B  # sentences per step
        self.opt = _optimizer(cfg.optimizer, [*self.emb.parameters(), *self.head.parameters()], cfg.lr, cfg.weight_decay)
        self.losses: list[float] = []
        self.steps = 0
        self.snapshots: dict[int, "np.ndarray"] | None = {0: self.weight.copy()} if keep_snapshots else None
        self.grad_norms: dict[int, "np.ndarray"] = {}  # with keep_snapshots: step → ‖dL/dW‖ of every row (V,)

    @property
    def weight(self):
        """W now, as a numpy array (V, E)."""
        return self.emb.weight.detach().numpy()

    def batch(self, step: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(ids, lengths, targets) of step ``step`` (1-based): the k sentences from ((step − 1)·k) mod B on."""
        B, k = self.ids.shape[0], self.k
        if k == B:
            return self.ids, self.lengths, self.targets
        rows = (torch.arange(k) + (step - 1) * k) % B
        return self.ids[rows], self.lengths[rows], self.targets[rows]

    def run(self, n: int) -> "PlainLoop":
        T = self.ids.shape[1]
        for _ in range(n):
            ids, lengths, targets = self.batch(self.steps + 1)
            self.opt.zero_grad()
            vectors = self.emb(ids)  # (B, T, E)
            mask = (torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(-1)  # (B, T, 1)
            pooled = (vectors * mask).sum(dim=1) / lengths.unsqueeze(1).to(vectors.dtype)  # (B, E)
            loss = nn.functional.cross_entropy(self.head(pooled), targets)
            loss.backward()
            grad_norm = torch.linalg.vector_norm(self.emb.weight.grad, dim=1).numpy().copy()
            self.opt.step()
            self.losses.append(loss.item())
            self.steps += 1
            if self.snapshots is not None:
                self.snapshots[self.steps] = self.weight.copy()
                self.grad_norms[self.steps] = grad_norm
        return self
