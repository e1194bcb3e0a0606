"""Pretrained rows in the saved state (core/state.py): `Pretrained` ↔ the schema's `PretrainedData`.

The rows travel with the recipe, not as weights: a state file, the keeper and a share link carry
them (a link only while it stays under its length limit, `core.share_link.MAX_SHARE_PARAM_CHARS`;
past it the page offers no link and says so, and the exported file carries them). Read back, they
are untrusted like the rest: one row per token, no token twice, E columns, finite float32.

    >>> data = to_data(recipe.pretrained)                 # the schema's PretrainedData
    >>> from_data(data, recipe.config.embedding_dim)      # (Pretrained, []) — or (None, problems)
"""

from __future__ import annotations

import torch

from core.pretrained import MAX_PRETRAINED_FLOATS, Pretrained
from core.problems import InputError, Problem
from core.state_schema import PretrainedData, TensorData, _shape_text


def to_data(p: Pretrained | None) -> PretrainedData | None:
    if p is None:
        return None
    return PretrainedData(tokens=list(p.tokens), vectors=TensorData.of(torch.from_numpy(p.vectors())), freeze=p.freeze)


def from_data(data: PretrainedData | None, embedding_dim: int) -> tuple[Pretrained | None, list[Problem]]:
    """The recipe's `Pretrained` of a state's ``pretrained`` field, or the problems that keep it out."""
    if data is None:
        return None, []
    k = len(data.tokens)
    expected = [k, embedding_dim]
    if data.vectors.shape != expected:
        return None, [Problem("import_weights_shape", {"name": "pretrained.vectors", "shape": _shape_text(data.vectors.shape),
                                                       "expected": _shape_text(expected)})]
    if k * embedding_dim > MAX_PRETRAINED_FLOATS:
        return None, [Problem("pretrained_too_many", {"n": k, "e": embedding_dim, "max": MAX_PRETRAINED_FLOATS})]
    if len(set(data.tokens)) != k:
        return None, [Problem("import_pretrained_duplicate", {})]
    try:
        w = data.vectors.tensor("pretrained.vectors")  # (K, E): bad base64 or non-finite values refused
    except InputError as e:
        return None, e.problems
    raw = w.numpy().astype("<f4").tobytes()
    return Pretrained(tuple(data.tokens), raw, embedding_dim, data.freeze), []

