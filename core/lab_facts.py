"""What cannot change within a lab: how often the batch looks each row up, and each token's class.

A lab's recipe and batch are frozen, so these are computed once per lab (`Explorer.facts`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.classes import token_classes
from core.training import Lab


@dataclass(frozen=True)
class LabFacts:
    """What cannot change within a lab (its recipe and batch are frozen): computed once per lab."""

    counts: np.ndarray  # (V,) how many times the batch looks each id up
    used: np.ndarray  # (V,) bool: looked up at least once
    classes: np.ndarray  # (V,) token_classes: the class each token is most associated with, or -1
    normal: tuple[int, ...]  # the looked-up ids other than PAD and UNK, in id order
    plain: int  # rows never looked up, PAD and UNK aside

    @classmethod
    def of(cls, lab: Lab) -> "LabFacts":
        vocab = lab.recipe.vocab
        counts = lab.batch.id_counts(vocab.size).numpy()
        used = counts > 0
        special = (vocab.pad_id, vocab.unk_id)
        plain = ~used
        plain[list(special)] = False
        return cls(counts, used, token_classes(lab.recipe),
                   tuple(i for i in np.flatnonzero(used).tolist() if i not in special), int(plain.sum()))
