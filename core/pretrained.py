"""Pretrained vectors as part of a recipe: the rows of W that come from a file, and whether W trains.

`Pretrained` holds, for the vocabulary it was matched against, each token the file had and its
float32 vector, and ``freeze``. The table is then built the course's way::

    W = the fresh seeded table (core.model.seeded_embedding_weight: N(0, 1), PAD row zero)
    W[id of each found token] = its vector from the file      # PAD too, if the file has it
    nn.Embedding.from_pretrained(W, freeze=freeze, padding_idx=PAD)

so a token the file does not have starts exactly as in a fresh table, and ``from_pretrained``
keeps every row it is given: it does not zero the PAD row (lesson X9), and with ``freeze=True``
(torch's default) W gets no gradient at all, so Steps leave every row bitwise as it was while
the head still learns.

The vectors are kept by token, so an edit of the vocabulary keeps the rows of the tokens it
keeps; the file's dimension is E (`problems` refuses another E while the vectors are in use).

    >>> p = match(read_vectors([("v.vec", data)], vocab.index), vocab, freeze=True)
    >>> p.table(vocab, seed=0).shape            # (V, E)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from core.model import seeded_embedding_weight
from core.problems import Problem, require
from core.vector_file import VectorFile
from core.vocab import Vocab

MAX_PRETRAINED_FLOATS = 3_000_000  # found rows × E: their base64 keeps a state file under limits.MAX_IMPORT_BYTES


@dataclass(frozen=True)
class Pretrained:
    """The rows a vector file gave: ``tokens`` (in the vocabulary's id order when matched) and their
    vectors as little-endian float32 bytes, (K, E) row-major; ``freeze``: W does not train."""

    tokens: tuple[str, ...]
    data: bytes
    dim: int
    freeze: bool = True

    def vectors(self) -> np.ndarray:
        """(K, E) float32, a fresh array."""
        return np.frombuffer(self.data, dtype="<f4").astype(np.float32).reshape(len(self.tokens), self.dim)

    def found(self, vocab: Vocab) -> np.ndarray:
        """(K,) bool: which of ``tokens`` the vocabulary has."""
        return np.array([t in vocab.index for t in self.tokens], dtype=bool)

    def table(self, vocab: Vocab, seed: int) -> torch.Tensor:
        """W (V, E) before training: the fresh seeded table, with every found token's row from the file."""
        w = seeded_embedding_weight(vocab.size, self.dim, vocab.pad_id, seed)  # (V, E)
        keep = self.found(vocab)
        ids = [vocab.index[t] for t, k in zip(self.tokens, keep) if k]
        if ids:
            w[torch.tensor(ids)] = torch.from_numpy(self.vectors()[keep])
        return w

    def problems(self, embedding_dim: int) -> list[Problem]:
        """E must be the file's dimension while its vectors are in use."""
        if embedding_dim != self.dim:
            return [Problem("pretrained_dim", {"e": embedding_dim, "dim": self.dim})]
        return []

    def frozen(self, freeze: bool) -> "Pretrained":
        return Pretrained(self.tokens, self.data, self.dim, bool(freeze))


def model_args(recipe) -> dict:
    """The `core.model.ToyClassifier` arguments of a recipe's pretrained rows ({} without any)."""
    p = getattr(recipe, "pretrained", None)
    if p is None:
        return {}
    return {"table": p.table(recipe.vocab, recipe.config.seed), "freeze": p.freeze}


@dataclass(frozen=True)
class Matched:
    """What applying a file did: the rows it gives, and the counts the page reports."""

    pretrained: Pretrained
    found: int  # vocabulary rows that take the file's vector
    missing: int  # vocabulary rows initialised as a fresh table would be
    file_rows: int  # vectors in the file


def match(f: VectorFile, vocab: Vocab, freeze: bool = True) -> Matched:
    """The vocabulary's tokens found in ``f`` (its role-marked PAD and UNK rows go to the vocabulary's
    PAD and UNK rows); `InputError` when none is found or there are too many to keep."""
    by_id = {vocab.index[t]: v for t, v in f.vectors.items() if t in vocab.index}
    for role, i in (("pad", vocab.pad_id), ("unk", vocab.unk_id)):
        if role in f.specials:
            by_id[i] = f.specials[role]
    if not by_id:
        require([Problem("pretrained_none_found", {"rows": f.rows, "v": vocab.size})])
    if len(by_id) * f.dim > MAX_PRETRAINED_FLOATS:
        require([Problem("pretrained_too_many", {"n": len(by_id), "e": f.dim, "max": MAX_PRETRAINED_FLOATS})])
    ids = sorted(by_id)
    rows = np.stack([by_id[i] for i in ids]).astype("<f4")  # (K, E)
    p = Pretrained(tuple(vocab.tokens[i] for i in ids), rows.tobytes(), f.dim, bool(freeze))
    return Matched(p, len(ids), vocab.size - len(ids), f.rows)
