"""The toy classifier: embedding → pooling → linear, initialised from a seed without global RNG.

``nn.Embedding(V, E, padding_idx=PAD)`` fills W with N(0, 1) and zeroes the PAD row (C7, C13).
We build the same table from a private ``torch.Generator`` so that two sessions training at
once on one server never draw from each other's random stream, and the same seed always gives
the same weights (Reset replays the run exactly).

Pooling turns (B, T, E) into (B, E):

- ``masked_mean``: mean over real tokens only (default; pads excluded).
- ``mean``: naive mean over all T positions; pads add zeros, so it equals
  masked_mean × length / T (C15).
- ``lstm``: an LSTM over the padded batch, final hidden state; pads still update it (C15).
- ``packed_lstm``: the same LSTM over ``pack_padded_sequence``: pads are skipped.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

POOLINGS = ("masked_mean", "mean", "lstm", "packed_lstm")


def seeded_embedding_weight(vocab_size: int, dim: int, pad_id: int, seed: int) -> torch.Tensor:
    """W as ``nn.Embedding`` would make it (normal_, then the padding row zeroed), from ``seed``. (V, E)"""
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(vocab_size, dim, generator=g)  # (V, E), N(0, 1): C7
    w[pad_id].zero_()  # C13: only at construction; nothing re-zeroes it later
    return w


class ToyClassifier(nn.Module):
    """Sentence classifier used to show what training does to W.

    >>> m = ToyClassifier(6, 3, 2, pad_id=1, seed=0)
    >>> m(torch.tensor([[2, 0, 3], [2, 4, 1]]), torch.tensor([3, 2])).shape
    torch.Size([2, 2])
    """

    def __init__(self, vocab_size: int, dim: int, n_classes: int, pad_id: int, seed: int, pooling: str = "masked_mean",
                 table: torch.Tensor | None = None, freeze: bool = False):
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be one of {POOLINGS}")
        if table is not None and tuple(table.shape) != (vocab_size, dim):
            raise ValueError(f"table must be ({vocab_size}, {dim})")
        self.pooling = pooling
        # from_pretrained copies nothing and does not touch row pad_id (it does NOT zero it:
        # C13, X9), so the seeded table's PAD row is zeroed beforehand. ``table``: W from a vector
        # file (core/pretrained.py), kept as given; ``freeze``: W gets no gradient (torch's default
        # is True; a table without a file trains).
        self.embedding = nn.Embedding.from_pretrained(
            seeded_embedding_weight(vocab_size, dim, pad_id, seed) if table is None else table,
            freeze=freeze, padding_idx=pad_id,
        )
        g = torch.Generator().manual_seed(seed + 1)
        self.lstm = None
        if pooling in ("lstm", "packed_lstm"):
            # Built on the meta device and given empty storage: no draw from the global RNG.
            self.lstm = nn.LSTM(dim, dim, batch_first=True, device="meta").to_empty(device="cpu")
            bound = 1 / math.sqrt(dim)  # nn.LSTM's own init, drawn from our generator
            with torch.no_grad():
                for p in self.lstm.parameters():
                    p.uniform_(-bound, bound, generator=g)
        self.head = nn.utils.skip_init(nn.Linear, dim, n_classes)  # no global-RNG init
        with torch.no_grad():  # nn.Linear's own init, drawn from our generator
            nn.init.kaiming_uniform_(self.head.weight, a=math.sqrt(5), generator=g)
            bound = 1 / math.sqrt(dim)
            self.head.bias.uniform_(-bound, bound, generator=g)

    def pool(self, vectors: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """(B, T, E) vectors, (B,) true lengths → (B, E) sentence vectors."""
        B, T, E = vectors.shape
        if self.pooling == "mean":
            return vectors.mean(dim=1)  # pads count in the denominator T
        if self.pooling == "masked_mean":
            mask = (torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(-1)  # (B, T, 1)
            return (vectors * mask).sum(dim=1) / lengths.unsqueeze(1).to(vectors.dtype)
        if self.pooling == "lstm":
            _, (h, _) = self.lstm(vectors)  # h: (1, B, E), after all T steps, pads included
            return h[0]
        packed = pack_padded_sequence(vectors, lengths.cpu(), batch_first=True, enforce_sorted=False)
        _, (h, _) = self.lstm(packed)  # h: (1, B, E), after each sentence's true length
        return h[0]

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        vectors = self.embedding(ids)  # (B, T) → (B, T, E)
        return self.head(self.pool(vectors, lengths))  # (B, C) logits
