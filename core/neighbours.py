"""The nearest rows of W to one row, by cosine similarity (what the stage and the details list)."""

from __future__ import annotations

import numpy as np


def neighbours(w: np.ndarray, token_id: int, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest other rows to ``token_id`` by cosine similarity, as (ids, cos); zero rows (PAD) have no direction."""
    big = np.abs(w[token_id]).max(initial=0.0)
    if big > 1e15:  # squares of such rows overflow float32; the cosine does not depend on the scale
        w = w / np.abs(w).max()
    norms = np.sqrt(np.einsum("ij,ij->i", w, w))  # ‖row‖ without np.linalg.norm's temporaries
    if norms[token_id] == 0:
        return np.array([], dtype=int), np.array([])
    with np.errstate(invalid="ignore", divide="ignore"):
        sims = (w @ w[token_id]) / (norms * norms[token_id])  # (V,)
    candidates = np.flatnonzero(np.isfinite(sims) & (np.arange(len(sims)) != token_id))
    score = -sims[candidates]
    if len(candidates) > k:  # only the k best need sorting (V can be 100,000)
        keep = score <= np.partition(score, k - 1)[k - 1]  # ties at the k-th kept: the stable sort decides
        candidates, score = candidates[keep], score[keep]
    order = candidates[np.argsort(score, kind="stable")][:k]
    return order, sims[order].astype(float)
